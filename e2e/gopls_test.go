package e2e_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/syntax"
)

// The peer the references and implementations are held to.
const goplsVersion = "v0.23.0"

// goplsKnownDifferences lists the positions where gopls v0.23.0 answers
// differently from find_references on cobra, each with the reason gopls
// is the one that is wrong (or answers another question). A position is
// spelled "Symbol.QualifiedName path:line:column"; "+" marks a use only
// gopls reports, "-" one only sextant reports.
var goplsKnownDifferences = map[string]string{}

// goplsImplDifferences is the same for find_implementations, keyed
// "Symbol.QualifiedName path:line".
var goplsImplDifferences = map[string]string{}

// goplsBinary returns the gopls to compare with: on PATH, else in
// $(go env GOPATH)/bin. Without one the test is skipped, loudly, except
// in CI (CI=true), where .ci/run installs it and its absence is a failure.
func goplsBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "gopls")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
	}
	msg := "gopls is not installed (GOFLAGS= go install golang.org/x/tools/gopls@" + goplsVersion + "): the gopls parity test cannot run"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Log("SKIPPED: " + msg)
	t.Skip(msg)
	return ""
}

// paritySymbol is one symbol of the index that the test asks both about.
type paritySymbol struct {
	key, kind, name, qualified string
	path                       string
	startLine, endLine         int
	// Where its declaring identifier is: 1-based line, 1-based column in
	// characters.
	line, col int
}

// parityQuota is how many symbols of each kind the test picks: at least
// 40 in all, every kind represented (cobra declares one interface, with
// one method, and three packages: all are taken).
var parityQuota = map[string]int{
	"func": 9, "method": 9, "type": 6, "interface": 100, "field": 9,
	"var": 5, "const": 5, "interface_method": 100, "package": 100,
}

// TestGoplsParity holds find_references and find_implementations to
// gopls on cobra: for symbols of every kind picked deterministically from
// the index, one gopls session answers textDocument/references (without
// the declaration) and textDocument/implementation at each symbol's
// declaring identifier, and sextant must answer exactly the same
// positions, but for the differences listed (with reasons) above.
// SEXTANT_GOPLS_ALL=1 compares every symbol instead (minutes, not seconds).
func TestGoplsParity(t *testing.T) {
	bin := goplsBinary(t)
	cs := sharedIndex(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	if !strings.Contains(string(out), goplsVersion) {
		t.Logf("warning: comparing with %s, not gopls %s", strings.TrimSpace(string(out)), goplsVersion)
	}
	syms := pickParitySymbols(t)
	if len(syms) < 40 {
		t.Fatalf("picked %d symbols, want at least 40", len(syms))
	}
	kinds := map[string]int{}
	for _, s := range syms {
		kinds[s.kind]++
	}
	for k := range parityQuota {
		if kinds[k] == 0 {
			t.Errorf("no symbol of kind %s picked", k)
		}
	}

	lc := startLSP(t, bin, cobraDir, "serve")
	watchdog := time.AfterFunc(10*time.Minute, func() { _ = lc.Cmd.Process.Kill() })
	defer watchdog.Stop()
	files := newFileCache(cobraDir)

	var positions, matched, implQueries, implResults int
	usedKnown := map[string]bool{}
	for _, s := range syms {
		uri := fileURI(filepath.Join(cobraDir, filepath.FromSlash(s.path)))
		pos := lspPosition{Line: s.line - 1, Character: utf16Column(files.line(s.path, s.line), s.col)}
		var locs []lspLocation
		if err := lc.call("textDocument/references", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     pos,
			"context":      map[string]any{"includeDeclaration": false},
		}, &locs); err != nil {
			t.Fatalf("gopls references of %s (%s:%d:%d): %v", s.qualified, s.path, s.line, s.col, err)
		}
		want := map[string]bool{}
		for _, l := range locs {
			if p, ok := files.position(l); ok {
				want[p] = true
			}
		}
		got := map[string]bool{}
		for _, p := range allReferences(t, cs, s.key) {
			got[p] = true
		}
		positions += len(want)
		for p := range want {
			if got[p] {
				matched++
				continue
			}
			id := s.qualified + " +" + p
			if _, ok := goplsKnownDifferences[id]; ok {
				usedKnown[id] = true
				continue
			}
			t.Errorf("find_references %s (%s %s:%d:%d): gopls reports a use at %s that sextant does not\n    %s",
				s.qualified, s.kind, s.path, s.line, s.col, p, files.text(p))
		}
		for p := range got {
			if want[p] {
				continue
			}
			id := s.qualified + " -" + p
			if _, ok := goplsKnownDifferences[id]; ok {
				usedKnown[id] = true
				continue
			}
			t.Errorf("find_references %s (%s %s:%d:%d): sextant reports a use at %s that gopls does not\n    %s",
				s.qualified, s.kind, s.path, s.line, s.col, p, files.text(p))
		}

		switch s.kind {
		case "type", "interface", "method", "interface_method":
		default:
			continue
		}
		implQueries++
		var impls []lspLocation
		if err := lc.call("textDocument/implementation", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     pos,
		}, &impls); err != nil {
			t.Fatalf("gopls implementation of %s: %v", s.qualified, err)
		}
		wantImpl := map[string]bool{}
		for _, l := range impls {
			// Only what the index can hold: declarations in the repository.
			if p, ok := files.position(l); ok {
				wantImpl[p[:strings.LastIndex(p, ":")]] = true
			}
		}
		gotImpl := map[string]bool{}
		for _, r := range allImplementations(t, cs, s.key) {
			gotImpl[fmt.Sprintf("%s:%d", r.Path, r.Line)] = true
		}
		implResults += len(wantImpl)
		for p := range wantImpl {
			if !gotImpl[p] && !known(goplsImplDifferences, usedKnown, s.qualified+" +"+p) {
				t.Errorf("find_implementations %s: gopls reports %s, sextant does not", s.qualified, p)
			}
		}
		for p := range gotImpl {
			if !wantImpl[p] && !known(goplsImplDifferences, usedKnown, s.qualified+" -"+p) {
				t.Errorf("find_implementations %s: sextant reports %s, gopls does not", s.qualified, p)
			}
		}
	}
	for id := range goplsKnownDifferences {
		if !usedKnown[id] {
			t.Errorf("known difference %q no longer occurs; remove it from the list", id)
		}
	}
	for id := range goplsImplDifferences {
		if !usedKnown[id] {
			t.Errorf("known implementation difference %q no longer occurs; remove it from the list", id)
		}
	}
	t.Logf("gopls parity: %d symbols (%v), %d reference positions from gopls, %d matched, %d known differences; %d implementation queries, %d results",
		len(syms), kinds, positions, matched, len(usedKnown), implQueries, implResults)
}

func known(list map[string]string, used map[string]bool, id string) bool {
	if _, ok := list[id]; ok {
		used[id] = true
		return true
	}
	return false
}

// pickParitySymbols lists the declarations of cobra's Go files (the
// directories the module's packages are in) with the stable keys the
// index gives them, through get_file_outline, and picks the quota of each
// kind spread evenly over the files, sorted by path and line.
func pickParitySymbols(t *testing.T) []paritySymbol {
	t.Helper()
	cs := sharedIndex(t)
	byKind := map[string][]paritySymbol{}
	for _, dir := range []string{".", "doc"} {
		out, _ := callOK[outlineKeysOut](t, cs, "get_file_outline", map[string]any{"path": dir, "response_format": "detailed", "limit": 500})
		for _, f := range out.Results {
			add := func(key, kind, name, qualified string, start, end int) {
				if key != "" && name != "_" {
					byKind[kind] = append(byKind[kind], paritySymbol{key: key, kind: kind, name: name,
						qualified: qualified, path: f.Path, startLine: start, endLine: end})
				}
			}
			for _, e := range f.Entries {
				// A method outside its type's file is an entry named Type.Method.
				add(e.StableKey, e.Kind, e.Name[strings.LastIndex(e.Name, ".")+1:], e.Name, e.StartLine, e.EndLine)
				for _, m := range e.Members {
					add(m.StableKey, m.Kind, m.Name, e.Name+"."+m.Name, m.StartLine, m.EndLine)
				}
			}
		}
	}
	// Packages are not in outlines: find_symbol lists them, each placed at
	// the file that carries its package clause.
	pkgs, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "o", "mode": "substring", "kind": "package"})
	for _, p := range pkgs.Results {
		byKind["package"] = append(byKind["package"], paritySymbol{key: p.StableKey, kind: "package", name: p.Name,
			qualified: p.QualifiedName, path: p.Path, startLine: p.StartLine, endLine: p.EndLine})
	}
	var picked []paritySymbol
	for kind, quota := range parityQuota {
		if os.Getenv("SEXTANT_GOPLS_ALL") != "" {
			quota = 1 << 20 // every symbol of the index, for a thorough local run
		}
		cands := byKind[kind]
		sort.Slice(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if a.path != b.path {
				return a.path < b.path
			}
			if a.startLine != b.startLine {
				return a.startLine < b.startLine
			}
			return a.name < b.name
		})
		n := min(quota, len(cands))
		for i := 0; i < n; i++ {
			picked = append(picked, cands[i*len(cands)/n])
		}
	}
	sort.Slice(picked, func(i, j int) bool {
		if picked[i].path != picked[j].path {
			return picked[i].path < picked[j].path
		}
		return picked[i].startLine < picked[j].startLine
	})
	idents := map[string][]declIdent{}
	for i := range picked {
		s := &picked[i]
		ids, ok := idents[s.path]
		if !ok {
			ids = declIdents(t, filepath.Join(cobraDir, filepath.FromSlash(s.path)))
			idents[s.path] = ids
		}
		for _, id := range ids {
			if id.name == s.name && id.line >= s.startLine && id.line <= s.endLine {
				s.line, s.col = id.line, id.col
				break
			}
		}
		if s.line == 0 {
			t.Fatalf("no declaring identifier for %s %s in %s:%d-%d", s.kind, s.qualified, s.path, s.startLine, s.endLine)
		}
	}
	return picked
}

// outlineKeysOut is get_file_outline's detailed answer, with keys.
type outlineKeysOut struct {
	envelope
	Results []struct {
		Path    string `json:"path"`
		Entries []struct {
			Name      string `json:"name"`
			Kind      string `json:"kind"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
			StableKey string `json:"stable_key"`
			Members   []struct {
				Name      string `json:"name"`
				Kind      string `json:"kind"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
				StableKey string `json:"stable_key"`
			} `json:"members"`
		} `json:"entries"`
	} `json:"results"`
}

// declIdent is a declaring identifier: 1-based line and character column.
type declIdent struct {
	name      string
	line, col int
}

// declIdents lists the identifiers that declare something in a file, in
// source order: the package name, functions, methods, types, constants,
// variables, fields (the type name of an embedded one) and interface
// methods.
func declIdents(t *testing.T, file string) []declIdent {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var out []declIdent
	for _, id := range syntax.DeclIdents(f) {
		p := fset.Position(id.Pos())
		out = append(out, declIdent{name: id.Name, line: p.Line, col: byteToCharColumn(lines[p.Line-1], p.Column)})
	}
	return out
}

// fileCache reads the repository's files once, for position conversion
// and failure messages.
type fileCache struct {
	root  string
	lines map[string][]string
}

func newFileCache(root string) *fileCache {
	return &fileCache{root: root, lines: map[string][]string{}}
}

func (c *fileCache) file(rel string) []string {
	ls, ok := c.lines[rel]
	if !ok {
		data, _ := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
		ls = strings.Split(string(data), "\n")
		c.lines[rel] = ls
	}
	return ls
}

// line returns line n (1-based) of a repo-relative file.
func (c *fileCache) line(rel string, n int) string {
	ls := c.file(rel)
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}

// position converts an LSP location to "path:line:column" (repo-relative,
// 1-based, characters); false when it is outside the root.
func (c *fileCache) position(l lspLocation) (string, bool) {
	p, err := uriPath(l.URI)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(c.root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	line := l.Range.Start.Line + 1
	return fmt.Sprintf("%s:%d:%d", rel, line, charColumn(c.line(rel, line), l.Range.Start.Character)), true
}

// text returns the trimmed source line at a "path:line:column" position.
func (c *fileCache) text(pos string) string {
	var rel string
	var line, col int
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return ""
	}
	rel = strings.Join(parts[:len(parts)-2], ":")
	fmt.Sscan(parts[len(parts)-2], &line)
	fmt.Sscan(parts[len(parts)-1], &col)
	return strings.TrimSpace(c.line(rel, line))
}
