package query

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// secretMarker is in every file outside the root. No answer, error
// message or outline may ever contain it.
const secretMarker = "OUTSIDE_SECRET_7f3a"

// rootsFixture is an indexed repository surrounded by everything a
// hostile checkout can hold: symlinks in and out of the root (relative,
// absolute, chained, looping), a sibling directory sharing the root's
// prefix, a FIFO, a socket and a device reached through a symlink.
type rootsFixture struct {
	*fixture
	parent  string // holds repo, repo-other and outside
	outside string
}

func newRootsFixture(t testing.TB) *rootsFixture {
	t.Helper()
	setenv(t, "GOFLAGS", "-mod=mod")
	setenv(t, "GOPROXY", "off")
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(parent, "repo")
	outside := filepath.Join(parent, "outside")
	write := func(p, content string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"), "module example.com/repo\n\ngo 1.22\n")
	write(filepath.Join(root, "a.go"), "package repo\n\n// A is inside.\nfunc A() {}\n")
	write(filepath.Join(root, "sub", "b.go"), "package sub\n\n// B is inside.\nfunc B() {}\n")
	write(filepath.Join(root, "swap", "f.go"), "package swap\n\n// F is inside.\nfunc F() {}\n")
	secret := "package outside\n\n// Secret: " + secretMarker + "\nfunc Secret() {}\n"
	write(filepath.Join(outside, "secret.go"), secret)
	write(filepath.Join(outside, "f.go"), secret)
	write(filepath.Join(parent, "repo-other", "x.go"), secret)

	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(parent, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatalf("indexing: %v", err)
	}
	svc, err := New(st, []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The hostile part is added after indexing: it is what a checkout
	// may hold by the time a tool reads it.
	links := map[string]string{
		"link_in":           "sub",
		"link_out":          "../outside",
		"link_abs":          outside,
		"link_file_out.go":  "../outside/secret.go",
		"link_sibling.go":   "../repo-other/x.go",
		"chain1":            "chain2",
		"chain2":            "chain3",
		"chain3":            "sub",
		"chain_out.go":      "chain_out2.go",
		"chain_out2.go":     "link_out/secret.go",
		"loop1":             "loop2",
		"loop2":             "loop1",
		"loop.go":           "loop.go",
		"dev_null.go":       "/dev/null",
		"sub/up.go":         "../../outside/secret.go",
		"sub/parent_a.go":   "../a.go",
		"link_root":         ".",
		"link_root_abs":     root,
		"link_proc_self.go": "/proc/self/environ",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(root, "sock.go"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &rootsFixture{fixture: &fixture{dir: root, store: st, svc: svc}, parent: parent, outside: outside}
}

// setenv is t.Setenv for tests and fuzz targets (which may not use it).
func setenv(t testing.TB, k, v string) {
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	t.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}

// callJSON runs a tool and returns its answer or error as JSON, the way
// an agent would see it.
func (f *rootsFixture) callJSON(t testing.TB, tool string, args any) (string, *graph.Error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	tl, _ := LookupTool(tool)
	a, err := tl.Call(context.Background(), f.svc, raw, nil)
	if err != nil {
		e, ok := asError(err)
		if !ok {
			t.Fatalf("%s %s: uncoded error %v", tool, raw, err)
		}
		b, _ := json.Marshal(ErrorOf(err))
		return string(b), e
	}
	b, _ := json.Marshal(a)
	return string(b) + a.Text(), nil
}

// checkNoEscape fails if an answer shows anything read outside the root.
func (f *rootsFixture) checkNoEscape(t testing.TB, what, got string) {
	t.Helper()
	if strings.Contains(got, secretMarker) {
		t.Fatalf("%s: content from outside the root reached the answer: %s", what, got)
	}
}

func TestPathResolution(t *testing.T) {
	f := newRootsFixture(t)
	const (
		ok       = ""
		invalid  = graph.CodeInvalidArgument
		outside  = graph.CodeOutsideRoots
		notFound = graph.CodeFileNotFound
		readErr  = graph.CodeReadError
	)
	cases := []struct {
		path            string
		outline, symbol graph.Code // expected code of get_file_outline and get_symbol(file, name)
		name            string     // the name get_symbol looks up in that file
	}{
		{"a.go", ok, ok, "A"},
		{"sub/b.go", ok, ok, "B"},
		{"./sub/b.go", ok, ok, "B"},
		{"sub/../a.go", ok, ok, "A"},
		{"sub", ok, invalid, "B"},
		{".", ok, invalid, "A"},
		{f.dir + "/a.go", ok, ok, "A"},
		{f.dir, ok, invalid, "A"},
		{f.dir + "/", ok, invalid, "A"},
		{"../outside/secret.go", outside, outside, "Secret"},
		{"sub/../../outside/secret.go", outside, outside, "Secret"},
		{"..", outside, outside, "A"},
		{"/", outside, outside, "A"},
		{"/etc/passwd", outside, outside, "A"},
		{f.outside + "/secret.go", outside, outside, "Secret"},
		{f.parent + "/repo-other/x.go", outside, outside, "Secret"}, // sibling prefix
		{f.dir + "-other/x.go", outside, outside, "Secret"},
		{f.dir + "/../repo-other/x.go", outside, outside, "Secret"},
		{f.dir + "/../outside/secret.go", outside, outside, "Secret"},
		// A file reached through a symlink inside the root is read; the
		// index knows it by its own path, so its names do not resolve.
		{"link_in/b.go", ok, graph.CodeSymbolNotFound, "B"},
		{"link_out/secret.go", outside, outside, "Secret"},
		{"link_out", outside, outside, "Secret"},
		{"link_abs/secret.go", outside, outside, "Secret"},
		{"link_file_out.go", outside, outside, "Secret"},
		{"link_sibling.go", outside, outside, "Secret"},
		{"chain1/b.go", ok, graph.CodeSymbolNotFound, "B"},
		{"chain_out.go", outside, outside, "Secret"},
		{"sub/up.go", outside, outside, "Secret"},
		{"sub/parent_a.go", ok, graph.CodeSymbolNotFound, "A"},
		{"link_root/a.go", ok, graph.CodeSymbolNotFound, "A"},
		{"link_root_abs/a.go", ok, ok, "A"}, // an absolute link back inside is read at its real path
		{"loop1/x.go", readErr, readErr, "A"},
		{"loop.go", readErr, readErr, "A"},
		{"dev_null.go", outside, outside, "A"},
		{"link_proc_self.go", outside, outside, "A"},
		{"pipe.go", readErr, readErr, "A"},
		{"sock.go", readErr, readErr, "A"},
		{"a.go\x00", invalid, invalid, "A"},
		{"a.go\x00/../../outside/secret.go", invalid, invalid, "A"},
		{"a.go ", invalid, invalid, "A"},
		{" a.go", invalid, invalid, "A"},
		{"a.go\n", invalid, invalid, "A"},
		{`"a.go"`, notFound, notFound, "A"},
		{"'a.go'", notFound, notFound, "A"},
		{"a.go'", notFound, notFound, "A"},
		{"missing.go", notFound, notFound, "A"},
		{"", invalid, invalid, "A"},
		{strings.Repeat("a/", 3000) + "a.go", notFound, notFound, "A"},
		{strings.Repeat("a", 300) + ".go", invalid, invalid, "A"}, // a component longer than NAME_MAX
		{"a.txt", notFound, notFound, "A"},
		{"go.mod", invalid, graph.CodeParseError, "A"},
	}
	for _, c := range cases {
		got, err := f.callJSON(t, "get_file_outline", map[string]any{"path": c.path})
		f.checkNoEscape(t, "get_file_outline "+c.path, got)
		if code := codeOf(err); code != c.outline {
			t.Errorf("get_file_outline %.80q: %s (%.300s), want %q", c.path, code, got, c.outline)
		}
		got, err = f.callJSON(t, "get_symbol", map[string]any{"file": c.path, "name": c.name})
		f.checkNoEscape(t, "get_symbol "+c.path, got)
		if code := codeOf(err); code != c.symbol {
			t.Errorf("get_symbol file=%.80q: %s (%.300s), want %q", c.path, code, got, c.symbol)
		}
	}
}

func codeOf(err *graph.Error) graph.Code {
	if err == nil {
		return ""
	}
	return err.Code
}

// TestOutlineDirectorySkipsSpecialFiles: a directory holding a FIFO and a
// socket named .go and symlinks out of the root is outlined without
// blocking, and the unreadable entries say why instead of hiding the rest.
func TestOutlineDirectorySkipsSpecialFiles(t *testing.T) {
	f := newRootsFixture(t)
	a := ok[*GetFileOutlineOutput](t, f.fixture, "get_file_outline", `{"path":"."}`)
	got := map[string]string{}
	for _, of := range a.Results {
		got[of.Path] = strings.Join(of.ParseErrors, ";")
	}
	if _, ok := got["a.go"]; !ok {
		t.Errorf("a.go missing from the outline of the root: %v", got)
	}
	for _, special := range []string{"pipe.go", "sock.go"} {
		if _, listed := got[special]; listed {
			t.Errorf("%s is listed: %v", special, got)
		}
	}
	if !strings.Contains(got["link_file_out.go"], string(graph.CodeOutsideRoots)) {
		t.Errorf("link_file_out.go: %q, want an OUTSIDE_ROOTS note", got["link_file_out.go"])
	}
	b, _ := json.Marshal(a)
	f.checkNoEscape(t, "outline of the root", string(b)+a.Text())
}

// FuzzPathResolution throws arbitrary paths at the two tools that take
// one. Whatever the path, the answer never holds content from outside the
// root, every failure is a coded error that is not INTERNAL, and every
// file an answer lists resolves inside the root.
func FuzzPathResolution(f *testing.F) {
	rf := newRootsFixture(f)
	for _, s := range []string{"a.go", "sub/b.go", "../outside/secret.go", "link_out/secret.go", "chain_out.go",
		"loop1/x", "pipe.go", "sock.go", "a.go\x00", "a.go ", `"a.go"`, rf.dir + "-other/x.go", rf.dir + "/../outside",
		"link_root/link_root/link_out/../a.go", "sub/up.go", "dev_null.go", "\xff\xfe.go", "sub/./../sub//b.go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"get_file_outline", map[string]any{"path": p}},
			{"get_symbol", map[string]any{"file": p, "name": "Secret"}},
		} {
			got, err := rf.callJSON(t, call.tool, call.args)
			rf.checkNoEscape(t, call.tool+" "+p, got)
			if err != nil {
				if err.Code == graph.CodeInternal {
					t.Fatalf("%s %q: INTERNAL: %v", call.tool, p, err)
				}
				continue
			}
			if call.tool != "get_file_outline" {
				continue
			}
			var out GetFileOutlineOutput
			if err := json.Unmarshal([]byte(got[:strings.LastIndex(got, "}")+1]), &out); err != nil {
				continue // the text rendering follows the JSON; a brace in it is fine
			}
			for _, of := range out.Results {
				if len(of.ParseErrors) > 0 && strings.HasPrefix(of.ParseErrors[0], "not read: ") {
					continue // listed by name, refused when read
				}
				real, err := filepath.EvalSymlinks(filepath.Join(rf.dir, filepath.FromSlash(of.Path)))
				if err == nil && !session.Within(rf.dir, real) {
					t.Fatalf("%q: outline lists %s, which resolves to %s outside the root", p, of.Path, real)
				}
			}
		}
	})
}

// TestSymlinkSwapRace swaps a directory of the root with a symlink out of
// it, atomically and without pause, while 10,000 reads of a file under it
// run: each read sees the file inside or is refused, never the file
// outside.
func TestSymlinkSwapRace(t *testing.T) {
	f := newRootsFixture(t)
	swap := filepath.Join(f.dir, "swap")
	alt := filepath.Join(f.dir, "swapalt")
	if err := os.Symlink(f.outside, alt); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var swaps int
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := exchange(swap, alt); err != nil {
				t.Errorf("exchanging: %v", err)
				return
			}
			swaps++
		}
	}()
	const reads, workers = 10000, 4
	var (
		mu     sync.Mutex
		counts = map[string]int{}
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < reads; i += workers {
				var got string
				var err error
				if i%10 == 0 { // every tenth read goes through a tool, the rest straight to the reader
					var e *graph.Error
					got, e = f.callJSON(t, "get_file_outline", map[string]any{"path": "swap/f.go"})
					if e != nil {
						err = e
					}
				} else {
					var b []byte
					b, err = session.ReadFile(f.dir, "swap/f.go")
					got = string(b)
				}
				outcome := "inside"
				switch {
				case strings.Contains(got, secretMarker):
					outcome = "OUTSIDE"
				case err != nil:
					outcome = string(ErrorOf(err).Code)
					if outcome != string(graph.CodeOutsideRoots) {
						outcome += " (" + ErrorOf(err).Message + ")"
					}
				}
				mu.Lock()
				counts[outcome]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-swapped
	t.Logf("%d reads during %d swaps: %v", reads, swaps, counts)
	if counts["OUTSIDE"] != 0 {
		t.Fatalf("%d of %d reads returned a file outside the root", counts["OUTSIDE"], reads)
	}
	for outcome := range counts {
		if strings.HasPrefix(outcome, string(graph.CodeInternal)) {
			t.Fatalf("reads failed with INTERNAL: %v", counts)
		}
	}
}
