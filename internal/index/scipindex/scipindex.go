// Package scipindex turns the SCIP index of one project (written by
// scip-typescript or scip-python) into graph records: files, a package per
// directory, symbols, references, implementations and call edges, written
// through a graph.SnapshotWriter as internal/index writes Go's.
//
// The index is untrusted. Every document's path is checked (relative, no
// "..", nothing through a symlink out of the root: files are read through
// internal/rootfs), every range against its file's lines, and a document
// or range that fails is dropped and counted in a diagnostic; the decoder
// (internal/scip) bounds what one document may cost.
//
// Naming, so that a key stays the same across re-indexes (nothing that
// places a symbol goes into its identity):
//   - a graph.Package is a directory of the repository holding indexed
//     files: Path and Dir are the repo-relative directory ("." for the
//     root), Name its last element (the project's name at the root),
//     ModulePath the project's package name from its symbols (the npm or
//     Python distribution name), or the project directory;
//   - a symbol's QualifiedName is its descriptors after the leading
//     namespaces, joined by "." (Square.area, Base.run); the leading
//     namespaces, joined by "/", are the module it is declared in
//     (src/a.ts, pkg.m) and stand as the PackagePath of its
//     graph.Identity, so two files of one directory may declare the same
//     name; Language, Repository and Kind complete the identity.
package scipindex

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/rootfs"
	"github.com/sextant-dev/sextant/internal/scip"
)

// Options say where an index belongs.
type Options struct {
	// Repository is the repository the records are written to (its Name
	// goes into every key).
	Repository graph.Repository
	// Root is the repository's directory, opened by the caller; every
	// document is read under it.
	Root *os.Root
	// ProjectDir is the repo-relative directory (forward slashes, "." for
	// the root) the indexer ran in: documents' paths are relative to it.
	ProjectDir string
	// Limits bound the decoder (zero fields: scip.DefaultLimits).
	Limits scip.Limits
	// MaxFileBytes bounds a source file read for its text (default 16 MiB);
	// a larger one is skipped with its document.
	MaxFileBytes int64
	// Skip are repo-relative directories whose documents are left out
	// without a diagnostic: those of the projects nested in this one
	// (scipindexer.Project.Nested), which their own, innermost project
	// imports, so that a file is imported once.
	Skip []string
	// Link, when set, keeps what this project's index says of other
	// projects' declarations (and they of its) for Linker.Write, once
	// every project of the snapshot is imported.
	Link *Linker
}

// Result counts what an import wrote and dropped.
type Result struct {
	Documents  int // documents imported
	Files      int
	Packages   int
	Symbols    int
	Refs       int
	CallEdges  int
	Implements int
	// Tool and Version name the indexer that wrote the index, from its
	// metadata ("scip-typescript", "0.4.0").
	Tool, Version string
	// Skipped counts the documents left out under Options.Skip.
	Skipped int
	// Dropped documents (bad path, unreadable file, over a decoder limit,
	// malformed), occurrences whose range does not fit their file, and
	// definitions of a symbol already defined.
	DroppedDocuments int
	BadRanges        int
	Duplicates       int
	// Diagnostics says what was dropped, one per document; they are
	// written with the snapshot too.
	Diagnostics []graph.Diagnostic
}

// DefaultMaxFileBytes bounds a source file read for its text.
const DefaultMaxFileBytes = 16 << 20

// Import reads the SCIP index from r and writes its records to w (not
// published: the caller publishes, or aborts on an error). A framing error
// of the index (truncated, not SCIP) is a PARSE_ERROR and nothing is
// written; a bad document is dropped with a diagnostic and the rest is
// imported. Memory: one document at a time is decoded, and the records
// are held until the end (references need every definition's key).
func Import(ctx context.Context, r io.Reader, w graph.SnapshotWriter, opt Options) (Result, error) {
	if opt.Root == nil {
		return Result{}, graph.Errorf(graph.CodeInvalidArgument, "scip import: no root")
	}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = DefaultMaxFileBytes
	}
	pdir, ok := cleanRel(opt.ProjectDir)
	if !ok {
		return Result{}, graph.Errorf(graph.CodeOutsideRoots, "scip import: project directory %q is not a relative path inside the root", opt.ProjectDir)
	}
	if pdir == "" {
		pdir = "."
	}
	im := &importer{opt: opt, projectDir: pdir, defs: map[string]*def{}, impls: map[string][]string{}, seen: map[string]bool{}}
	ordinal := 0
	_, err := scip.Decode(ctx, r, opt.Limits, scip.Visitor{
		Metadata: func(m scip.Metadata) error {
			im.res.Tool, im.res.Version = m.ToolName, m.ToolVersion
			return nil
		},
		Document: func(d *scip.Document) error {
			ordinal++
			im.document(d)
			return nil
		},
		Skipped: func(s scip.Skip) {
			if s.Document >= 0 {
				ordinal++
			}
			im.drop(s.Path, "document skipped: %s", s.Reason)
		},
	})
	if err != nil {
		return im.res, err
	}
	if err := im.write(ctx, w); err != nil {
		return im.res, err
	}
	return im.res, nil
}

// importer holds what the documents read so far define and reference.
type importer struct {
	opt        Options
	projectDir string
	res        Result

	files   []fileRec
	seen    map[string]bool // the documents imported, by repo-relative path
	defs    map[string]*def // by SCIP symbol
	order   []*def          // in the order read
	refs    []pendingRef
	impls   map[string][]string // SCIP symbol of a supertype or overridden method → its implementations
	implsOf [][2]string         // (implementation, super) pairs, in the order read
	module  string              // the project's package name, from its symbols
	ns      namespaces          // modules' names, for uses through a namespace object
}

type fileRec struct {
	file graph.File
	dir  string
}

// def is one defined symbol, its key and kind decided in write.
type def struct {
	symbol   string
	parsed   scip.Symbol
	lang     string
	path     string // repo-relative
	dir      string
	rng      scip.Range // the declaration: enclosing range, else the name
	start    [2]int     // 1-based line, character column
	end      [2]int
	info     scip.SymbolInformation
	hasInfo  bool
	testOnly bool
	spans    bool   // rng is the declaration's enclosing range, not its name
	sig      string // the signature read from the source, when the indexer's says too little
	fn       bool   // a script's variable whose value is a function (functionValue)
	text     string // a function's or variable's string literals and comments (bodyText)
	private  bool   // a module's top-level declaration it does not export (moduleExports)

	key  string
	kind graph.Kind
	sym  graph.Symbol
}

// cover widens the declaration to hold rng, another declaration of the
// same symbol in its file.
func (d *def) cover(rng scip.Range, lines *lineTable) {
	if less(rng.StartLine, rng.StartChar, d.rng.StartLine, d.rng.StartChar) {
		d.rng.StartLine, d.rng.StartChar = rng.StartLine, rng.StartChar
		d.start = [2]int{int(rng.StartLine) + 1, lines.column(rng.StartLine, rng.StartChar)}
	}
	if less(d.rng.EndLine, d.rng.EndChar, rng.EndLine, rng.EndChar) {
		d.rng.EndLine, d.rng.EndChar = rng.EndLine, rng.EndChar
		d.end = [2]int{int(rng.EndLine) + 1, lines.column(rng.EndLine, rng.EndChar)}
	}
}

// interfaceBases records, for each interface of a TypeScript or
// JavaScript document among defs, the interfaces and classes its extends
// clause names as the types it implements: scip-typescript 0.4.0 relates
// a class to what it extends and implements, and an interface's methods
// to those they declare again, but an interface to nothing, so that the
// interfaces extending one (which typescript-language-server lists among
// its implementations) were not found. A name of the clause is the type
// the occurrence at its last identifier (ns.Base) names, outside the
// clause's type arguments.
func (im *importer) interfaceBases(d *scip.Document, lines *lineTable, toks func() *tsTokens, defs []scip.Occurrence) {
	var at map[[2]int][]string
	for _, o := range defs {
		if !bytes.HasSuffix(bytes.TrimRight(lines.prefix(o.Range.StartLine, o.Range.StartChar), " \t"), []byte("interface")) {
			continue
		}
		t := toks()
		i := t.at(o.Range.StartLine, lines.offset(o.Range.StartLine, o.Range.StartChar))
		if i < 1 || t.toks[i-1].text != "interface" {
			continue
		}
		j := i + 1
		if j < len(t.toks) && t.toks[j].text == "<" && int(t.toks[j].match) > j {
			j = int(t.toks[j].match) + 1
		}
		if j >= len(t.toks) || t.toks[j].text != "extends" {
			continue
		}
		if at == nil {
			at = map[[2]int][]string{}
			for _, u := range d.Occurrences {
				if !u.Definition() && u.Symbol != "" && !scip.IsLocalSymbol(u.Symbol) && lines.valid(u.Range) {
					// A name may have several symbols at a use: the value's
					// and the type's of a name declared as both (see twin),
					// of which a clause names the type, and each declaration
					// of an interface merged across modules (`declare module
					// "m" { interface X {…} }`), each a base.
					k := [2]int{int(u.Range.StartLine), lines.offset(u.Range.StartLine, u.Range.StartChar)}
					syms := slices.DeleteFunc(at[k], func(p string) bool { return twin(p, u.Symbol) && strings.HasSuffix(p, ".") })
					if !slices.ContainsFunc(syms, func(p string) bool { return twin(p, u.Symbol) }) {
						syms = append(syms, u.Symbol)
					}
					at[k] = syms
				}
			}
		}
		encl := t.toks[i].encl
		for j++; j < len(t.toks); j++ {
			tk := t.toks[j]
			if tk.encl != encl || !tk.ident || j+1 < len(t.toks) && t.toks[j+1].text == "." {
				if tk.text == "{" && tk.encl == encl {
					break
				}
				continue
			}
			for _, super := range at[[2]int{int(tk.line), tk.off}] {
				if super != o.Symbol {
					im.impls[super] = append(im.impls[super], o.Symbol)
					im.implsOf = append(im.implsOf, [2]string{o.Symbol, super})
				}
			}
		}
	}
}

// unwritten returns the uses at the def and class statements of a Python
// document that declare a name again where scip-python wrote no
// occurrence, or one of a local symbol (see pyUnwritten), each widening
// the declaration as a later def does (see pyRedeclaration).
func (im *importer) unwritten(d *scip.Document, lines *lineTable, full string) []use {
	// scip-python gives the names of unreachable code local symbols, or
	// none: a local symbol at a statement that declares a module's or a
	// class's name again is no other symbol.
	at := make(map[[2]int32]string, len(d.Occurrences))
	for _, o := range d.Occurrences {
		if !scip.IsLocalSymbol(o.Symbol) {
			at[[2]int32{o.Range.StartLine, o.Range.StartChar}] = o.Symbol
		}
	}
	var out []use
	for _, r := range pyUnwritten(lines.lines, func(line, char int) string { return at[[2]int32{int32(line), int32(char)}] }) {
		rng := scip.Range{StartLine: int32(r.line), StartChar: int32(r.char), EndLine: int32(r.line), EndChar: int32(r.char + len(r.name))}
		if df := im.defs[r.symbol]; df != nil && df.path == full && df.spans {
			if whole, ok := pyRedeclaration(lines, rng); ok {
				df.cover(whole, lines)
			}
		}
		out = append(out, use{Occurrence: scip.Occurrence{Range: rng, Symbol: r.symbol}, redeclares: true})
	}
	return out
}

// use is an occurrence of a document that is not a definition, as the
// importer reads it.
type use struct {
	scip.Occurrence
	via        nsUse // a local symbol used through a namespace object
	redeclares bool  // the name of a later def of its symbol (see pyblock.go)
}

type pendingRef struct {
	target    string // SCIP symbol
	via       nsUse  // target is local: the name it is used by through a namespace
	path      string
	line, col int
	endCol    int
	enclosing *def
	kind      graph.RefKind
	testOnly  bool
	// naming says the use names a class whose constructor it calls: the
	// constructor's own use makes the call edge.
	naming bool
}

// drop records a dropped document.
func (im *importer) drop(p, format string, args ...any) {
	im.res.DroppedDocuments++
	im.res.Diagnostics = append(im.res.Diagnostics, graph.Diagnostic{Path: safePath(p), Kind: "parse",
		Message: "scip: " + fmt.Sprintf(format, args...)})
}

// safePath is p when it is a clean relative path, else "" (a hostile
// path is named in the message, quoted, not as a file).
func safePath(p string) string {
	if c, ok := cleanRel(p); ok {
		return c
	}
	return ""
}

// cleanRel checks a slash-separated relative path: not absolute, no ".."
// element, no backslash, NUL or empty element; "." is "".
func cleanRel(p string) (string, bool) {
	if p == "" || p == "." {
		return "", true
	}
	if strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") || len(p) >= 2 && p[1] == ':' {
		return "", false
	}
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return "", false
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", true
	}
	return c, true
}

// otherProject reports whether p, relative to the project directory,
// climbs out of it (../x) to a path that is still inside the root: not
// absolute, no backslash or NUL, and no more ".." than the project is
// deep.
func (im *importer) otherProject(p string) bool {
	if !strings.HasPrefix(p, "../") || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	full := path.Clean(path.Join(im.projectDir, p))
	return full != ".." && !strings.HasPrefix(full, "../") && !strings.HasPrefix(full, "/")
}

// languageOf names a document's language: the document's own, else its
// extension's; "" for a language Sextant does not index.
func languageOf(d *scip.Document) string {
	switch strings.ToLower(d.Language) {
	case "typescript", "typescriptreact":
		return "typescript"
	case "javascript", "javascriptreact":
		return "javascript"
	case "python":
		return "python"
	}
	if lang := graph.LanguageOf(d.RelativePath); lang != graph.LanguageGo {
		return lang
	}
	return ""
}

// encodingOf is what a document's character offsets count. SCIP leaves
// it unspecified in the indexes of scip-typescript and scip-python, whose
// offsets are UTF-16 code units (TypeScript's and pyright's strings).
func encodingOf(d *scip.Document) position.Encoding {
	switch d.PositionEncoding {
	case 1:
		return position.UTF8
	case 3:
		return position.UTF32
	}
	return position.UTF16
}

// testPath reports whether a file is test code by the conventions of its
// language's test runners.
func testPath(p string) bool {
	base := path.Base(p)
	return strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py") ||
		strings.HasSuffix(base, "_test.py") || base == "conftest.py" ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		slices.ContainsFunc(strings.Split(path.Dir(p), "/"), func(e string) bool {
			return e == "__tests__" || e == "tests" || e == "test"
		})
}

// document takes one document's definitions and references.
func (im *importer) document(d *scip.Document) {
	rel, ok := cleanRel(d.RelativePath)
	if !ok && im.otherProject(d.RelativePath) {
		// A file of a project this one references (../geo/src/index.ts),
		// inside the root: its own project imports it.
		im.res.Skipped++
		return
	}
	if !ok || rel == "" {
		im.drop(d.RelativePath, "document path %q is not a relative path inside the project", d.RelativePath)
		return
	}
	full := path.Join(im.projectDir, rel)
	if slices.ContainsFunc(im.opt.Skip, func(dir string) bool { return dir == "." || strings.HasPrefix(full, dir+"/") }) {
		im.res.Skipped++
		return
	}
	if im.seen[full] {
		im.drop(full, "document %q appears more than once in the index: the first is imported", d.RelativePath)
		return
	}
	lang := languageOf(d)
	if lang == "" && path.Ext(full) == ".json" {
		im.res.Skipped++ // a JSON module (resolveJsonModule), no source
		return
	}
	if lang == "" {
		im.drop(full, "document %q is in no language indexed from SCIP", d.RelativePath)
		return
	}
	f, err := rootfs.OpenRegular(im.opt.Root, full)
	if err != nil {
		if rootfs.Outside(err) {
			im.drop(full, "document %q leaves the root", d.RelativePath)
		} else {
			im.drop(full, "document %q cannot be read: %v", d.RelativePath, err)
		}
		return
	}
	fi, err := f.Stat()
	var src []byte
	if err == nil {
		src, err = io.ReadAll(io.LimitReader(f, im.opt.MaxFileBytes+1))
	}
	f.Close()
	if err != nil {
		im.drop(full, "document %q cannot be read: %v", d.RelativePath, err)
		return
	}
	if int64(len(src)) > im.opt.MaxFileBytes {
		im.drop(full, "document %q is larger than %d bytes", d.RelativePath, im.opt.MaxFileBytes)
		return
	}
	im.res.Documents++
	im.seen[full] = true
	dir := path.Dir(full)
	test := testPath(full)
	im.files = append(im.files, fileRec{dir: dir, file: graph.File{Path: full, Package: dir, Hash: graph.ContentHash(src),
		Size: int64(len(src)), ModTimeNS: fi.ModTime().UnixNano(), Test: test}})

	lines := newLineTable(src, encodingOf(d))
	bad := d.BadRanges
	infos := make(map[string]*scip.SymbolInformation, len(d.Symbols))
	for i := range d.Symbols {
		if _, dup := infos[d.Symbols[i].Symbol]; !dup {
			infos[d.Symbols[i].Symbol] = &d.Symbols[i]
		}
	}
	// Definitions first, so that references find their enclosing one.
	script := lang == "typescript" || lang == "javascript"
	var typeDefs []scip.Occurrence // a script's type definitions
	var spans []*def               // the document's definitions with a declaration range
	var bodied []*def              // its functions and variables with one, whose text bodyText reads
	var tops []namedDef            // a script's top-level definitions, exported or not
	var vars []namedDef            // its variables with a span, functions or not (functionValue)
	for _, o := range d.Occurrences {
		if !o.Definition() || o.Symbol == "" || scip.IsLocalSymbol(o.Symbol) {
			continue
		}
		if !lines.valid(o.Range) {
			bad++
			continue
		}
		rng, hasSpan := o.Range, false
		if script && len(o.Symbol) > 0 && o.Symbol[len(o.Symbol)-1] == '#' {
			typeDefs = append(typeDefs, o) // an interface's heritage (see interfaceBases)
		}
		if o.HasEnclosing {
			if lines.valid(o.EnclosingRange) {
				rng, hasSpan = o.EnclosingRange, true
				// scip-typescript encloses a variable whose value is a
				// function by the function alone (`const f: F = (n) =>
				// …`): the declaration starts at its name.
				if o.Range.StartLine < rng.StartLine || o.Range.StartLine == rng.StartLine && o.Range.StartChar < rng.StartChar {
					rng.StartLine, rng.StartChar = o.Range.StartLine, o.Range.StartChar
				}
			} else {
				bad++
			}
		}
		if prev, ok := im.defs[o.Symbol]; ok {
			if prev.path == full && hasSpan && prev.spans && prev.rng != rng {
				// One symbol declared again in its file: a Python
				// function's @overload stubs and its implementation, or
				// a name declared in both branches of an if. The
				// declaration is all of them, so that a use in the
				// implementation's body is enclosed by it.
				prev.cover(rng, lines)
			} else if prev.path != full || prev.rng != rng {
				im.res.Duplicates++
			}
			continue
		}
		parsed, err := scip.ParseSymbol(o.Symbol)
		if err != nil {
			bad++
			continue
		}
		if im.module == "" && parsed.Package.Name != "" {
			im.module = parsed.Package.Name
		}
		df := &def{symbol: o.Symbol, parsed: parsed, lang: lang, path: full, dir: dir, rng: rng, testOnly: test}
		df.start = [2]int{int(rng.StartLine) + 1, lines.column(rng.StartLine, rng.StartChar)}
		df.end = [2]int{int(rng.EndLine) + 1, lines.column(rng.EndLine, rng.EndChar)}
		df.spans = hasSpan
		if info := infos[o.Symbol]; info != nil {
			df.info, df.hasInfo = *info, true
			for _, rel := range info.Relationships {
				if rel.IsImplementation && rel.Symbol != o.Symbol && !scip.IsLocalSymbol(rel.Symbol) {
					im.impls[rel.Symbol] = append(im.impls[rel.Symbol], o.Symbol)
					im.implsOf = append(im.implsOf, [2]string{o.Symbol, rel.Symbol})
				}
			}
		}
		if field, ok := parameterProperty(parsed, signatureOf(df)); ok {
			df.parsed = field
		}
		df.sig = mendedSignature(df, lines, hasSpan)
		// A variable's declaration encloses the calls in its function's
		// body only with a span: a class's property has none.
		if ds := parsed.Descriptors; script && hasSpan && len(ds) > 0 && ds[len(ds)-1].Suffix == scip.SuffixTerm &&
			(len(ds) == 1 || ds[len(ds)-2].Suffix != scip.SuffixType) {
			vars = append(vars, namedDef{df, o.Range.StartLine, lines.offset(o.Range.StartLine, o.Range.StartChar)})
		}
		if ds := parsed.Descriptors; hasSpan && len(ds) > 0 && (ds[len(ds)-1].Suffix == scip.SuffixMethod || ds[len(ds)-1].Suffix == scip.SuffixTerm) {
			bodied = append(bodied, df)
		}
		if script && topLevel(parsed) {
			tops = append(tops, namedDef{df, o.Range.StartLine, lines.offset(o.Range.StartLine, o.Range.StartChar)})
		}
		im.defs[o.Symbol] = df
		im.order = append(im.order, df)
		if hasSpan && member(parsed) {
			spans = append(spans, df)
		}
	}
	// References, each with the innermost definition around it: a sweep
	// over the definitions by start, keeping those still open on a stack.
	var uses []use
	members := im.ns.document(d.Occurrences, lines)
	for i, o := range d.Occurrences {
		if m, ok := members[i]; ok {
			uses = append(uses, use{Occurrence: o, via: m})
			continue
		}
		if o.Definition() || o.Symbol == "" || scip.IsLocalSymbol(o.Symbol) {
			continue
		}
		if !lines.valid(o.Range) {
			bad++
			continue
		}
		if df := im.defs[o.Symbol]; lang == "python" && df != nil && df.path == full && df.spans {
			if rng, ok := pyRedeclaration(lines, o.Range); ok {
				df.cover(rng, lines) // see pyblock.go
				// pyright counts it among the references, as the other
				// declarations of what is asked about: a use, but not
				// of itself.
				uses = append(uses, use{Occurrence: o, redeclares: true})
				continue
			}
		}
		uses = append(uses, use{Occurrence: o})
	}
	if lang == "python" {
		uses = append(uses, im.unwritten(d, lines, full)...)
	}
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i].rng, spans[j].rng
		if a.StartLine != b.StartLine || a.StartChar != b.StartChar {
			return less(a.StartLine, a.StartChar, b.StartLine, b.StartChar)
		}
		return less(b.EndLine, b.EndChar, a.EndLine, a.EndChar) // outer first
	})
	sort.SliceStable(uses, func(i, j int) bool {
		return less(uses[i].Range.StartLine, uses[i].Range.StartChar, uses[j].Range.StartLine, uses[j].Range.StartChar)
	})
	var tokens *tsTokens
	toks := func() *tsTokens {
		if tokens == nil {
			tokens = tokenizeTS(lines.lines, jsxFile(full))
		}
		return tokens
	}
	if len(bodied) > 0 {
		var texts []srcText
		if script {
			tokens = scanTS(lines.lines, jsxFile(full), &texts)
		} else {
			scanPython(lines.lines, &texts)
		}
		for _, df := range bodied {
			df.text = bodyText(texts, lines, df.rng, docOf(df))
		}
	}
	for _, v := range vars {
		if i := toks().at(v.line, v.off); i >= 0 {
			v.fn = tokens.functionValue(i)
		}
	}
	if len(tops) > 0 {
		if module, clause := moduleExports(toks()); module {
			for _, t := range tops {
				ds := t.parsed.Descriptors
				t.private = !writtenExported(lines.lines[t.line], t.off) && !clause[ds[len(ds)-1].Name]
			}
		}
	}
	if script {
		uses = oneMeaning(uses, func(u use) (scip.Range, string) { return u.Range, u.Symbol }, lines, toks)
		if len(typeDefs) > 0 {
			im.interfaceBases(d, lines, toks, typeDefs)
		}
	}
	var stack []*def
	next := 0
	for _, u := range uses {
		for next < len(spans) && !less(u.Range.StartLine, u.Range.StartChar, spans[next].rng.StartLine, spans[next].rng.StartChar) {
			stack = push(stack, spans[next])
			next++
		}
		// Drop what ended before this use: it contains no later one.
		for len(stack) > 0 && less(stack[len(stack)-1].rng.EndLine, stack[len(stack)-1].rng.EndChar, u.Range.StartLine, u.Range.StartChar) {
			stack = stack[:len(stack)-1]
		}
		var enc *def
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].rng.Contains(u.Range) && !(u.redeclares && stack[i].symbol == u.Symbol) {
				enc = stack[i]
				break
			}
		}
		kind := lines.refKind(u.Occurrence, enc == nil)
		switch {
		case u.redeclares:
			kind = graph.RefWrite // a def statement binds its name again; no call
		case lang == "python" && (kind == graph.RefRead || kind == graph.RefWrite && u.SymbolRoles&scip.RoleWriteAccess == 0) &&
			u.Range.StartLine == u.Range.EndLine && pyTypeUse(lines.lines[u.Range.StartLine], lines.prefix(u.Range.StartLine, u.Range.StartChar)):
			kind = graph.RefType // an annotation: `p: Info`, `-> Info`, `x: Info = …`
		}
		// A name where a type is written is used as a type (`: Shape`,
		// `implements Shape`, `Array<Shape>`), as Go's uses of a type are,
		// though an '=' follows it (`const a: Shape = …`).
		syntaxWrite := kind == graph.RefWrite && u.SymbolRoles&scip.RoleWriteAccess == 0
		if script && (kind == graph.RefRead || syntaxWrite) && u.Range.StartLine == u.Range.EndLine &&
			toks().meaningAt(u.Range.StartLine, int32(lines.offset(u.Range.StartLine, u.Range.StartChar))) == typePos {
			kind = graph.RefType
		}
		line := int(u.Range.StartLine) + 1
		endCol := lines.column(u.Range.StartLine, u.Range.EndChar)
		if u.Range.EndLine != u.Range.StartLine {
			endCol = lines.column(u.Range.StartLine, 1<<30)
		}
		im.refs = append(im.refs, pendingRef{target: u.Symbol, via: u.via, path: full, line: line,
			col: lines.column(u.Range.StartLine, u.Range.StartChar), endCol: endCol, enclosing: enc,
			kind: kind, testOnly: test || u.SymbolRoles&scip.RoleTest != 0})
		// `new Square(2)` names the class: scip-typescript gives the
		// constructor alone, the language server both.
		text := lines.text(u.Range)
		if class, ok := constructed(u.Symbol, text); ok {
			r := im.refs[len(im.refs)-1]
			r.target, r.naming = class, true
			im.refs = append(im.refs, r)
		}
		// `from .m import X as Y`: scip-python gives the whole clause one
		// occurrence, which names X. When Y is X again (a package's
		// re-export), the second X is a use of it too, as the language
		// server counts it; another name is a new name, no use.
		if name, alias, at, ok := renamed(text); ok {
			r := &im.refs[len(im.refs)-1]
			r.endCol = r.col + utf8.RuneCountInString(name)
			if alias == name {
				second := *r
				second.col += at
				second.endCol = second.col + utf8.RuneCountInString(alias)
				im.refs = append(im.refs, second)
			}
		}
	}
	if bad > 0 {
		im.res.BadRanges += bad
		im.res.Diagnostics = append(im.res.Diagnostics, graph.Diagnostic{Path: full, Kind: "parse",
			Message: fmt.Sprintf("scip: %d occurrences dropped: their range is not in the file", bad)})
	}
}

// renamed splits the text of an occurrence that is an import clause
// "name as alias" into its two names and the alias's offset in
// characters.
func renamed(text string) (name, alias string, at int, ok bool) {
	f := strings.Fields(text)
	if len(f) != 3 || f[1] != "as" || !identifier(f[0]) || !identifier(f[2]) || !strings.HasPrefix(text, f[0]) || !strings.HasSuffix(text, f[2]) {
		return "", "", 0, false
	}
	return f[0], f[2], utf8.RuneCountInString(text) - utf8.RuneCountInString(f[2]), true
}

func identifier(s string) bool {
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// constructed returns the class whose constructor symbol is used at a
// name spelled text, when text is the class's name (an instantiation,
// not super(...)).
func constructed(symbol, text string) (string, bool) {
	class, ok := strings.CutSuffix(symbol, "`<constructor>`().")
	if !ok || !strings.HasSuffix(class, "#") {
		return "", false
	}
	parsed, err := scip.ParseSymbol(class)
	if err != nil || len(parsed.Descriptors) == 0 || parsed.Descriptors[len(parsed.Descriptors)-1].Name != text {
		return "", false
	}
	return class, true
}

// parameterProperty returns the field a TypeScript parameter property
// declares (constructor(private readonly x: T)), which scip-typescript
// names as the constructor's parameter, its hover a property's: the
// class's term of the parameter's name, a field like one declared in the
// class body, which the uses through this.x name.
func parameterProperty(s scip.Symbol, sig string) (scip.Symbol, bool) {
	ds := s.Descriptors
	n := len(ds)
	if n < 3 || ds[n-1].Suffix != scip.SuffixParameter || ds[n-2].Suffix != scip.SuffixMethod || ds[n-2].Name != "<constructor>" ||
		ds[n-3].Suffix != scip.SuffixType || !strings.HasPrefix(sig, "(property) ") {
		return s, false
	}
	field := s
	field.Descriptors = append(slices.Clip(ds[:n-2]), scip.Descriptor{Name: ds[n-1].Name, Suffix: scip.SuffixTerm})
	return field, true
}

// member reports whether a symbol may be a graph symbol by its last
// descriptor (a type, a method or function, a term): only those enclose
// references (a module's definition spans its whole file).
func member(s scip.Symbol) bool {
	if len(s.Descriptors) == 0 {
		return false
	}
	switch s.Descriptors[len(s.Descriptors)-1].Suffix {
	case scip.SuffixType, scip.SuffixMethod, scip.SuffixTerm:
		return true
	}
	return false
}

// push pushes d after dropping what ended before it starts.
func push(stack []*def, d *def) []*def {
	for len(stack) > 0 && less(stack[len(stack)-1].rng.EndLine, stack[len(stack)-1].rng.EndChar, d.rng.StartLine, d.rng.StartChar) {
		stack = stack[:len(stack)-1]
	}
	return append(stack, d)
}

func less(l1, c1, l2, c2 int32) bool { return l1 < l2 || l1 == l2 && c1 < c2 }

// lineTable is a file's lines, for checking ranges and converting their
// offsets to character columns.
type lineTable struct {
	lines [][]byte
	enc   position.Encoding
	units []int // units of each line in enc, computed on demand (-1)
}

// text is the text of a range on one line ("" across lines).
func (t *lineTable) text(r scip.Range) string {
	if r.EndLine != r.StartLine || r.StartChar > r.EndChar {
		return ""
	}
	line := t.lines[r.StartLine]
	return string(line[t.offset(r.StartLine, r.StartChar):t.offset(r.StartLine, r.EndChar)])
}

// prefix is line l's text before the offset units.
func (t *lineTable) prefix(l, units int32) []byte {
	return t.lines[l][:t.offset(l, units)]
}

// offset is the byte offset in line l of the offset units (the line's
// length past its end): the same number where each unit is a byte.
func (t *lineTable) offset(l, units int32) int {
	line := t.lines[l]
	if t.enc == position.UTF8 || t.lineUnits(l) == len(line) {
		return min(int(units), len(line))
	}
	at := 0
	for chars := t.column(l, units) - 1; chars > 0 && at < len(line); chars-- {
		_, size := utf8.DecodeRune(line[at:])
		at += size
	}
	return at
}

func newLineTable(src []byte, enc position.Encoding) *lineTable {
	t := &lineTable{enc: enc}
	for {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			t.lines = append(t.lines, trimCR(src))
			break
		}
		t.lines = append(t.lines, trimCR(src[:i]))
		src = src[i+1:]
	}
	t.units = make([]int, len(t.lines))
	for i := range t.units {
		t.units[i] = -1
	}
	return t
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

func (t *lineTable) lineUnits(l int32) int {
	if t.units[l] < 0 {
		t.units[l] = position.Units(t.lines[l], 1<<30, t.enc)
	}
	return t.units[l]
}

// valid reports whether r lies within the file: its lines exist and its
// offsets are within them (an end may be just past its line's end).
func (t *lineTable) valid(r scip.Range) bool {
	n := int32(len(t.lines))
	return r.StartLine < n && r.EndLine < n &&
		int(r.StartChar) <= t.lineUnits(r.StartLine) && int(r.EndChar) <= t.lineUnits(r.EndLine)
}

// column is the 1-based character column of an offset on a 0-based line.
func (t *lineTable) column(l, units int32) int {
	return position.Column(t.lines[l], int(units), t.enc)
}

// refKind says how a use uses its target: import and write when the
// indexer says so; call when the name is followed by "(" (after spaces);
// write when it is followed by an assignment operator or stands next to
// "++" or "--" (neither indexer marks writes); import when it stands at
// file level in an import statement (scip-typescript marks no imports);
// else read.
func (t *lineTable) refKind(o scip.Occurrence, fileLevel bool) graph.RefKind {
	switch {
	case o.SymbolRoles&scip.RoleImport != 0:
		return graph.RefImport
	case o.SymbolRoles&scip.RoleWriteAccess != 0:
		return graph.RefWrite
	}
	line := []rune(string(t.lines[o.Range.EndLine]))
	if at := t.column(o.Range.EndLine, o.Range.EndChar) - 1; at <= len(line) { // characters before the end
		rest := strings.TrimLeft(string(line[at:]), " \t")
		switch {
		case strings.HasPrefix(rest, "("):
			return graph.RefCall
		case assigns(rest):
			return graph.RefWrite
		}
	}
	if o.Range.StartLine == o.Range.EndLine {
		if at := t.column(o.Range.StartLine, o.Range.StartChar) - 1; at <= len(line) {
			before := strings.TrimRight(string(line[:at]), " \t")
			if strings.HasSuffix(before, "++") || strings.HasSuffix(before, "--") {
				return graph.RefWrite
			}
		}
	}
	if fileLevel {
		s := strings.TrimSpace(string(t.lines[o.Range.StartLine]))
		if strings.HasPrefix(s, "import ") || strings.HasPrefix(s, "from ") && strings.Contains(s, " import ") {
			return graph.RefImport
		}
	}
	return graph.RefRead
}

// assigns reports whether the text after a name assigns to it: "=" (not
// "==" or "=>"), a compound assignment, or an increment or decrement.
func assigns(rest string) bool {
	for _, op := range []string{"+=", "-=", "*=", "/=", "%=", "**=", "//=", "<<=", ">>=", ">>>=", "&=", "|=", "^=",
		"&&=", "||=", "??=", "@=", ":=", "++", "--"} {
		if strings.HasPrefix(rest, op) {
			return true
		}
	}
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") && !strings.HasPrefix(rest, "=>")
}

// kindOf decides a definition's kind from its SCIP kind, else its last
// descriptor and its signature; ok is false for what is no graph symbol
// (modules, parameters, type parameters, meta and macro descriptors).
func kindOf(d *def, parentKind func(string) graph.Kind) (graph.Kind, bool) {
	ds := d.parsed.Descriptors
	if len(ds) == 0 {
		return "", false
	}
	last := ds[len(ds)-1]
	sig := signatureOf(d)
	if k, ok := scipKind(d.info.Kind); ok && d.hasInfo && d.info.Kind != 0 {
		if k == graph.KindMethod && parentKind(d.symbol) == graph.KindInterface {
			return graph.KindInterfaceMethod, true
		}
		return k, true
	} else if d.hasInfo && d.info.Kind != 0 {
		return "", false
	}
	switch last.Suffix {
	case scip.SuffixType:
		if strings.HasPrefix(sig, "interface ") || strings.Contains(sig, "(Protocol)") {
			return graph.KindInterface, true
		}
		return graph.KindType, true
	case scip.SuffixMethod:
		if len(ds) >= 2 && ds[len(ds)-2].Suffix == scip.SuffixType {
			if parentKind(d.symbol) == graph.KindInterface {
				return graph.KindInterfaceMethod, true
			}
			return graph.KindMethod, true
		}
		return graph.KindFunc, true
	case scip.SuffixTerm:
		if len(ds) >= 2 && ds[len(ds)-2].Suffix == scip.SuffixType {
			return graph.KindField, true
		}
		if d.fn {
			return graph.KindFunc, true
		}
		if strings.HasPrefix(sig, "const ") {
			return graph.KindConst, true
		}
		return graph.KindVar, true
	}
	return "", false
}

// scipKind maps SymbolInformation.Kind (scip.proto's enum) to a graph
// kind; ok is false for kinds that are no graph symbol.
func scipKind(k int32) (graph.Kind, bool) {
	switch k {
	case 7, 11, 49, 54, 55, 59, 33, 75: // Class, Enum, Struct, Type, TypeAlias, Union, Object, SingletonClass
		return graph.KindType, true
	case 21, 42, 53, 56: // Interface, Protocol, Trait, TypeClass
		return graph.KindInterface, true
	case 17: // Function
		return graph.KindFunc, true
	case 26, 66, 9, 18, 45, 72, 80, 76, 74, 68, 69, 70, 71, 67: // Method, AbstractMethod, Constructor, Getter, Setter, Accessor, StaticMethod, SingletonMethod, MethodAlias, ProtocolMethod, PureVirtualMethod, TraitMethod, TypeClassMethod, MethodSpecification
		return graph.KindMethod, true
	case 15, 41, 79, 81, 77: // Field, Property, StaticField, StaticProperty, StaticDataMember
		return graph.KindField, true
	case 8, 12: // Constant, EnumMember
		return graph.KindConst, true
	case 61, 82, 60: // Variable, StaticVariable, Value
		return graph.KindVar, true
	}
	return "", false
}

// signatureOf is a definition's signature: signature_documentation's
// text, else the first documentation string when it is a code block.
func signatureOf(d *def) string {
	if d.sig != "" {
		return d.sig
	}
	if d.info.SignatureText != "" {
		return strings.TrimSpace(d.info.SignatureText)
	}
	if len(d.info.Documentation) > 0 {
		if code, ok := codeBlock(d.info.Documentation[0]); ok {
			return code
		}
	}
	return ""
}

// mendedSignature is what d's signature says where its indexer's says
// too little or wrongly (see aliasSignature and named), "" elsewhere;
// spans says d.rng is its declaration's extent.
func mendedSignature(d *def, lines *lineTable, spans bool) string {
	sig := signatureOf(d)
	switch {
	case spans && (d.lang == "typescript" || d.lang == "javascript"):
		if a := aliasSignature(sig, lines, d.rng); a != "" {
			return a
		}
		if len(d.parsed.Descriptors) > 0 {
			return headerSignature(sig, d.parsed.Descriptors[len(d.parsed.Descriptors)-1].Name, lines, d.rng)
		}
	case d.lang == "python" && len(d.parsed.Descriptors) > 0:
		if n := named(sig, d.parsed.Descriptors[len(d.parsed.Descriptors)-1].Name); n != sig {
			return n
		}
	}
	return ""
}

// maxAliasSignature bounds, in characters, a type alias's signature read
// from its source.
const maxAliasSignature = 240

// aliasSignature is a TypeScript type alias's declaration as its source
// spells it, its whitespace collapsed and cut at maxAliasSignature, where
// scip-typescript 0.4.0 gives only "type Name": what the alias stands for
// is most of what it says. Any other signature gives "".
func aliasSignature(sig string, lines *lineTable, rng scip.Range) string {
	if !strings.HasPrefix(sig, "type ") || strings.ContainsAny(sig, "=\n") {
		return ""
	}
	text := spanText(lines, rng)
	for _, kw := range []string{"export ", "declare "} {
		text = strings.TrimPrefix(text, kw)
	}
	if !strings.HasPrefix(text, "type ") || !strings.Contains(text, "=") {
		return ""
	}
	text = strings.TrimSuffix(text, ";")
	if r := []rune(text); len(r) > maxAliasSignature {
		text = string(r[:maxAliasSignature]) + "…"
	}
	return text
}

// spanText is the text of rng, its whitespace collapsed (see rawSpan).
func spanText(lines *lineTable, rng scip.Range) string {
	return strings.Join(strings.Fields(rawSpan(lines, rng)), " ")
}

// rawSpan is the text of rng, from at most 4*maxAliasSignature bytes of
// its lines, each ended by a newline.
func rawSpan(lines *lineTable, rng scip.Range) string {
	var b strings.Builder
	for l := rng.StartLine; l <= rng.EndLine && b.Len() < 4*maxAliasSignature; l++ {
		line := lines.lines[l]
		if l == rng.EndLine {
			line = line[:lines.offset(l, rng.EndChar)]
		}
		if l == rng.StartLine {
			line = line[lines.offset(l, rng.StartChar):]
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// headerSignature is a TypeScript class's or interface's header as its
// source spells it (type parameters, extends and implements clauses, up
// to its body), without comments, its whitespace collapsed and cut at
// maxAliasSignature, where scip-typescript 0.4.0 gives only "class Name"
// or "interface Name". Any other signature, or a header that says no
// more, gives "".
func headerSignature(sig, name string, lines *lineTable, rng scip.Range) string {
	if sig != "class "+name && sig != "interface "+name {
		return ""
	}
	text := rawSpan(lines, rng)
	// The header starts at the keyword (abstract included), past the
	// decorators and modifiers before it.
	start := -1
	for from := 0; start < 0; {
		i := strings.Index(text[from:], sig)
		if i < 0 {
			return ""
		}
		i += from
		after := i + len(sig)
		if after == len(text) || !isIdentByte(text[after]) && text[after] < utf8.RuneSelf {
			start = i
		}
		from = after
	}
	if strings.HasSuffix(text[:start], "abstract ") {
		start -= len("abstract ")
	}
	text = text[start:]
	var b strings.Builder
	depth, done := 0, false
	var quote byte
	for i := 0; i < len(text) && !done; i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(text) {
				b.WriteByte(c)
				i++
				c = text[i]
			} else if c == quote {
				quote = 0
			}
		case c == '/' && strings.HasPrefix(text[i:], "//"):
			n := strings.IndexByte(text[i:], '\n')
			if n < 0 {
				break
			}
			i += n
			c = ' '
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			n := strings.Index(text[i+2:], "*/")
			if n < 0 {
				return ""
			}
			i += n + 3
			c = ' '
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '<' || c == '{' && depth > 0:
			depth++
		case c == '{':
			done = true
			continue
		case c == ')' || c == ']' || c == '}' || c == '>' && (i == 0 || text[i-1] != '='):
			depth--
		}
		b.WriteByte(c)
	}
	header := strings.Join(strings.Fields(b.String()), " ")
	if !done || header == sig {
		return ""
	}
	if r := []rune(header); len(r) > maxAliasSignature {
		header = string(r[:maxAliasSignature]) + "…"
	}
	return header
}

// named mends a signature scip-python 0.6.6 writes without its name: a
// type variable's (`T = TypeVar("T")`) reads "undefined = TypeVar(…)".
func named(sig, name string) string {
	if rest, ok := strings.CutPrefix(sig, "undefined = "); ok && name != "undefined" {
		return name + " = " + rest
	}
	return sig
}

// docOf is a definition's documentation, without the code block that
// gives its signature.
func docOf(d *def) string {
	docs := d.info.Documentation
	if d.info.SignatureText == "" && len(docs) > 0 {
		if _, ok := codeBlock(docs[0]); ok {
			docs = docs[1:]
		}
	}
	return strings.TrimSpace(strings.Join(docs, "\n\n"))
}

// codeBlock returns the content of a Markdown fenced code block that is
// all of s.
func codeBlock(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return "", false
	}
	body := s[3 : len(s)-3]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:] // the language tag
	} else {
		return "", false
	}
	return strings.TrimSpace(body), true
}

// names returns a definition's identity module (its leading namespaces)
// and qualified name (the rest, without parameters).
func names(s scip.Symbol) (module, qname, name string) {
	ds := s.Descriptors
	i := 0
	var mod []string
	for i < len(ds) && ds[i].Suffix == scip.SuffixNamespace {
		mod = append(mod, ds[i].Name)
		i++
	}
	var q []string
	for _, d := range ds[i:] {
		if d.Suffix == scip.SuffixParameter || d.Suffix == scip.SuffixTypeParameter {
			continue
		}
		n := d.Name
		if n == "<constructor>" {
			n = "constructor"
		}
		q = append(q, n)
	}
	if len(q) > 0 {
		name = q[len(q)-1]
	}
	return strings.Join(mod, "/"), strings.Join(q, "."), name
}

// parentSymbol is the SCIP symbol of the type a member belongs to, "" for
// a top-level definition.
func parentSymbol(s scip.Symbol) string {
	ds := s.Descriptors
	if len(ds) < 2 || ds[len(ds)-2].Suffix != scip.SuffixType {
		return ""
	}
	p := s
	p.Descriptors = ds[:len(ds)-1]
	return p.String()
}

// write decides every definition's key and writes the records.
func (im *importer) write(ctx context.Context, w graph.SnapshotWriter) error {
	repo := im.opt.Repository.Name
	module := im.module
	if module == "" {
		module = im.projectDir
	}
	// Kinds: types first, so that a method knows whether its type is an
	// interface.
	typeKind := map[string]graph.Kind{}
	noParent := func(string) graph.Kind { return "" }
	for _, d := range im.order {
		if ds := d.parsed.Descriptors; len(ds) > 0 && ds[len(ds)-1].Suffix == scip.SuffixType {
			if k, ok := kindOf(d, noParent); ok {
				typeKind[d.symbol] = k
			}
		}
	}
	parentKind := func(sym string) graph.Kind {
		p, err := scip.ParseSymbol(sym)
		if err != nil {
			return ""
		}
		return typeKind[parentSymbol(p)]
	}
	byKey := map[string]*def{}
	var kept []*def
	for _, d := range im.order {
		k, ok := kindOf(d, parentKind)
		if !ok {
			continue
		}
		mod, qname, name := names(d.parsed)
		if qname == "" {
			continue
		}
		d.kind = k
		d.key = symbolKey(d.lang, repo, d.parsed.Package.Name, mod, qname, k)
		if _, dup := byKey[d.key]; dup {
			im.res.Duplicates++ // overloads told apart by a disambiguator, or declarations merged
			continue
		}
		byKey[d.key] = d
		kept = append(kept, d)
		d.sym = graph.Symbol{Key: d.key, Repository: repo, Language: d.lang, PackagePath: d.dir, PackageName: packageName(d.dir, module),
			ModulePath: module, Path: d.path, Name: name, QualifiedName: qname, Kind: k, Signature: signatureOf(d), Doc: docOf(d),
			Exported: !d.private && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, "#"), TestOnly: d.testOnly,
			StartLine: d.start[0], StartCol: d.start[1], EndLine: d.end[0], EndCol: d.end[1], Text: d.text}
	}
	keyOf := func(sym string) *def {
		if d := im.defs[sym]; d != nil && d.key != "" {
			return byKey[d.key]
		}
		return nil
	}
	link := im.opt.Link
	if link != nil {
		for _, d := range kept {
			if !link.packages[d.parsed.Package.Name] {
				continue
			}
			ld := linkDef{key: d.key, kind: d.kind}
			if len(im.impls[d.symbol]) > 0 {
				for _, c := range im.implementations(d.symbol, keyOf) {
					ld.impls = append(ld.impls, c.key)
				}
			}
			link.add(d, ld)
		}
	}
	for _, d := range kept {
		if p := parentSymbol(d.parsed); p != "" {
			if pd := keyOf(p); pd != nil {
				d.sym.Parent = pd.key
				if d.kind.IsFunction() {
					d.sym.Receiver = pd.sym.Name
				}
			}
		}
	}

	// Packages: one per directory, with its files and symbols.
	type pkgRec struct {
		files []graph.File
		syms  []graph.Symbol
	}
	pkgs := map[string]*pkgRec{}
	seenFile := map[string]bool{}
	for _, f := range im.files {
		if seenFile[f.file.Path] {
			continue // a document listed twice
		}
		seenFile[f.file.Path] = true
		p := pkgs[f.dir]
		if p == nil {
			p = &pkgRec{}
			pkgs[f.dir] = p
		}
		p.files = append(p.files, f.file)
	}
	for _, d := range kept {
		pkgs[d.dir].syms = append(pkgs[d.dir].syms, d.sym)
	}
	dirs := make([]string, 0, len(pkgs))
	for dir := range pkgs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := pkgs[dir]
		pkg := graph.Package{Path: dir, Name: packageName(dir, module), ModulePath: module, Dir: dir, Hash: graph.PackageHash(p.files),
			TestOnly: !slices.ContainsFunc(p.files, func(f graph.File) bool { return !f.Test })}
		if err := w.AddPackage(ctx, pkg, p.files, p.syms, nil); err != nil {
			return fmt.Errorf("writing package %s: %w", dir, err)
		}
		im.res.Packages++
		im.res.Files += len(p.files)
		im.res.Symbols += len(p.syms)
	}

	// Implementations: type pairs and method pairs alike, as the Go
	// indexer records method pairs for find_implementations.
	var impls []graph.Implements
	seenImpl := map[[2]string]bool{}
	for _, pr := range im.implsOf {
		t, s := keyOf(pr[0]), keyOf(pr[1])
		if t != nil && s == nil && im.defs[pr[1]] == nil && link.wants(pr[1]) {
			link.impls = append(link.impls, [2]string{t.key, pr[1]}) // overrides another project's
			continue
		}
		if t == nil || s == nil || t == s || seenImpl[[2]string{t.key, s.key}] {
			continue
		}
		seenImpl[[2]string{t.key, s.key}] = true
		impls = append(impls, graph.Implements{Type: t.key, Interface: s.key})
	}
	if err := w.AddImplements(ctx, impls); err != nil {
		return fmt.Errorf("writing implementations: %w", err)
	}
	im.res.Implements = len(impls)

	// References and call edges.
	src := newSrcLayout(im.order)
	var refs []graph.Ref
	var edges []graph.CallEdge
	for _, r := range im.refs {
		if r.via.module != "" {
			if r.target = im.ns.resolve(r.via.module, r.via.name); r.target == "" {
				continue
			}
		}
		target := keyOf(r.target)
		if target == nil {
			if own := src.own(r.target); own != "" {
				target = keyOf(own)
			}
		}
		var enc *def
		if r.enclosing != nil && r.enclosing.key != "" {
			enc = byKey[r.enclosing.key]
		}
		if target == nil && im.defs[r.target] == nil && link.wants(r.target) {
			// Another project's declaration: Linker.Write joins it.
			lr := linkRef{target: r.target, ref: graph.Ref{Path: r.path, Line: r.line, Col: r.col, EndCol: r.endCol, Kind: r.kind, TestOnly: r.testOnly}}
			if enc != nil {
				lr.ref.Enclosing = enc.key
				if r.kind == graph.RefCall && !r.naming && (enc.kind == graph.KindFunc || enc.kind == graph.KindMethod) {
					lr.caller, lr.name = enc.key, calleeName(r.target)
				}
			}
			link.refs = append(link.refs, lr)
			continue
		}
		if target != nil {
			ref := graph.Ref{Target: target.key, Path: r.path, Line: r.line, Col: r.col, EndCol: r.endCol, Kind: r.kind, TestOnly: r.testOnly}
			if enc != nil {
				ref.Enclosing = enc.key
			}
			refs = append(refs, ref)
		}
		if r.kind != graph.RefCall || r.naming || enc == nil || (enc.kind != graph.KindFunc && enc.kind != graph.KindMethod) {
			continue
		}
		site := graph.CallEdge{Caller: enc.key, Path: r.path, Line: r.line, Col: r.col}
		if target == nil {
			if name := calleeName(r.target); name != "" {
				e := site
				e.CalleeName, e.Coverage, e.Via = name, graph.CoverageExact, graph.ViaStatic
				edges = append(edges, e)
			}
			continue
		}
		if !target.kind.IsFunction() {
			continue // a call of a value: a type's constructor is its own symbol
		}
		var impls []string
		for _, c := range im.implementations(r.target, keyOf) {
			impls = append(impls, c.key)
		}
		edges = append(edges, calls(site, target.key, target.kind, impls, false)...)
	}
	if err := w.AddRefs(ctx, refs); err != nil {
		return fmt.Errorf("writing references: %w", err)
	}
	if err := w.AddCallEdges(ctx, edges); err != nil {
		return fmt.Errorf("writing call edges: %w", err)
	}
	im.res.Refs, im.res.CallEdges = len(refs), len(edges)
	if len(im.res.Diagnostics) > 0 {
		if err := w.AddDiagnostics(ctx, im.res.Diagnostics); err != nil {
			return fmt.Errorf("writing diagnostics: %w", err)
		}
	}
	return nil
}

// implementations returns the graph definitions that implement or
// override the method sym, transitively (an override of an override),
// each once.
func (im *importer) implementations(sym string, keyOf func(string) *def) []*def {
	var out []*def
	seen := map[string]bool{sym: true}
	queue := []string{sym}
	for len(queue) > 0 && len(seen) < 10000 {
		s := queue[0]
		queue = queue[1:]
		for _, sub := range im.impls[s] {
			if seen[sub] {
				continue
			}
			seen[sub] = true
			queue = append(queue, sub)
			if d := keyOf(sub); d != nil && d.kind.IsFunction() {
				out = append(out, d)
			}
		}
	}
	return out
}

// packageName is the Name of a directory's package: its last element, or
// the project's name at the root.
func packageName(dir, module string) string {
	if dir == "." {
		return path.Base(module)
	}
	return path.Base(dir)
}
