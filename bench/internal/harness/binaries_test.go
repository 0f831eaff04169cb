package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseBinaries(t *testing.T) {
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, p := range []string{old, new} {
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ParseBinaries("old=" + old + ", new=" + new)
	if err != nil {
		t.Fatal(err)
	}
	want := []Binary{{"old", old}, {"new", new}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseBinaries = %v, want %v", got, want)
	}
	for _, bad := range []string{"old=" + old, "old=" + old + ",old=" + new, "old=" + old + ",new", "old=" + old + ",new=" + dir} {
		if _, err := ParseBinaries(bad); err == nil {
			t.Errorf("ParseBinaries(%q) gave no error", bad)
		}
	}
}

func TestAlternateAndSpread(t *testing.T) {
	xs := []string{"a", "b", "c"}
	if got := Alternate(0, xs); !slices.Equal(got, xs) {
		t.Errorf("round 0: %v", got)
	}
	if got := Alternate(1, xs); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Errorf("round 1: %v", got)
	}
	if !slices.Equal(xs, []string{"a", "b", "c"}) {
		t.Errorf("Alternate changed its argument: %v", xs)
	}
	s := SpreadOf([]float64{1.1, 0.9, 1.0, 1.3})
	if s.N != 4 || s.Median != 1.0 || s.Min != 0.9 || s.Max != 1.3 {
		t.Errorf("SpreadOf = %+v", s)
	}
	if Ratio(1, 0) != 0 || Ratio(3, 2) != 1.5 {
		t.Errorf("Ratio")
	}
}
