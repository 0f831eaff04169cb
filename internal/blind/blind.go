// Package blind is the completeness verdict the graph tools give with
// their answers: complete, or lower_bound with the blind spots (dynamic
// calls, reflection, type errors, code outside the graph, the runtime,
// cut walks, amended snapshots, unparsable files) that may hide more. The
// call walks, find_references, find_implementations and change impact
// collect them alike.
package blind

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// The completeness verdicts of find_references, get_callers, get_callees
// and find_implementations.
const (
	Complete   = "complete"    // the graph holds every answer there is
	LowerBound = "lower_bound" // more answers may exist; blind_spots says where
)

// The kinds of blind spot an answer can name.
const (
	Unresolved = "unresolved_calls" // dynamic calls for which no callee was found
	Reflection = "reflection"       // reflect.Value.Call and friends
	TypeErrors = "type_errors"      // packages that failed to type-check
	Outside    = "outside_graph"    // code that is not indexed can use the symbol
	Runtime    = "runtime"          // called by the Go runtime or the testing framework
	MaxNodes   = "max_nodes"        // the walk stopped at max_nodes
	External   = "external_callees" // callees outside the graph were not followed
	Amended    = "amended"          // an edit was indexed alone; the whole-program pass is pending
	Syntax     = "syntax_errors"    // a changed file does not parse: what the parser lost is not compared
	Depth      = "depth"            // depth stopped a change-impact walk before it ran out of code to reach
	Recording  = "stale_recording"  // the test recording was made at another commit than the one a change is against
	Unread     = "unread_files"     // files a reading of the syntax at the uses stopped before, past its bound
)

// AddAmended names the blind spot of an amended snapshot (see
// index.Refresh): the calls through interfaces and function values were
// resolved for the edited packages alone, and carried over for the rest.
func (c *Spots) AddAmended(repo graph.RepositoryStatus) {
	if len(repo.Snapshot.Amended) == 0 {
		return
	}
	c.Add(Amended, "%s was re-indexed alone after an edit, so calls through interfaces and function values may be missing or out of date until the whole index that follows it finishes (seconds; call again)",
		ListSome(repo.Snapshot.Amended, 3))
}

// Spots collects blind spots and renders the verdict. A blind
// spot is spelled "kind: detail", kind being one of the constants above.
type Spots struct {
	spots []string
	seen  map[string]bool
}

// Add records a blind spot of kind, once per kind: the first detail
// given for a kind is the one shown.
func (c *Spots) Add(kind, format string, args ...any) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[kind] {
		return
	}
	c.seen[kind] = true
	c.spots = append(c.spots, kind+": "+fmt.Sprintf(format, args...))
}

// Verdict returns complete or lower_bound and the blind spots behind it.
func (c *Spots) Verdict() (string, []string) {
	if len(c.spots) == 0 {
		return Complete, nil
	}
	return LowerBound, c.spots
}

// Write renders the verdict on one line per blind spot.
func Write(b *strings.Builder, verdict string, spots []string) {
	if verdict == "" {
		return
	}
	if len(spots) == 0 {
		fmt.Fprintf(b, "completeness: %s\n", verdict)
		return
	}
	fmt.Fprintf(b, "completeness: %s; blind spots:\n", verdict)
	for _, s := range spots {
		fmt.Fprintf(b, "  %s\n", answer.QuoteContent(s))
	}
}

// reflectCalls are the reflect entry points through which code calls a
// function or method the call graph cannot see.
var reflectCalls = []string{"Call", "CallSlice", "Method", "MethodByName"}

// IsReflectCall reports whether name, as the call graph spells a callee
// outside the graph ("reflect.Value.Call"), is one of reflect.Value's
// dynamic-call methods.
func IsReflectCall(name string) bool {
	n := strings.NewReplacer("(", "", ")", "", "*", "").Replace(name)
	rest, ok := strings.CutPrefix(n, "reflect.")
	if !ok {
		return false
	}
	for _, m := range reflectCalls {
		if rest == "Value."+m {
			return true
		}
	}
	return false
}

// FindReflectors returns the functions of repo that call through
// reflection. The call graph names such callees (reflect.Value.Call and
// friends) but cannot be asked by callee name, so the candidates are found
// in the source: only files that import reflect can make such a call, and
// only functions whose bodies call a method of that name. Their edges then
// confirm it.
func FindReflectors(ctx context.Context, v *session.View, repo string) (map[string]bool, error) {
	found := map[string]bool{}
	var rootDir string
	for _, r := range v.Repos() {
		if r.Name == repo {
			rootDir = r.Root
		}
	}
	if !v.Session().IsRoot(rootDir) {
		return found, nil // not ours to read; the verdict cannot see reflection there
	}
	files, err := v.Reader().Files(ctx, repo)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading files")
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return found, nil
	}
	defer root.Close()
	var callers []string
	for _, file := range files {
		if file.Ignored || file.Package == "" || !strings.HasSuffix(file.Path, ".go") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, qn := range reflectingFuncs(root, file.Path) {
			syms, err := v.Reader().LookupSymbols(ctx, graph.Lookup{QualifiedName: qn, PackagePath: file.Package, Repository: repo, PathPrefix: file.Path})
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "looking up "+qn)
			}
			for _, s := range syms {
				if s.Path == file.Path && s.Kind.IsFunction() {
					callers = append(callers, s.Key)
				}
			}
		}
	}
	if len(callers) == 0 {
		return found, nil
	}
	edges, err := v.Reader().CallEdges(ctx, graph.EdgeQuery{Callers: callers})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading call edges")
	}
	for _, e := range edges {
		if e.Callee == "" && IsReflectCall(e.CalleeName) {
			found[e.Caller] = true
		}
	}
	return found, nil
}

// headBytes is how much of a file is read to see its imports; a file
// whose import block goes on past it is read whole.
const headBytes = 16 << 10

// reflectingFuncs returns the qualified names (Name or Type.Name) of the
// functions declared in a file that imports reflect whose bodies call a
// method named like one of reflect.Value's dynamic calls.
func reflectingFuncs(root *os.Root, rel string) []string {
	f, err := session.OpenRegular(root, "file", rel)
	if err != nil {
		return nil
	}
	head, err := io.ReadAll(io.LimitReader(f, headBytes))
	f.Close()
	if err != nil {
		return nil
	}
	imports, perr := parseImports(head)
	if perr != nil && len(head) == headBytes {
		full, err := session.ReadIn(root, "file", rel)
		if err != nil {
			return nil
		}
		head = full
		imports, _ = parseImports(head)
	}
	if imports == nil || !hasImport(imports, "reflect") {
		return nil
	}
	src, err := session.ReadIn(root, "file", rel)
	if err != nil {
		return nil
	}
	file, _ := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
	if file == nil {
		return nil
	}
	var names []string
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !callsReflectively(fd.Body) {
			continue
		}
		name, _ := syntax.FuncName(fd)
		names = append(names, name)
	}
	return names
}

// callsReflectively reports whether body calls a method named Call,
// CallSlice, Method or MethodByName.
func callsReflectively(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !found {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				for _, m := range reflectCalls {
					if sel.Sel.Name == m {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// parseImports parses the package and import clauses of src.
func parseImports(src []byte) (*ast.File, error) {
	return parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly|parser.SkipObjectResolution)
}

// hasImport reports whether the file imports ipath.
func hasImport(f *ast.File, ipath string) bool {
	for _, imp := range f.Imports {
		if imp.Path != nil && strings.Trim(imp.Path.Value, "`\"") == ipath {
			return true
		}
	}
	return false
}

// AddTypeErrors names the packages that failed to type-check: their
// references, calls and method sets may be missing from the graph.
func (c *Spots) AddTypeErrors(f *session.Facts, what string) {
	if len(f.ErrPackages) == 0 {
		return
	}
	c.Add(TypeErrors, "%d package(s) failed to type-check, so %s in them may be missing: %s",
		len(f.ErrPackages), what, ListSome(f.ErrPackages, 5))
}

// ListSome joins up to n items and says how many more there are.
func ListSome(items []string, n int) string {
	sorted := append([]string(nil), items...)
	sort.Strings(sorted)
	if len(sorted) <= n {
		return strings.Join(sorted, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(sorted[:n], ", "), len(sorted)-n)
}

// Importable reports whether code outside the repository can import the
// package: not a main package, not an external test package, and with no
// internal path element.
func Importable(sym graph.Symbol) bool {
	if sym.PackageName == "main" || sym.TestOnly || strings.HasSuffix(sym.PackagePath, "_test") {
		return false
	}
	for _, el := range strings.Split(sym.PackagePath, "/") {
		if el == "internal" {
			return false
		}
	}
	return true
}

// VisibleOutside reports whether code outside the repository can name the
// symbol: exported and declared in an Importable package. Methods and
// fields are judged by their own name, since a value of an unexported type
// can still reach other packages.
func VisibleOutside(sym graph.Symbol) bool {
	return Importable(sym) && token.IsExported(sym.Name)
}

// RuntimeEntry reports whether the Go runtime or the testing framework
// calls the function: main.main, init functions, and the Test, Benchmark,
// Fuzz and Example functions of _test.go files.
func RuntimeEntry(sym graph.Symbol) string {
	switch {
	case sym.Kind == graph.KindFunc && sym.Name == "main" && sym.PackageName == "main":
		return "main.main is called by the Go runtime"
	case sym.Kind == graph.KindFunc && sym.Name == "init":
		return "init functions are called by the Go runtime when the package is initialised"
	case sym.Kind == graph.KindFunc && strings.HasSuffix(sym.Path, "_test.go"):
		for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
			if rest, ok := strings.CutPrefix(sym.Name, p); ok && (rest == "" || !IsLowerStart(rest)) {
				return sym.Name + " is called by the testing framework"
			}
		}
	}
	return ""
}

func IsLowerStart(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }
