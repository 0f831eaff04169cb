package scipindex

import (
	"strings"

	"github.com/sextant-dev/sextant/internal/scip"
)

// srcLayout joins the uses of a Python package laid out under src/
// (src/pkg/__init__.py, imported as pkg) that scip-python gives to
// another copy of it. pyright adds src to its import paths; scip-python
// 0.6.6 does not. So the project's own files name their modules
// src.pkg.m, and an import of pkg from outside src/ (its tests, its
// examples) resolves to the copy the Python environment has installed,
// another version (`pkg 1.0 pkg.m/f().`), or to nothing when none is.
// own answers, for a symbol of such a copy, the project's symbol of the
// same module and descriptors under src, which is what the language
// server names there; a name the project does not declare stays the
// copy's.
type srcLayout struct {
	names map[string]string // srcKey → the project's SCIP symbol
	memo  map[string]string // symbol asked → own's answer
}

// newSrcLayout reads the project's definitions for the names of its
// modules under src.
func newSrcLayout(defs []*def) *srcLayout {
	l := &srcLayout{names: map[string]string{}, memo: map[string]string{}}
	for _, d := range defs {
		ds := d.parsed.Descriptors
		if d.lang == "python" && len(ds) > 0 && ds[0].Suffix == scip.SuffixNamespace && strings.HasPrefix(ds[0].Name, "src.") {
			l.names[srcKey(d.parsed.Scheme, strings.TrimPrefix(ds[0].Name, "src."), ds[1:])] = d.symbol
		}
	}
	return l
}

// own returns the project's symbol for sym, "" when there is none.
func (l *srcLayout) own(sym string) string {
	if len(l.names) == 0 || !strings.HasPrefix(sym, "scip-python ") {
		return ""
	}
	if own, ok := l.memo[sym]; ok {
		return own
	}
	own := ""
	if p, err := scip.ParseSymbol(sym); err == nil && len(p.Descriptors) > 0 && p.Descriptors[0].Suffix == scip.SuffixNamespace {
		own = l.names[srcKey(p.Scheme, p.Descriptors[0].Name, p.Descriptors[1:])]
	}
	l.memo[sym] = own
	return own
}

// srcKey is a symbol's identity without its package: its scheme, its
// module and the descriptors in it.
func srcKey(scheme, module string, ds []scip.Descriptor) string {
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteByte(' ')
	b.WriteString(module)
	for _, d := range ds {
		b.WriteByte(' ')
		b.WriteString(d.String())
	}
	return b.String()
}
