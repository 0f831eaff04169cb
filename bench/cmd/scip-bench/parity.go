package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptest"
)

// categories are the kinds of symbol the parity pick spreads over, each
// given an equal share.
var categories = []category{
	{"function", []graph.Kind{graph.KindFunc}},
	{"class or type", []graph.Kind{graph.KindType}},
	{"interface", []graph.Kind{graph.KindInterface}},
	{"method", []graph.Kind{graph.KindMethod, graph.KindInterfaceMethod}},
	{"constant or variable", []graph.Kind{graph.KindConst, graph.KindVar}},
}

// category is a kind of symbol a pick spreads over.
type category struct {
	name  string
	kinds []graph.Kind
}

// pickSymbols picks n symbols of lang from syms, deterministically: the
// candidates of each category (constants and variables declared at the
// top of a module, not in tests, their declaring identifier
// found in the file) in path and line order, taken at even steps so that
// they spread over the files; a category with too few leaves its share to
// the others.
func pickSymbols(syms []graph.Symbol, lang string, n int, src *sources) []graph.Symbol {
	return pickFrom(categories, syms, lang, n, src, nil)
}

// implCategories are the kinds of symbol find_implementations answers
// for (a class or type, an interface, a method), of the second pick the
// implementations are compared on: of the first, spread over every kind,
// few have any.
var implCategories = categories[1:4]

// pickFrom picks n symbols of lang from syms as pickSymbols does, over
// cats, leaving out those of skip.
func pickFrom(cats []category, syms []graph.Symbol, lang string, n int, src *sources, skip map[string]bool) []graph.Symbol {
	byCat := make([][]graph.Symbol, len(cats))
	for _, s := range syms {
		if s.Language != lang || s.TestOnly || s.Name == "" || strings.TrimSpace(s.Name) != s.Name || skip[s.Key] {
			continue
		}
		for i, c := range cats {
			// Constants and variables at the top of a module only: the
			// properties of object and type literals are variables too.
			top := c.name != "constant or variable" || !strings.Contains(s.QualifiedName, ".")
			if top && slices.Contains(c.kinds, s.Kind) {
				if _, ok := src.declIdent(s); ok {
					byCat[i] = append(byCat[i], s)
				}
			}
		}
	}
	for _, c := range byCat {
		slices.SortFunc(c, func(a, b graph.Symbol) int {
			return strings.Compare(fmt.Sprintf("%s:%06d:%06d", a.Path, a.StartLine, a.StartCol), fmt.Sprintf("%s:%06d:%06d", b.Path, b.StartLine, b.StartCol))
		})
	}
	// Shares: equal, the rest of a short category handed on.
	share := make([]int, len(byCat))
	left, open := n, 0
	for _, c := range byCat {
		if len(c) > 0 {
			open++
		}
	}
	for left > 0 && open > 0 {
		each := max(1, left/open)
		progressed := false
		for i, c := range byCat {
			if left == 0 {
				break
			}
			take := min(each, len(c)-share[i], left)
			if take > 0 {
				share[i] += take
				left -= take
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	var out []graph.Symbol
	for i, c := range byCat {
		for j := range share[i] {
			out = append(out, c[j*len(c)/share[i]])
		}
	}
	return out
}

// sources reads a corpus's files once each.
type sources struct {
	root  string
	lines map[string][]string
}

func newSources(root string) *sources { return &sources{root: root, lines: map[string][]string{}} }

// file is the lines of the root-relative path, nil when unreadable.
func (s *sources) file(path string) []string {
	if l, ok := s.lines[path]; ok {
		return l
	}
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(path)))
	var l []string
	if err == nil {
		l = strings.Split(string(data), "\n")
	}
	s.lines[path] = l
	return l
}

// line is the text of a 1-based line, "" past the end.
func (s *sources) line(path string, n int) string {
	l := s.file(path)
	if n < 1 || n > len(l) {
		return ""
	}
	return strings.TrimSuffix(l[n-1], "\r")
}

// declIdent is the 1-based line and character column of the identifier
// declaring sym: its name's first whole-word occurrence at or after the
// start of its declaration (the servers are asked there).
func (s *sources) declIdent(sym graph.Symbol) ([2]int, bool) {
	lines := s.file(sym.Path)
	name := []rune(sym.Name)
	for l := sym.StartLine; l <= sym.EndLine && l <= len(lines); l++ {
		line := []rune(strings.TrimSuffix(lines[l-1], "\r"))
		from := 0
		if l == sym.StartLine {
			from = max(0, sym.StartCol-1)
		}
		for i := from; i+len(name) <= len(line); i++ {
			if string(line[i:i+len(name)]) != sym.Name {
				continue
			}
			if i > 0 && isIdent(line[i-1]) || i+len(name) < len(line) && isIdent(line[i+len(name)]) {
				continue
			}
			return [2]int{l, i + 1}, true
		}
	}
	return [2]int{}, false
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func loc(path string, at [2]int) string { return fmt.Sprintf("%s:%d:%d", path, at[0], at[1]) }

// parityTool is the comparison of one tool with its server's request.
type parityTool struct {
	Tool    string `json:"tool"`    // find_references or find_implementations
	Request string `json:"request"` // textDocument/references or textDocument/implementation
	Symbols int    `json:"symbols"`
	// Server counts the server's locations inside the root; Found those
	// sextant answered too; Extra sextant's that the server did not give.
	Server  int     `json:"server"`
	Sextant int     `json:"sextant"`
	Found   int     `json:"found"`
	Extra   int     `json:"extra"`
	FoundPc float64 `json:"found_pct"`
	ExtraPc float64 `json:"extra_pct"`
	// FoundPcNotByDesign and ExtraPcNotByDesign leave out the
	// differences whose cause is by design.
	FoundPcNotByDesign float64 `json:"found_pct_not_by_design"`
	ExtraPcNotByDesign float64 `json:"extra_pct_not_by_design"`
	// OutsideRoot are server locations outside the root (library
	// declarations), not compared.
	OutsideRoot int `json:"outside_root"`
	// Causes counts the differences by cause.
	Causes      map[string]int `json:"causes"`
	Differences []difference   `json:"differences"`
	Errors      []string       `json:"errors,omitempty"`
}

// difference is one position only one side answered.
type difference struct {
	Symbol string `json:"symbol"` // qualified name
	Kind   string `json:"kind"`
	Side   string `json:"side"` // "server" (missed by sextant) or "sextant" (extra)
	At     string `json:"at"`   // path:line:column, columns in characters
	Text   string `json:"text"` // the line, trimmed
	Cause  string `json:"cause"`
}

// paritySymbol is one symbol compared, with its latencies.
type paritySymbol struct {
	Key           string        `json:"stable_key"`
	QualifiedName string        `json:"qualified_name"`
	Kind          string        `json:"kind"`
	At            string        `json:"at"`
	ServerRefs    int           `json:"server_refs"`
	SextantRefs   int           `json:"sextant_refs"`
	LSPRefs       time.Duration `json:"lsp_references_ns"`
	FindRefs      time.Duration `json:"find_references_ns"`
}

// comparer holds what classifying a difference needs.
type comparer struct {
	src  *sources
	decl map[string]graph.Symbol // every indexed symbol by its declaring identifier's location
	keys map[string]graph.Symbol
	// include are the directories the corpus's pyright configuration
	// includes, read at the first need (empty: every file), and platform
	// the pythonPlatform it sets ("": the one pyright runs on).
	include  []string
	platform string
	// installed are the directories of the installed copies of the
	// project's packages by name ("": none), asked at the first need.
	installed map[string]string
}

func newComparer(src *sources, syms []graph.Symbol) *comparer {
	c := &comparer{src: src, decl: map[string]graph.Symbol{}, keys: map[string]graph.Symbol{}}
	for _, s := range syms {
		c.keys[s.Key] = s
		if at, ok := src.declIdent(s); ok {
			c.decl[loc(s.Path, at)] = s
		}
	}
	return c
}

// compare adds one symbol's answers to t, each a set: a location
// listed twice counts once.
func (c *comparer) compare(t *parityTool, sym graph.Symbol, server, sextant []string, direction string) {
	server, sextant = dedup(server), dedup(sextant)
	t.Symbols++
	t.Server += len(server)
	t.Sextant += len(sextant)
	for _, l := range server {
		if slices.Contains(sextant, l) {
			t.Found++
			continue
		}
		c.differ(t, sym, "server", l, direction)
	}
	for _, l := range sextant {
		if !slices.Contains(server, l) {
			t.Extra++
			c.differ(t, sym, "sextant", l, direction)
		}
	}
}

func (c *comparer) differ(t *parityTool, sym graph.Symbol, side, at, direction string) {
	path, line, col := splitLoc(at)
	text := c.src.line(path, line)
	d := difference{Symbol: sym.QualifiedName, Kind: string(sym.Kind), Side: side, At: at, Text: strings.TrimSpace(text)}
	d.Cause = c.classify(t.Tool, sym, side, at, text, col, direction)
	t.Differences = append(t.Differences, d)
	if t.Causes == nil {
		t.Causes = map[string]int{}
	}
	t.Causes[d.Cause]++
}

// The classes of cause a difference is given, the first word of each.
const (
	// byDesign: the tool answers another question than the server's
	// request, on purpose (the design says which).
	byDesign = "by design"
	// indexer: the SCIP indexer wrote no occurrence, or one naming
	// another symbol, where the server finds a use.
	indexer = "indexer"
	// serverSide: the server answers what the language does not make a
	// use (a name in a string), or skips code it deems unreachable.
	serverSide = "server"
	// ours: Sextant's importer or query; to fix.
	ours = "sextant"
)

// classify names the cause of a difference by rules, each written from
// differences looked at one by one; "unclassified" is one no rule names.
// A cause starts with its class (byDesign, indexer, serverSide, ours).
func (c *comparer) classify(tool string, sym graph.Symbol, side, at, text string, col int, direction string) string {
	path, line, _ := splitLoc(at)
	r := []rune(text)
	before := rune(0)
	if col >= 2 && col-2 < len(r) {
		before = r[col-2]
	}
	head := ""
	if col >= 1 && col-1 <= len(r) {
		head = string(r[:col-1])
	}
	if side == "sextant" && sym.Language == "python" && !c.pyrightReads(path) {
		return serverSide + ": a file outside the project's [tool.pyright] include, which pyright's references do not read (its definition at the same name is the project's declaration)"
	}
	if c.unreachable(path, line) {
		return serverSide + ": pyright reads no code after the module's assert sys.platform == \"win32\" on Linux"
	}
	if strings.HasSuffix(strings.TrimRight(head, " "), " as") {
		if side == "server" {
			return indexer + ": the new name of a renamed import or export (x as y): the server counts it as a use, scip-python gives it the name's own symbol"
		}
		return indexer + ": the new name of a renamed export (x as y): scip-typescript names the original there, the server counts it as a name of its own"
	}
	if tok := token(r, col); tool == "find_references" && tok != "" && tok != sym.Name {
		if side == "server" && sym.Language == "typescript" {
			return indexer + ": a use under the name of a renamed export (export { x as y }) through a namespace object (z.y): scip-typescript 0.4.0 writes no occurrence there, or one with a document-local symbol"
		}
		if side == "sextant" && sym.Language == "python" {
			return indexer + ": a use under a local alias (import x as f; f()): scip-python names the original there, pyright counts it as the alias's"
		}
	}
	switch side {
	case "server":
		if tool == "find_implementations" && path == sym.Path && line > sym.StartLine && line <= sym.EndLine && strings.HasPrefix(string(r[max(0, min(col-1, len(r))):]), sym.Name+"(") {
			return byDesign + ": the implementation of an overloaded method, which with its overload signatures is one declaration, the method asked about"
		}
		if tool == "find_implementations" && strings.HasPrefix(strings.TrimSpace(text), sym.Name+"(") && direction == "implementations" {
			return indexer + ": a method of an object literal that implements the interface method: scip-typescript relates no object literal's member to an interface"
		}
		if _, decl := c.decl[at]; tool == "find_implementations" && direction == "implementations" && (sym.Kind == graph.KindType || sym.Kind == graph.KindInterface) && !decl {
			return ours + ": a value typed as the type (a function or a literal) that find_implementations's reading of the syntax missed"
		}
		if tool == "find_implementations" && direction == "" {
			return byDesign + ": find_implementations answers for types and methods; the server lists a function's or a value's own definitions, its re-exports, values of a function type"
		}
		if tool == "find_implementations" && direction != "implementations" {
			return byDesign + ": find_implementations of a Go type or method answers the interfaces it satisfies"
		}
		if other, ok := c.decl[at]; ok && other.Key != sym.Key {
			if other.Name == sym.Name && (other.Kind == graph.KindMethod || other.Kind == graph.KindInterfaceMethod) {
				return ours + ": the declaration of another method of the family, which find_references lists as a use of kind override"
			}
			return byDesign + ": the declaration of a related symbol (" + string(other.Kind) + ")"
		}
		if declares(head, sym.Name) {
			return indexer + ": another declaration of the same name (if/else branches), which the server merges with the one asked about and the indexer gives the same symbol without a second definition"
		}
		if ns, ok := namespaceMember(head); ok && c.srcPackage(ns) && strings.HasSuffix(path, ".py") && !strings.HasPrefix(path, "src/") {
			return indexer + ": a use through the project's own package, laid out under src/, from outside src/: pyright adds src to its import paths; scip-python 0.6.6 does not, and with no copy of the package installed (which the importer joins to the project's own) writes no occurrence there"
		}
		if strings.HasSuffix(path, ".py") && !strings.HasPrefix(path, "src/") && c.installedLacks(sym) {
			return indexer + ": a use, outside src/, of a name the installed copy of the project's package does not declare: scip-python 0.6.6 resolves the package there to that copy (whose uses the importer joins to the project's declarations) and writes no occurrence for a name it lacks; pyright adds src to its import paths"
		}
		if ns, ok := namespaceMember(head); ok && c.namespaceImport(path, ns) {
			return indexer + ": a name reached through a namespace import (ns.name) of a module that re-exports it with export { … } from: scip-typescript 0.4.0 writes no occurrence there, or one with a document-local symbol"
		}
		if before == '"' || before == '\'' || before == '`' {
			return serverSide + ": a name in a string literal"
		}
	case "sextant":
		if at2, ok := c.src.declIdent(sym); ok && loc(sym.Path, at2) == at {
			return ours + ": the symbol's own declaration"
		}
		if c.merged(sym) {
			return ours + ": a use of the other meaning of a name declared both as a value and as a type (scip-typescript writes both meanings' symbols at every use; the importer keeps both where the syntax does not settle which; the server answers for the meaning asked)"
		}
	}
	return "unclassified"
}

// token is the identifier at the 1-based character column col of a
// line, "" when there is none.
func token(line []rune, col int) string {
	i := col - 1
	if i < 0 || i >= len(line) {
		return ""
	}
	j := i
	for j < len(line) && isIdent(line[j]) {
		j++
	}
	return string(line[i:j])
}

// namespaceMember returns ns when the text before a name ends in "ns.".
func namespaceMember(head string) (string, bool) {
	h, ok := strings.CutSuffix(head, ".")
	if !ok {
		return "", false
	}
	r := []rune(h)
	i := len(r)
	for i > 0 && isIdent(r[i-1]) {
		i--
	}
	if i == len(r) {
		return "", false
	}
	return string(r[i:]), true
}

// srcPackage reports whether the corpus has a package ns under src/.
func (c *comparer) srcPackage(ns string) bool {
	fi, err := os.Stat(filepath.Join(c.src.root, "src", ns, "__init__.py"))
	return err == nil && !fi.IsDir()
}

// installedLacks reports whether sym, declared in the project's package
// laid out under src/, has a copy of that package installed in the Python
// environment (python3 on PATH) whose module does not declare its name at
// the top level or in a class (class, def, or an assignment).
func (c *comparer) installedLacks(sym graph.Symbol) bool {
	rel, ok := strings.CutPrefix(sym.Path, "src/")
	pkg, mod, ok2 := strings.Cut(rel, "/")
	if !ok || !ok2 || !c.srcPackage(pkg) {
		return false
	}
	if c.installed == nil {
		c.installed = map[string]string{}
	}
	dir, seen := c.installed[pkg]
	if !seen {
		// The interpreter runs outside the corpus, and imports nothing
		// from its working directory.
		cmd := exec.Command("python3", "-c", "import importlib.util, sys\ns = importlib.util.find_spec(sys.argv[1])\nprint(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')", pkg)
		cmd.Dir, cmd.Env = os.TempDir(), append(os.Environ(), "PYTHONSAFEPATH=1")
		out, err := cmd.Output()
		if err == nil {
			dir = strings.TrimSpace(string(out))
		}
		c.installed[pkg] = dir
	}
	if dir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(mod)))
	if err != nil {
		return true // the installed copy has no such module
	}
	decl := regexp.MustCompile(`(?m)^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+` + regexp.QuoteMeta(sym.Name) + `\b|^[ \t]*` + regexp.QuoteMeta(sym.Name) + `[ \t]*[:=]`)
	return !decl.Match(b)
}

// namespaceImport reports whether path imports a module as ns
// (import * as ns from).
func (c *comparer) namespaceImport(path, ns string) bool {
	for _, l := range c.src.file(path) {
		if strings.Contains(l, "import * as "+ns+" from") || strings.Contains(l, "import type * as "+ns+" from") {
			return true
		}
	}
	return false
}

// declares reports whether the text before a name declares it: "class ",
// "def ", "function ", "interface ", "type ", "const ", "let ", "var ".
func declares(head, name string) bool {
	h := strings.TrimRight(head, " ")
	for _, kw := range []string{"class", "def", "function", "interface", "type", "const", "let", "var"} {
		if h == kw || strings.HasSuffix(h, " "+kw) || strings.HasSuffix(h, "\t"+kw) {
			return true
		}
	}
	return false
}

// pyrightReads reports whether path is among the files the corpus's
// pyright configuration includes: the include of its pyrightconfig.json
// when it has one (which pyright prefers), otherwise of the
// [tool.pyright] of its pyproject.toml; every file when it names none.
func (c *comparer) pyrightReads(path string) bool {
	c.readPyright()
	if len(c.include) == 0 {
		return true
	}
	for _, dir := range c.include {
		dir = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(dir)), "/")
		if dir == "." || path == dir || strings.HasPrefix(path, dir+"/") {
			return true
		}
	}
	return false
}

// readPyright reads the corpus's pyright configuration once.
func (c *comparer) readPyright() {
	if c.include != nil {
		return
	}
	var cfg pyrightConfig
	if b, err := os.ReadFile(filepath.Join(c.src.root, "pyrightconfig.json")); err == nil {
		json.Unmarshal(b, &cfg) // unreadable: pyright's defaults
	} else {
		var proj struct {
			Tool struct {
				Pyright pyrightConfig `toml:"pyright"`
			} `toml:"tool"`
		}
		toml.DecodeFile(filepath.Join(c.src.root, "pyproject.toml"), &proj) // no file or no section: every file
		cfg = proj.Tool.Pyright
	}
	c.include = append([]string{}, cfg.Include...)
	c.platform = cfg.PythonPlatform
}

// pyrightConfig is what the comparison reads of pyright's configuration.
type pyrightConfig struct {
	Include        []string `json:"include" toml:"include"`
	PythonPlatform string   `json:"pythonPlatform" toml:"pythonPlatform"`
}

// unreachable reports whether pyright reads no code at line of path: a
// module that asserts sys.platform is Windows, past the assertion, on
// Linux (pyright's platform, unless its configuration says otherwise).
func (c *comparer) unreachable(path string, line int) bool {
	c.readPyright()
	if c.platform != "" && c.platform != "Linux" {
		return false
	}
	for i, l := range c.src.file(path) {
		if i+1 >= line {
			return false
		}
		if strings.HasPrefix(strings.TrimSpace(l), `assert sys.platform == "win32"`) {
			return true
		}
	}
	return false
}

// merged reports whether sym's file declares its name both as a value
// (const, let, var, function, class) and as a type (interface, type).
func (c *comparer) merged(sym graph.Symbol) bool {
	value, typ := false, false
	for _, l := range c.src.file(sym.Path) {
		t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "export "), "declare ")
		for _, kw := range []string{"const ", "let ", "var ", "function ", "class "} {
			if rest, ok := strings.CutPrefix(t, kw); ok && startsName(rest, sym.Name) {
				value = true
			}
		}
		for _, kw := range []string{"interface ", "type "} {
			if rest, ok := strings.CutPrefix(t, kw); ok && startsName(rest, sym.Name) {
				typ = true
			}
		}
	}
	return value && typ
}

func startsName(s, name string) bool {
	rest, ok := strings.CutPrefix(s, name)
	if !ok {
		return false
	}
	r := []rune(rest)
	return len(r) == 0 || !isIdent(r[0])
}

func splitLoc(at string) (string, int, int) {
	var line, col int
	i := strings.LastIndexByte(at, ':')
	j := strings.LastIndexByte(at[:i], ':')
	fmt.Sscanf(at[j+1:i], "%d", &line)
	fmt.Sscanf(at[i+1:], "%d", &col)
	return at[:j], line, col
}

func (t *parityTool) finish() {
	t.FoundPc = pct(t.Found, t.Server)
	t.ExtraPc = pct(t.Extra, t.Server)
	// The same without the differences by design: the locations where
	// the tool answers another question than the server's.
	server, extra := t.Server, t.Extra
	for _, d := range t.Differences {
		if strings.HasPrefix(d.Cause, byDesign+":") {
			if d.Side == "server" {
				server--
			} else {
				extra--
			}
		}
	}
	t.FoundPcNotByDesign = pct(t.Found, server)
	t.ExtraPcNotByDesign = pct(extra, server)
	slices.SortFunc(t.Differences, func(a, b difference) int {
		return strings.Compare(a.Cause+a.Symbol+a.At, b.Cause+b.Symbol+b.At)
	})
}

func pct(n, of int) float64 {
	if of == 0 {
		return 100 * float64(min(n, 1)) // nothing to find: 0% of nothing, or all extra
	}
	return 100 * float64(n) / float64(of)
}

// serverRefs asks lsp_references at the declaring identifier of sym;
// it returns the locations inside the root and how many lay outside.
func serverRefs(ctx context.Context, s *server, sym graph.Symbol, at [2]int) ([]string, int, time.Duration, error) {
	var locs []string
	outside := 0
	d, err := allPages(ctx, s, "lsp_references", map[string]any{"file": sym.Path, "line": at[0], "column": at[1], "limit": 500},
		func(a *locationsAnswer) *page {
			for _, r := range a.Results {
				if filepath.IsAbs(r.Path) {
					outside++
					continue
				}
				locs = append(locs, fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Column))
			}
			return &a.page
		})
	return locs, outside, d, err
}

// sextantRefs is find_references of sym's key.
func sextantRefs(ctx context.Context, s *server, key string) ([]string, *refsAnswer, time.Duration, error) {
	var locs []string
	var first *refsAnswer
	d, err := allPages(ctx, s, "find_references", map[string]any{"stable_key": key, "limit": 500},
		func(a *refsAnswer) *page {
			if first == nil {
				first = a
			}
			for _, f := range a.Results {
				for _, r := range f.References {
					locs = append(locs, fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column))
				}
			}
			return &a.page
		})
	return locs, first, d, err
}

// serverImpls asks textDocument/implementation through lsp_request at
// the declaring identifier of sym, the symbol's own declaration left out
// (the server answers a concrete class or method with itself).
func serverImpls(ctx context.Context, s *server, src *sources, sym graph.Symbol, at [2]int) ([]string, int, error) {
	line := src.line(sym.Path, at[0])
	params := map[string]any{"textDocument": map[string]any{"uri": "$file_uri"},
		"position": map[string]any{"line": at[0] - 1, "character": lsptest.UTF16Column(line, at[1])}}
	p, _ := json.Marshal(params)
	var a requestAnswer
	if _, err := s.call(ctx, "lsp_request", map[string]any{"method": "textDocument/implementation", "params": string(p), "file": sym.Path}, &a); err != nil {
		return nil, 0, err
	}
	if a.Encoding != "" && a.Encoding != "utf-16" {
		return nil, 0, fmt.Errorf("server's position encoding is %s, not utf-16", a.Encoding)
	}
	var raw []struct {
		URI       string `json:"uri"`
		TargetURI string `json:"targetUri"`
		Range     struct {
			Start struct{ Line, Character int } `json:"start"`
		} `json:"range"`
		TargetSelectionRange struct {
			Start struct{ Line, Character int } `json:"start"`
		} `json:"targetSelectionRange"`
	}
	if len(a.Result) > 0 && string(a.Result) != "null" {
		if err := json.Unmarshal(a.Result, &raw); err != nil {
			return nil, 0, fmt.Errorf("decoding the implementations: %w", err)
		}
	}
	self := loc(sym.Path, at)
	var out []string
	outside := 0
	for _, l := range raw {
		uri, start := l.URI, l.Range.Start
		if uri == "" {
			uri, start = l.TargetURI, l.TargetSelectionRange.Start
		}
		abs, err := lsptest.URIPath(uri)
		if err != nil {
			return nil, 0, err
		}
		rel, err := filepath.Rel(src.root, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			outside++
			continue
		}
		rel = filepath.ToSlash(rel)
		text := src.line(rel, start.Line+1)
		at := fmt.Sprintf("%s:%d:%d", rel, start.Line+1, lsptest.CharColumn(text, start.Character))
		if at != self {
			out = append(out, at)
		}
	}
	return out, outside, nil
}

// sextantImpls is find_implementations of sym as the declaring
// identifiers of its answers, and the answer's direction; nothing for a
// symbol that is not a type or method.
func sextantImpls(ctx context.Context, s *server, c *comparer, key string) ([]string, string, error) {
	var locs []string
	direction := ""
	_, err := allPages(ctx, s, "find_implementations", map[string]any{"stable_key": key, "limit": 500},
		func(a *implsAnswer) *page {
			direction = a.Direction
			for _, r := range a.Results {
				if r.Value != "" {
					locs = append(locs, fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Col))
					continue
				}
				sym, ok := c.keys[r.StableKey]
				if !ok {
					locs = append(locs, fmt.Sprintf("%s:%d:?", r.Path, r.Line))
					continue
				}
				if at, ok := c.src.declIdent(sym); ok {
					locs = append(locs, loc(sym.Path, at))
				}
			}
			return &a.page
		})
	var te *toolError
	if errors.As(err, &te) && strings.Contains(te.text, string(graph.CodeInvalidArgument)) {
		return nil, "", nil
	}
	if direction != "implementations" {
		// Of a Go type or method, find_implementations answers the
		// interfaces it satisfies, a question the server does not answer.
		return nil, direction, err
	}
	return locs, direction, err
}

// serveParts runs parity and latency on one corpus's index.
func serveParts(ctx context.Context, o options, sextant, root, db string, lr *languageResult) error {
	all, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return err
	}
	src := newSources(root)
	s, err := serve(ctx, sextant, root, db)
	if err != nil {
		return err
	}
	defer s.Close()
	if !o.Skips("parity") {
		if err := parity(ctx, o, s, src, all, lr); err != nil {
			return err
		}
	}
	if !o.Skips("latency") {
		lat, err := latency(ctx, o, s, all)
		if err != nil {
			return err
		}
		lr.Latency = lat
	}
	return nil
}

func parity(ctx context.Context, o options, s *server, src *sources, all []graph.Symbol, lr *languageResult) error {
	c := newComparer(src, all)
	syms := pickSymbols(all, lr.Language, o.symbols, src)
	logf("%s: parity on %d symbols", lr.Language, len(syms))
	refs := &parityTool{Tool: "find_references", Request: "textDocument/references"}
	impls := &parityTool{Tool: "find_implementations", Request: "textDocument/implementation"}
	if err := warmUp(ctx, s, src, syms, lr); err != nil {
		return err
	}
	// The server is asked twice over: an answer that changed in the second
	// pass was given before the server had read the whole project; the
	// second is the one compared, and its times are the latency.
	type asked struct {
		locs    []string
		outside int
		d       time.Duration
		err     error
	}
	pass := func() []asked {
		out := make([]asked, len(syms))
		for i, sym := range syms {
			at, _ := src.declIdent(sym)
			a := &out[i]
			a.locs, a.outside, a.d, a.err = serverRefs(ctx, s, sym, at)
		}
		return out
	}
	first := pass()
	second := pass()
	for i := range syms {
		if first[i].err == nil && second[i].err == nil && !slices.Equal(dedup(first[i].locs), dedup(second[i].locs)) {
			lr.ChangedOnSecondAsk = append(lr.ChangedOnSecondAsk, fmt.Sprintf("%s: %d then %d", syms[i].QualifiedName, len(first[i].locs), len(second[i].locs)))
		}
	}
	var lspTimes, findTimes []time.Duration
	for i, sym := range syms {
		at, _ := src.declIdent(sym)
		ps := paritySymbol{Key: sym.Key, QualifiedName: sym.QualifiedName, Kind: string(sym.Kind), At: loc(sym.Path, at)}
		server, outside, d, err := second[i].locs, second[i].outside, second[i].d, second[i].err
		if err != nil {
			refs.Errors = append(refs.Errors, fmt.Sprintf("%s: %v", sym.QualifiedName, err))
			continue
		}
		lspTimes = append(lspTimes, d)
		ps.LSPRefs = d
		refs.OutsideRoot += outside
		mine, _, fd, err := sextantRefs(ctx, s, sym.Key)
		if err != nil {
			refs.Errors = append(refs.Errors, fmt.Sprintf("%s: %v", sym.QualifiedName, err))
			continue
		}
		ps.FindRefs = fd
		findTimes = append(findTimes, fd)
		ps.ServerRefs, ps.SextantRefs = len(server), len(mine)
		refs.compare(c, sym, server, mine)
		lr.Symbols = append(lr.Symbols, ps)
		if lr.Language != "typescript" {
			continue // pyright 1.1.407 answers textDocument/implementation with "Unhandled method"
		}
		compareImpls(ctx, s, src, c, impls, sym, at)
	}
	if lr.Language == "typescript" && o.implSymbols > 0 {
		picked := map[string]bool{}
		for _, sym := range syms {
			picked[sym.Key] = true
		}
		more := pickFrom(implCategories, all, lr.Language, o.implSymbols, src, picked)
		logf("%s: implementations of %d more classes, types, interfaces and methods", lr.Language, len(more))
		for _, sym := range more {
			at, _ := src.declIdent(sym)
			compareImpls(ctx, s, src, c, impls, sym, at)
		}
	}
	refs.finish()
	lr.Parity = append(lr.Parity, refs)
	if lr.Language == "typescript" {
		impls.finish()
		lr.Parity = append(lr.Parity, impls)
	}
	lr.LSPReferences = harness.Summarize(lspTimes)
	lr.ParityFindReferences = harness.Summarize(findTimes)
	return nil
}

// compareImpls asks the server and find_implementations for the
// implementations of sym, declared at at, and adds the comparison to
// impls (an error to its errors).
func compareImpls(ctx context.Context, s *server, src *sources, c *comparer, impls *parityTool, sym graph.Symbol, at [2]int) {
	simpl, out, err := serverImpls(ctx, s, src, sym, at)
	if err != nil {
		impls.Errors = append(impls.Errors, fmt.Sprintf("%s: %v", sym.QualifiedName, err))
		return
	}
	impls.OutsideRoot += out
	mimpl, direction, err := sextantImpls(ctx, s, c, sym.Key)
	if err != nil {
		impls.Errors = append(impls.Errors, fmt.Sprintf("%s: %v", sym.QualifiedName, err))
		return
	}
	impls.compareDir(c, sym, simpl, mimpl, direction)
}

// warmUp asks the server for the references of the picked symbol that
// find_references says is used most, until its answer is the same three
// times in a row: typescript-language-server answers from the files
// already open (an inferred project) until the configured project has
// loaded, which takes tens of seconds on a corpus this size, and its
// answers before are incomplete, not wrong (a timed-out ask counts -1). Its first call and how long
// the answers took to settle are recorded.
func warmUp(ctx context.Context, s *server, src *sources, syms []graph.Symbol, lr *languageResult) error {
	var probe graph.Symbol
	most := -1
	for _, sym := range syms {
		mine, _, _, err := sextantRefs(ctx, s, sym.Key)
		if err != nil {
			return err
		}
		if len(mine) > most {
			probe, most = sym, len(mine)
		}
	}
	at, _ := src.declIdent(probe)
	start := time.Now()
	last, same := -1, 0
	for time.Since(start) < 5*time.Minute {
		locs, _, d, err := serverRefs(ctx, s, probe, at)
		var te *toolError
		if errors.As(err, &te) && strings.Contains(te.text, "LSP_TIMEOUT") {
			// A server still reading its project may miss the bridge's
			// deadline: asked again.
			lr.WarmUpCounts = append(lr.WarmUpCounts, -1)
			continue
		}
		if err != nil {
			return fmt.Errorf("warming the server up on %s: %w", probe.QualifiedName, err)
		}
		if lr.LSPFirstCall == 0 {
			lr.LSPFirstCall = d
		}
		lr.WarmUpCounts = append(lr.WarmUpCounts, len(locs))
		if len(locs) == last {
			same++
		} else {
			last, same = len(locs), 1
		}
		if same == 3 {
			break
		}
		time.Sleep(2 * time.Second)
	}
	lr.WarmUp = time.Since(start)
	lr.WarmUpProbe = probe.QualifiedName
	logf("%s: the server's references of %s settled at %d after %s (%v)", lr.Language, probe.QualifiedName, last, lr.WarmUp.Round(time.Millisecond), lr.WarmUpCounts)
	return nil
}

func (t *parityTool) compare(c *comparer, sym graph.Symbol, server, sextant []string) {
	c.compare(t, sym, server, sextant, "")
}

func (t *parityTool) compareDir(c *comparer, sym graph.Symbol, server, sextant []string, direction string) {
	c.compare(t, sym, server, sextant, direction)
}

func dedup(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return slices.Compact(xs)
}
