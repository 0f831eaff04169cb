package live

// typeErrorCodes (codes_gen.go) is generated from the toolchain's sources.
//go:generate go run gen_codes.go

import (
	"bytes"
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// Diagnostic is one problem in a package: from the go command (list),
// the parser (parse), the type checker (type) or a vet analyzer (vet).
type Diagnostic struct {
	Source   string // list, parse, type or vet
	Code     string // the type checker's error code name, the analyzer's name, or list/parse
	Severity string // error or warning
	Message  string
	Start    Position
	End      Position // zero when unknown
	Fixes    []Fix
}

// Fix is a suggested fix as a unified diff over the files it edits.
type Fix struct {
	Message string
	Diff    string
}

// Diagnostics returns the package's parse and type errors and, with
// analyzers, the findings of the given vet analyzers, sorted by file and
// position. As go vet does, only analyzers that run despite errors run on
// a package with errors.
func (p *Package) Diagnostics(analyzers []*analysis.Analyzer) []Diagnostic {
	var out []Diagnostic
	for _, e := range p.Pkg.Errors {
		if e.Kind == packages.TypeError {
			continue // from TypeErrors below, with their codes
		}
		if e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
			// The go command's own compile of the package (for export
			// data) failed: the same errors come from the source check.
			continue
		}
		src := "list"
		if e.Kind == packages.ParseError {
			src = "parse"
		}
		d := Diagnostic{Source: src, Code: src, Severity: "error", Message: e.Msg, Start: p.parsePos(e.Pos)}
		if d.Start.Filename == "" {
			// An error of the package as a whole: shown on the file asked
			// about, without a line.
			d.Start = Position{Filename: p.Filename}
		} else if !filepath.IsAbs(d.Start.Filename) {
			d.Start.Filename = filepath.Join(p.Unit.Dir, d.Start.Filename)
		}
		out = append(out, d)
	}
	// The go command reads the same syntax errors the parser reports.
	parsed := map[string]bool{}
	for _, d := range out {
		if d.Source == "parse" {
			parsed[d.Message] = true
		}
	}
	out = slices.DeleteFunc(out, func(d Diagnostic) bool { return d.Source == "list" && parsed[d.Message] })
	for _, te := range p.Pkg.TypeErrors {
		d := Diagnostic{Source: "type", Code: "TypeError", Severity: "error", Message: te.Msg, Start: p.Position(te.Pos)}
		if code, start, end, ok := errorCodeStartEnd(te); ok {
			if name, ok := typeErrorCodes[code]; ok {
				d.Code = name
			}
			if start.IsValid() && end.IsValid() && end > start {
				d.End = p.Position(end)
			}
		}
		out = append(out, d)
	}
	if len(analyzers) > 0 {
		out = append(out, p.runAnalyzers(analyzers)...)
	}
	slices.SortStableFunc(out, func(x, y Diagnostic) int {
		a, b := x.Start, y.Start
		return cmp.Or(strings.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// parsePos reads a go/packages "file:line:col" position.
func (p *Package) parsePos(s string) Position {
	if s == "" || s == "-" {
		return Position{}
	}
	parts := strings.Split(s, ":")
	var nums []int
	for len(parts) > 1 && len(nums) < 2 {
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		parts = parts[:len(parts)-1]
	}
	pos := Position{Filename: strings.Join(parts, ":")}
	if len(nums) > 0 {
		pos.Line = nums[0]
	}
	if len(nums) > 1 {
		pos.Column = nums[1]
		pos.Column = position.CharColumnAt(p.Src(pos.Filename), pos.Line, nums[1])
	}
	return pos
}

// errorCodeStartEnd reads the code and span go/types keeps in unexported
// fields of types.Error (as gopls does; go/types exports neither yet).
func errorCodeStartEnd(err types.Error) (int, token.Pos, token.Pos, bool) {
	v := reflect.ValueOf(err)
	var data [3]int
	for i, name := range []string{"go116code", "go116start", "go116end"} {
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanInt() {
			return 0, 0, 0, false
		}
		data[i] = int(f.Int())
	}
	return data[0], token.Pos(data[1]), token.Pos(data[2]), true
}

// runAnalyzers is a small analysis driver over the one loaded package: the
// analyzers and what they require run in dependency order, each once.
// Facts are kept for this package only; the dependencies come from export
// data and have no syntax to analyse, so facts about them (printf
// wrappers declared in other packages, for instance) are not known.
func (p *Package) runAnalyzers(analyzers []*analysis.Analyzer) []Diagnostic {
	pkg := p.Pkg
	hasErrors := len(pkg.Errors) > 0 || len(pkg.TypeErrors) > 0
	results := map[*analysis.Analyzer]any{}
	failed := map[*analysis.Analyzer]bool{}
	objFacts := map[objFactKey]analysis.Fact{}
	pkgFacts := map[reflect.Type]analysis.Fact{}
	var out []Diagnostic
	var module *analysis.Module
	if pkg.Module != nil {
		module = &analysis.Module{Path: pkg.Module.Path, Version: pkg.Module.Version, GoVersion: pkg.Module.GoVersion}
	}
	readable := map[string]bool{}
	for _, lists := range [][]string{pkg.GoFiles, pkg.CompiledGoFiles, pkg.OtherFiles, pkg.IgnoredFiles, pkg.EmbedFiles} {
		for _, f := range lists {
			readable[f] = true
		}
	}
	var run func(a *analysis.Analyzer) bool
	run = func(a *analysis.Analyzer) bool {
		if _, ok := results[a]; ok {
			return true
		}
		if failed[a] {
			return false
		}
		for _, req := range a.Requires {
			if !run(req) {
				failed[a] = true
				return false
			}
		}
		if hasErrors && !a.RunDespiteErrors {
			failed[a] = true
			return false
		}
		pass := &analysis.Pass{
			Analyzer: a, Fset: p.Fset, Files: pkg.Syntax, OtherFiles: pkg.OtherFiles, IgnoredFiles: pkg.IgnoredFiles,
			Pkg: pkg.Types, TypesInfo: pkg.TypesInfo, TypesSizes: pkg.TypesSizes, TypeErrors: pkg.TypeErrors, Module: module,
			ResultOf: map[*analysis.Analyzer]any{},
			ReadFile: func(name string) ([]byte, error) {
				if !readable[name] {
					return nil, fmt.Errorf("%s is not a file of package %s", name, pkg.PkgPath)
				}
				if src := p.Src(name); src != nil {
					return src, nil
				}
				rel, ok := localRel(p.Root, name)
				if !ok {
					return nil, fmt.Errorf("%s is outside the root", name)
				}
				return readInRoot(p.Root, rel)
			},
			ImportObjectFact: func(obj types.Object, fact analysis.Fact) bool {
				f, ok := objFacts[objFactKey{obj, reflect.TypeOf(fact)}]
				if ok {
					reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(f).Elem())
				}
				return ok
			},
			ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
				objFacts[objFactKey{obj, reflect.TypeOf(fact)}] = fact
			},
			ImportPackageFact: func(tp *types.Package, fact analysis.Fact) bool {
				if tp != pkg.Types {
					return false
				}
				f, ok := pkgFacts[reflect.TypeOf(fact)]
				if ok {
					reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(f).Elem())
				}
				return ok
			},
			ExportPackageFact: func(fact analysis.Fact) { pkgFacts[reflect.TypeOf(fact)] = fact },
			AllObjectFacts: func() []analysis.ObjectFact {
				var fs []analysis.ObjectFact
				for k, f := range objFacts {
					fs = append(fs, analysis.ObjectFact{Object: k.obj, Fact: f})
				}
				return fs
			},
			AllPackageFacts: func() []analysis.PackageFact {
				var fs []analysis.PackageFact
				for _, f := range pkgFacts {
					fs = append(fs, analysis.PackageFact{Package: pkg.Types, Fact: f})
				}
				return fs
			},
		}
		for _, req := range a.Requires {
			pass.ResultOf[req] = results[req]
		}
		report := slices.Contains(analyzers, a)
		pass.Report = func(d analysis.Diagnostic) {
			if report {
				out = append(out, p.analysisDiagnostic(a, d))
			}
		}
		res, err := safeRun(a, pass)
		if err != nil {
			if report {
				out = append(out, Diagnostic{Source: "vet", Code: a.Name, Severity: "warning",
					Message: fmt.Sprintf("analyzer %s failed: %v", a.Name, err), Start: Position{Filename: p.Filename}})
			}
			failed[a] = true
			return false
		}
		results[a] = res
		return true
	}
	for _, a := range analyzers {
		run(a)
	}
	return out
}

type objFactKey struct {
	obj types.Object
	t   reflect.Type
}

func safeRun(a *analysis.Analyzer, pass *analysis.Pass) (res any, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("panic: %v", x)
		}
	}()
	return a.Run(pass)
}

func (p *Package) analysisDiagnostic(a *analysis.Analyzer, d analysis.Diagnostic) Diagnostic {
	out := Diagnostic{Source: "vet", Code: a.Name, Severity: "warning", Message: d.Message, Start: p.Position(d.Pos)}
	if d.End.IsValid() && d.End > d.Pos {
		out.End = p.Position(d.End)
	}
	for _, f := range d.SuggestedFixes {
		if diff := p.unifiedDiff(f.TextEdits); diff != "" {
			out.Fixes = append(out.Fixes, Fix{Message: f.Message, Diff: diff})
		}
	}
	return out
}

// unifiedDiff renders text edits as a unified diff, one hunk per file
// spanning the edited lines with up to three lines of context.
func (p *Package) unifiedDiff(edits []analysis.TextEdit) string {
	type span struct{ start, end int }
	byFile := map[string][]analysis.TextEdit{}
	var files []string
	for _, e := range edits {
		name := p.Fset.PositionFor(e.Pos, false).Filename
		if _, ok := byFile[name]; !ok {
			files = append(files, name)
		}
		byFile[name] = append(byFile[name], e)
	}
	sort.Strings(files)
	var b strings.Builder
	for _, name := range files {
		src := p.Src(name)
		if src == nil {
			continue
		}
		es := byFile[name]
		sort.Slice(es, func(i, j int) bool { return es[i].Pos < es[j].Pos })
		var spans []span
		for _, e := range es {
			s, t := p.Fset.PositionFor(e.Pos, false).Offset, p.Fset.PositionFor(e.End, false).Offset
			if !e.End.IsValid() {
				t = s
			}
			if s < 0 || t < s || t > len(src) || (len(spans) > 0 && s < spans[len(spans)-1].end) {
				return "" // overlapping or out of range: not a fix we can show
			}
			spans = append(spans, span{s, t})
		}
		// Apply the edits.
		var after bytes.Buffer
		last := 0
		for i, e := range es {
			after.Write(src[last:spans[i].start])
			after.Write(e.NewText)
			last = spans[i].end
		}
		after.Write(src[last:])
		oldLines := splitLines(src)
		newLines := splitLines(after.Bytes())
		// The changed region: the lines from the first edit's line to the
		// last edit's line; what follows is the same text in both.
		first := bytes.Count(src[:spans[0].start], []byte("\n"))
		lastLine := bytes.Count(src[:spans[len(spans)-1].end], []byte("\n"))
		tail := len(oldLines) - lastLine - 1 // lines after the change, unchanged
		newEnd := len(newLines) - tail - 1
		ctxStart := max(first-3, 0)
		oldCtxEnd := min(lastLine+3, len(oldLines)-1)
		newCtxEnd := min(newEnd+3, len(newLines)-1)
		rel, _ := localRel(p.Root, name)
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", rel, rel)
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", ctxStart+1, oldCtxEnd-ctxStart+1, ctxStart+1, newCtxEnd-ctxStart+1)
		for i := ctxStart; i < first; i++ {
			b.WriteString(" " + oldLines[i] + "\n")
		}
		for i := first; i <= lastLine; i++ {
			b.WriteString("-" + oldLines[i] + "\n")
		}
		for i := first; i <= newEnd; i++ {
			b.WriteString("+" + newLines[i] + "\n")
		}
		for i := lastLine + 1; i <= oldCtxEnd; i++ {
			b.WriteString(" " + oldLines[i] + "\n")
		}
	}
	return b.String()
}

// splitLines splits text into lines; a final newline ends the last line
// rather than starting an empty one.
func splitLines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// readInRoot reads a root-relative file through os.Root.
func readInRoot(root, rel string) ([]byte, error) {
	r, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return rootfs.ReadRegular(r, filepath.FromSlash(rel), maxFileSize)
}
