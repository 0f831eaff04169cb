package scipindex

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/scip"
)

// FuzzHeaderSignature: a class's or interface's header read from any
// source is one line, bounded, and starts with the signature it mends.
func FuzzHeaderSignature(f *testing.F) {
	f.Add("export class A<T extends { x: 1 }> extends B<(y: 2) => \"}\"> // {\n implements C /* { */ {\n}\n", "class A")
	f.Add("interface I<T = '\\'{'> extends J {}", "interface I")
	f.Add("class A /* unterminated", "class A")
	f.Fuzz(func(t *testing.T, src, sig string) {
		name, ok := strings.CutPrefix(sig, "class ")
		if !ok {
			if name, ok = strings.CutPrefix(sig, "interface "); !ok {
				return
			}
		}
		lines := newLineTable([]byte(src), position.UTF8)
		last := int32(len(lines.lines) - 1)
		rng := scip.Range{EndLine: last, EndChar: int32(lines.lineUnits(last))}
		got := headerSignature(sig, name, lines, rng)
		if got == "" {
			return
		}
		if strings.ContainsAny(got, "\n\r\t") || utf8.RuneCountInString(got) > maxAliasSignature+1 ||
			!strings.HasPrefix(got, sig) && !strings.HasPrefix(got, "abstract "+sig) {
			t.Fatalf("headerSignature(%q) = %q", sig, got)
		}
	})
}
