package scipindex

import (
	"bytes"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/scip"
)

// Uses through a namespace object. scip-typescript 0.4.0 gives a name
// reached as a member of a module's namespace (`import * as z from "./m"`,
// then `z.name`) a document-local symbol whenever the module exports the
// name under another name (`export { x as name }`) or re-exports it from
// a third module (`export { name } from "./x"`), so no index-based answer
// joins that use to its declaration. The importer joins it itself, from
// what the index says of the module:
//
//   - the namespace: the use is a local symbol right after `.` (or `?.`)
//     that follows a use of a module symbol (every descriptor a
//     namespace, "src/`index.ts`/");
//   - the module's names: every use or definition in the module's own
//     document of a top-level symbol (a type, value or function right
//     under the module's path), by its text there: `export { numberType as number }` gives
//     "number" the symbol of numberType;
//   - its star re-exports: a module symbol used in `export * from "…"`.
//
// A name is joined when exactly one symbol answers it: in the module
// itself, else in one of its star re-exports (transitively). In code that
// compiles, `z.name` names an export of the module, and an export's name
// is spelled at its declaration or in its export clause; a name two
// symbols answer is left unjoined, not guessed.

// nsUse is a use of a name as a member of a module's namespace.
type nsUse struct {
	module string // the module's SCIP symbol
	name   string
}

// namespaces is what the importer learns of modules' exported names.
type namespaces struct {
	kinds map[string]symbolShape         // by SCIP symbol
	names map[string]map[string][]string // module → text → top-level symbols
	stars map[string][]string            // module → the modules it re-exports with export *
}

type symbolShape uint8

const (
	shapeOther    symbolShape = iota + 1
	shapeModule               // every descriptor a namespace
	shapeTopLevel             // a module's path, then one descriptor
)

// shape parses a global symbol once.
func (ns *namespaces) shape(sym string) symbolShape {
	if s, ok := ns.kinds[sym]; ok {
		return s
	}
	s := shapeOther
	if p, err := scip.ParseSymbol(sym); err == nil && len(p.Descriptors) > 0 {
		ds := p.Descriptors
		isNS := func(d scip.Descriptor) bool { return d.Suffix == scip.SuffixNamespace }
		switch {
		case !slices.ContainsFunc(ds, func(d scip.Descriptor) bool { return !isNS(d) }):
			s = shapeModule
		case len(ds) >= 2 && exportable(ds[len(ds)-1].Suffix) && !slices.ContainsFunc(ds[:len(ds)-1], func(d scip.Descriptor) bool { return !isNS(d) }):
			s = shapeTopLevel
		}
	}
	if ns.kinds == nil {
		ns.kinds = map[string]symbolShape{}
	}
	ns.kinds[sym] = s
	return s
}

// exportable reports whether a declaration of this suffix can be a
// module's export: a type, a value or a function (scip-typescript gives
// an object literal's properties a meta descriptor, "number0:").
func exportable(s scip.Suffix) bool {
	return s == scip.SuffixType || s == scip.SuffixTerm || s == scip.SuffixMethod
}

// document learns one document's names and star re-exports and returns
// its uses through a namespace: by index into occs, each a local
// occurrence whose range is valid.
func (ns *namespaces) document(occs []scip.Occurrence, lines *lineTable) map[int]nsUse {
	self := ""
	type pos struct{ line, char int32 }
	moduleEnds := map[pos]string{}
	for _, o := range occs {
		if o.Symbol == "" || scip.IsLocalSymbol(o.Symbol) || !lines.valid(o.Range) || ns.shape(o.Symbol) != shapeModule {
			continue
		}
		if o.Definition() {
			self = o.Symbol
			continue
		}
		if o.Range.StartLine == o.Range.EndLine {
			moduleEnds[pos{o.Range.EndLine, o.Range.EndChar}] = o.Symbol
		}
	}
	if self != "" {
		for _, o := range occs {
			if o.Symbol == "" || scip.IsLocalSymbol(o.Symbol) || !lines.valid(o.Range) {
				continue
			}
			switch ns.shape(o.Symbol) {
			case shapeTopLevel:
				ns.addName(self, lines.text(o.Range), o.Symbol)
			case shapeModule:
				if !o.Definition() && starExport(lines, o.Range) && !slices.Contains(ns.stars[self], o.Symbol) {
					if ns.stars == nil {
						ns.stars = map[string][]string{}
					}
					ns.stars[self] = append(ns.stars[self], o.Symbol)
				}
			}
		}
	}
	var uses map[int]nsUse
	for i, o := range occs {
		if !scip.IsLocalSymbol(o.Symbol) || o.Range.StartLine != o.Range.EndLine || !lines.valid(o.Range) {
			continue
		}
		end, ok := memberOf(lines, o.Range)
		if !ok {
			continue
		}
		module, ok := moduleEnds[pos{end[0], end[1]}]
		if !ok {
			continue
		}
		if name := lines.text(o.Range); name != "" {
			if uses == nil {
				uses = map[int]nsUse{}
			}
			uses[i] = nsUse{module: module, name: name}
		}
	}
	return uses
}

func (ns *namespaces) addName(module, text, sym string) {
	if text == "" {
		return
	}
	if ns.names == nil {
		ns.names = map[string]map[string][]string{}
	}
	m := ns.names[module]
	if m == nil {
		m = map[string][]string{}
		ns.names[module] = m
	}
	if !slices.Contains(m[text], sym) {
		m[text] = append(m[text], sym)
	}
}

// memberOf returns where the expression ends that the name at r is a
// member of: r follows "." or "?.", with spaces and line breaks allowed
// around it (`z\n  .number()`).
func memberOf(lines *lineTable, r scip.Range) (end [2]int32, ok bool) {
	l := r.StartLine
	before := bytes.TrimRight(lines.prefix(l, r.StartChar), " \t")
	sep := false
	for {
		if !sep {
			if b, cut := bytes.CutSuffix(before, []byte("?.")); cut {
				before, sep = b, true
			} else if b, cut := bytes.CutSuffix(before, []byte(".")); cut {
				before, sep = b, true
			}
			before = bytes.TrimRight(before, " \t")
		}
		if len(before) > 0 {
			break
		}
		if l == 0 || r.StartLine-l >= 8 {
			return end, false
		}
		l--
		before = bytes.TrimRight(lines.lines[l], " \t")
	}
	if !sep {
		return end, false
	}
	return [2]int32{l, int32(position.Units(before, 1<<30, lines.enc))}, true
}

// starExport reports whether the module named at r is the source of an
// `export * from` (or `export type * from`) statement on r's line.
func starExport(lines *lineTable, r scip.Range) bool {
	before := strings.Fields(lines.text(scip.Range{StartLine: r.StartLine, EndLine: r.StartLine, EndChar: r.StartChar}))
	return slices.Equal(before, []string{"export", "*", "from"}) || slices.Equal(before, []string{"export", "type", "*", "from"})
}

// resolve returns the one symbol module exports as name, or "".
func (ns *namespaces) resolve(module, name string) string {
	found := ""
	var walk func(m string, seen map[string]bool) bool // false: ambiguous
	walk = func(m string, seen map[string]bool) bool {
		if seen[m] {
			return true
		}
		seen[m] = true
		if syms := ns.names[m][name]; len(syms) > 0 {
			if len(syms) > 1 || found != "" && found != syms[0] {
				return false
			}
			found = syms[0]
			return true
		}
		for _, s := range ns.stars[m] {
			if !walk(s, seen) {
				return false
			}
		}
		return true
	}
	if !walk(module, map[string]bool{}) {
		return ""
	}
	return found
}
