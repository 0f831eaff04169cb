package index

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// The tests in this file compare the references and implementations
// Extract records with what gopls answers for the same symbols. They need
// gopls (v0.23.0 is the reference) and run only when SEXTANT_GOPLS names
// its binary, e.g.
//
//	SEXTANT_GOPLS=$(go env GOPATH)/bin/gopls go test ./internal/index -run Gopls
//
// SEXTANT_GOPLS_ROOT indexes another tree instead of the fixtures (e.g. a
// copy of golang.org/x/tools), checking SEXTANT_GOPLS_SAMPLE of its
// symbols (200 by default) from SEXTANT_GOPLS_OFFSET in key order, those
// whose package-qualified name contains SEXTANT_GOPLS_MATCH if it is set.

// lspClient is a minimal LSP client for gopls over stdio.
type lspClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	mu     sync.Mutex
	nextID int
	stderr string // file holding gopls's standard error
}

// crash returns the panic or fatal error gopls reported, if any.
func (c *lspClient) crash() string {
	b, _ := os.ReadFile(c.stderr)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:") {
			return line
		}
	}
	return ""
}

func startGopls(t *testing.T, bin, root string) *lspClient {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = root
	stderr, err := os.Create(filepath.Join(t.TempDir(), "gopls.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &lspClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: stderr.Name()}
	t.Cleanup(func() {
		_, _ = c.call("shutdown", nil)
		_ = c.notify("exit", nil)
		_ = in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	uri := fileURI(root)
	if _, err := c.call("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "root"}},
		"capabilities":     map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-16"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return c
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (c *lspClient) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *lspClient) notify(method string, params any) error {
	return c.write(map[string]any{"method": method, "params": params})
}

// call sends a request and reads messages until its response, answering
// the server's own requests with nothing.
func (c *lspClient) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		var n int
		for {
			line, err := c.out.ReadString('\n')
			if err != nil {
				return nil, err
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c.out, body); err != nil {
			return nil, err
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			return nil, err
		}
		switch {
		case msg.Method != "" && msg.ID != nil: // a request from the server
			var result any
			if msg.Method == "workspace/configuration" {
				var p struct{ Items []any }
				_ = json.Unmarshal(msg.Params, &p)
				result = make([]any, len(p.Items))
			}
			if err := c.write(map[string]any{"id": msg.ID, "result": result}); err != nil {
				return nil, err
			}
		case msg.Method != "": // a notification
		case string(msg.ID) == strconv.Itoa(id):
			if msg.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
			}
			return msg.Result, nil
		}
	}
}

type lspLocation struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct{ Line, Character int }
		End   struct{ Line, Character int }
	} `json:"range"`
}

// locations asks method (references or implementation) at the 1-based
// line and character column of file and returns "path:line:col" strings
// (repo-relative, character columns), sorted.
func (c *lspClient) locations(root, method, file string, line, col int, lines func(string) []string) ([]string, error) {
	params := map[string]any{
		"textDocument": map[string]any{"uri": fileURI(file)},
		"position":     map[string]any{"line": line - 1, "character": utf16Col(lines(file), line, col) - 1},
	}
	if method == "textDocument/references" {
		params["context"] = map[string]any{"includeDeclaration": false}
	}
	raw, err := c.call(method, params)
	if err != nil {
		return nil, err
	}
	var locs []lspLocation
	if err := json.Unmarshal(raw, &locs); err != nil {
		return nil, err
	}
	var out []string
	for _, l := range locs {
		u, err := url.Parse(l.URI)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, u.Path)
		if err != nil || !filepath.IsLocal(rel) {
			out = append(out, "outside:"+u.Path)
			continue
		}
		ln := l.Range.Start.Line + 1
		out = append(out, fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), ln, charCol(lines(u.Path), ln, l.Range.Start.Character+1)))
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// utf16Col converts a character column to a UTF-16 one.
func utf16Col(lines []string, line, col int) int {
	if line-1 >= len(lines) {
		return col
	}
	n := 1
	for i, r := range []rune(lines[line-1]) {
		if i+1 >= col {
			break
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// charCol converts a UTF-16 column to a character one.
func charCol(lines []string, line, col int) int {
	if line-1 >= len(lines) {
		return col
	}
	units, chars := 1, 1
	for _, r := range lines[line-1] {
		if units >= col {
			break
		}
		units += len(utf16.Encode([]rune{r}))
		chars++
	}
	return chars
}

// goplsOracle runs the comparison for one tree.
type goplsOracle struct {
	root   string
	out    xrefOutput
	x      *extractor
	syms   map[string]graph.Symbol
	decls  map[string]string // key → "abs:line:col" of its declaring identifier (character column)
	files  map[string][]string
	bin    string
	client *lspClient
}

func (o *goplsOracle) lines(file string) []string {
	if l, ok := o.files[file]; ok {
		return l
	}
	b, _ := os.ReadFile(file)
	l := strings.Split(string(b), "\n")
	o.files[file] = l
	return l
}

// ours returns the references of key as find_references would list them
// for gopls parity: the key's own references (implicit ones included),
// plus, for a method, the direct references of the methods related to it
// by implementation (see relatedMethods).
func (o *goplsOracle) ours(key string) []string {
	targets := map[string]bool{key: true}
	for _, k := range o.relatedMethods(key) {
		targets[k] = true
	}
	var out []string
	for _, r := range o.out.refs {
		if r.Target == key || !r.Implicit && targets[r.Target] {
			out = append(out, fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Col))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// relatedMethods applies gopls's method expansion to the implementation
// records: a concrete method relates to the methods of the interfaces its
// receiver type satisfies; an interface method to the corresponding
// methods of the types that satisfy its interface (promoted ones
// included) and to those of the interfaces it satisfies.
func (o *goplsOracle) relatedMethods(key string) []string {
	s := o.syms[key]
	if s.Kind != graph.KindMethod && s.Kind != graph.KindInterfaceMethod {
		return nil
	}
	typePair := map[[2]string]bool{}
	for _, im := range o.out.impls {
		typePair[[2]string{im.Type, im.Interface}] = true
	}
	var out []string
	for _, im := range o.out.impls {
		switch {
		case im.Type == key && typePair[[2]string{s.Parent, o.syms[im.Interface].Parent}]:
			out = append(out, im.Interface)
		case im.Interface == key && s.Kind == graph.KindInterfaceMethod &&
			(s.Exported || typePair[[2]string{o.syms[im.Type].Parent, s.Parent}]):
			// For an unexported name gopls looks only in the declaring
			// package, and relates methods by their declaring receivers:
			// a method promoted into an implementing type does not count.
			out = append(out, im.Type)
		}
	}
	return out
}

// oursImpl returns what find_implementations would list for key, as
// declaring-identifier positions.
func (o *goplsOracle) oursImpl(key string) []string {
	s := o.syms[key]
	if target := o.aliasTarget(s); target != "" {
		key, s = target, o.syms[target]
	}
	typePair := map[[2]string]bool{}
	for _, im := range o.out.impls {
		typePair[[2]string{im.Type, im.Interface}] = true
	}
	var out []string
	for _, im := range o.out.impls {
		other := ""
		switch {
		case im.Interface == key:
			other = im.Type
		case im.Type == key && s.Kind == graph.KindType:
			other = im.Interface
		case im.Type == key && s.Kind == graph.KindMethod && typePair[[2]string{s.Parent, o.syms[im.Interface].Parent}]:
			// A concrete method: the interface methods of the interfaces
			// its own receiver type satisfies (not those of a type it is
			// promoted into).
			other = im.Interface
		}
		if other == "" {
			continue
		}
		if d, ok := o.decls[other]; ok {
			rel, _ := filepath.Rel(o.root, d)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func newGoplsOracle(t *testing.T, bin, root string) *goplsOracle {
	t.Helper()
	plan, pkgs := loadFixture(t, root)
	o := &goplsOracle{root: root, syms: map[string]graph.Symbol{}, decls: map[string]string{}, files: map[string][]string{}}
	x, err := newExtractor("repo", root, plan.Modules)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range selectPackages(pkgs) {
		rec, xr := x.extract(context.Background(), g)
		release(g)
		x.keep(xr)
		for _, s := range rec.Symbols {
			o.syms[s.Key] = s
			if s.Kind == graph.KindPackage { // at the name in the package clause
				o.decls[s.Key] = fmt.Sprintf("%s:%d:%d", filepath.Join(root, s.Path), s.StartLine, s.StartCol+len("package "))
			}
		}
		o.out.recs = append(o.out.recs, PackageRecords{Package: rec.Package})
	}
	pkgs = nil
	for at, entries := range x.xt.decls {
		file := x.xt.strs[at.file]
		for _, e := range entries {
			lines := o.lines(file)
			col := int(e.col)
			if int(at.line)-1 < len(lines) && col-1 <= len(lines[at.line-1]) {
				col = utf8.RuneCountInString(lines[at.line-1][:col-1]) + 1
			}
			o.decls[e.key] = fmt.Sprintf("%s:%d:%d", file, at.line, col)
		}
	}
	o.x = x
	if _, err := x.flushXRefs(t.Context(), Sink{
		Refs:       func(b []graph.Ref) error { o.out.refs = append(o.out.refs, b...); return nil },
		Implements: func(b []graph.Implements) error { o.out.impls = append(o.out.impls, b...); return nil },
	}); err != nil {
		t.Fatal(err)
	}
	o.bin = bin
	o.client = startGopls(t, bin, root)
	return o
}

// compare checks the symbols keys against gopls, reporting differences;
// it returns the number of symbols compared and of those that differ.
func (o *goplsOracle) compare(t *testing.T, keys []string, impls bool) (n, bad int) {
	for _, key := range keys {
		d, ok := o.decls[key]
		if !ok {
			continue
		}
		s := o.syms[key]
		parts := strings.Split(d, ":")
		line, _ := strconv.Atoi(parts[len(parts)-2])
		col, _ := strconv.Atoi(parts[len(parts)-1])
		file := strings.Join(parts[:len(parts)-2], ":")
		method, want := "textDocument/references", o.ours(key)
		if impls {
			if s.Kind != graph.KindType && s.Kind != graph.KindInterface && s.Kind != graph.KindMethod && s.Kind != graph.KindInterfaceMethod {
				continue
			}
			method, want = "textDocument/implementation", o.oursImpl(key)
		}
		got, err := o.client.locations(o.root, method, file, line, col, o.lines)
		if err != nil {
			if crash := o.client.crash(); crash != "" {
				// gopls died on this query: not ours to compare. Start
				// it again for the rest.
				t.Logf("gopls crashed on %s of %s.%s (%s); restarting it", method, s.PackagePath, s.QualifiedName, crash)
				o.client = startGopls(t, o.bin, o.root)
				continue
			}
			t.Errorf("%s %s %s: %v", method, s.PackagePath, s.QualifiedName, err)
			continue
		}
		n++
		if impls {
			got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "outside:") })
		}
		if !slices.Equal(got, want) {
			bad++
			t.Errorf("%s of %s %s.%s differ:\n  gopls only: %v\n  ours only:  %v", method, s.Kind, s.PackagePath, s.QualifiedName,
				minus(got, want), minus(want, got))
		}
	}
	return n, bad
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func goplsBinary(t *testing.T) string {
	bin := os.Getenv("SEXTANT_GOPLS")
	if bin == "" {
		t.Skip("SEXTANT_GOPLS is not set")
	}
	return bin
}

// TestGoplsFixtures compares every symbol of the xref fixtures.
func TestGoplsFixtures(t *testing.T) {
	bin := goplsBinary(t)
	hermetic(t)
	archives, err := filepath.Glob("testdata/xref/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, archive := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(archive), ".txtar"), func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			o := newGoplsOracle(t, bin, dir)
			keys := make([]string, 0, len(o.syms))
			for k := range o.syms {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			n, bad := o.compare(t, keys, false)
			m, badImpl := o.compare(t, keys, true)
			t.Logf("references: %d symbols, %d differ; implementations: %d symbols, %d differ", n, bad, m, badImpl)
		})
	}
}

// TestGoplsTree compares a sample of the symbols of SEXTANT_GOPLS_ROOT.
func TestGoplsTree(t *testing.T) {
	bin := goplsBinary(t)
	root := os.Getenv("SEXTANT_GOPLS_ROOT")
	if root == "" {
		t.Skip("SEXTANT_GOPLS_ROOT is not set")
	}
	o := newGoplsOracle(t, bin, root)
	keys := make([]string, 0, len(o.syms))
	for k := range o.syms {
		keys = append(keys, k)
	}
	if match := os.Getenv("SEXTANT_GOPLS_MATCH"); match != "" {
		keys = slices.DeleteFunc(keys, func(k string) bool {
			return !strings.Contains(o.syms[k].PackagePath+"."+o.syms[k].QualifiedName, match)
		})
	}
	sort.Strings(keys) // keys are hashes: a sorted prefix is a fair sample
	sample, _ := strconv.Atoi(os.Getenv("SEXTANT_GOPLS_SAMPLE"))
	if sample <= 0 {
		sample = 200
	}
	offset, _ := strconv.Atoi(os.Getenv("SEXTANT_GOPLS_OFFSET"))
	keys = keys[min(offset, len(keys)):]
	keys = keys[:min(sample, len(keys))]
	n, bad := o.compare(t, keys, false)
	m, badImpl := o.compare(t, keys, true)
	t.Logf("references: %d symbols, %d differ; implementations: %d symbols, %d differ", n, bad, m, badImpl)
}

// aliasTarget returns, for an alias declaration, the key of the type it
// names (the first type reference inside the declaration), else "". gopls
// answers implementation queries on an alias as on that type.
func (o *goplsOracle) aliasTarget(s graph.Symbol) string {
	if s.Kind != graph.KindType && s.Kind != graph.KindInterface || !strings.Contains(s.Signature, " = ") {
		return ""
	}
	var first *graph.Ref
	for i, r := range o.out.refs {
		if r.Enclosing == s.Key && r.Kind == graph.RefType &&
			(first == nil || r.Line < first.Line || r.Line == first.Line && r.Col < first.Col) {
			first = &o.out.refs[i]
		}
	}
	if first == nil {
		return ""
	}
	return first.Target
}
