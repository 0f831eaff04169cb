package answer

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestUnsafeRune checks unsafeRune's ASCII shortcut against its
// definition, over every code point.
func TestUnsafeRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029'
		if got := unsafeRune(r); got != want {
			t.Errorf("unsafeRune(%U) = %v, want %v", r, got, want)
		}
	}
}
