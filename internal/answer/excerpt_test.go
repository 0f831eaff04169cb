package answer

import (
	"strings"
	"testing"
)

// TestExcerpt pins Excerpt's trimming and cutting, and checks that its
// shortcut for ASCII lines cuts them as excerptRunes does.
func TestExcerpt(t *testing.T) {
	long := "\tif err := s.store.WriteSomethingLong(ctx, first, second, third, fourth); err != nil {  "
	tests := []struct {
		line string
		col  int
		want string
	}{
		{"", 1, ""},
		{"  \t ", 1, ""},
		{"\t\treturn x  ", 10, "return x"},
		{long, 20, "…:= s.store.WriteSomethingLong(ctx, first, second…"},
		{long, 60, "…ctx, first, second, third, fourth); err != nil {"},
		{long, 90, "…ctx, first, second, third, fourth); err != nil {"},
		{"\tx := \"é\" + strings.Repeat(\"αβγ\", 40) + y // ünïcode and more text", 50,
			"…Repeat(\"αβγ\", 40) + y // ünïcode and more text"},
		{"\ta := \"\x1b[31m\" // escape", 2, `a := "\x1b[31m" // escape`},
		{"bad \xff byte", 1, `bad ` + "\uFFFD" + ` byte`},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.line, tt.col); got != tt.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.line, tt.col, got, tt.want)
		}
	}
	// Every column of ASCII lines of every length around maxExcerpt,
	// with words, blanks and punctuation to cut between.
	words := "alpha_1 (beta, gamma)\tdelta.epsilon = zeta9 + eta  theta; iota kappa lambda mu nu xi omicron"
	for n := 0; n <= len(words); n++ {
		for _, line := range []string{words[:n], "  " + words[:n] + " \t", words[len(words)-n:]} {
			for col := 0; col <= len(line)+2; col++ {
				if got, want := Excerpt(line, col), excerptRunes(line, col); got != want {
					t.Fatalf("Excerpt(%q, %d) = %q, excerptRunes %q", line, col, got, want)
				}
			}
		}
	}
	if strings.Contains(Excerpt(long, 1), "\t") {
		t.Error("excerpt keeps a leading tab")
	}
}
