package query

import (
	"errors"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

func TestSelectTools(t *testing.T) {
	var core, all []string
	for _, tl := range Tools() {
		all = append(all, tl.Name)
		if tl.Group == GroupCore {
			core = append(core, tl.Name)
		}
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"", core},
		{"default", core},
		{"all", all},
		{"core", core},
		{" find_symbol , get_symbol ", []string{"find_symbol", "get_symbol"}},
		{"default,all", all},
	} {
		ts, err := SelectTools(tc.spec)
		if err != nil {
			t.Fatalf("SelectTools(%q): %v", tc.spec, err)
		}
		var got []string
		for _, tl := range ts {
			got = append(got, tl.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("SelectTools(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	_, err := SelectTools("core,nosuch")
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeInvalidArgument {
		t.Fatalf("unknown name: err = %v, want INVALID_ARGUMENT", err)
	}
}
