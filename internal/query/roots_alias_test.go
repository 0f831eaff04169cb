package query

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestRootThroughSymlink: a root given through a symlink (a checkout
// under a linked home directory, macOS's /tmp) takes absolute paths
// spelled through that symlink, as the caller spelled the root; what
// leaves the root that way is still refused.
func TestRootThroughSymlink(t *testing.T) {
	f := newRootsFixture(t)
	alias := filepath.Join(f.parent, "alias")
	if err := os.Symlink(f.dir, alias); err != nil {
		t.Fatal(err)
	}
	svc, err := New(f.store, []string{alias}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rf := &rootsFixture{fixture: &fixture{dir: f.dir, store: f.store, svc: svc}, parent: f.parent, outside: f.outside}
	for _, c := range []struct {
		tool string
		args map[string]any
		want graph.Code
	}{
		{"get_file_outline", map[string]any{"path": alias + "/a.go"}, ""},
		{"get_file_outline", map[string]any{"path": alias + "/sub"}, ""},
		{"get_file_outline", map[string]any{"path": alias}, ""},
		{"read_source", map[string]any{"ref": alias + "/sub/b.go:1-4"}, ""},
		{"get_symbol", map[string]any{"file": alias + "/sub/b.go", "name": "B"}, ""},
		{"get_file_outline", map[string]any{"path": alias + "/../outside/secret.go"}, graph.CodeOutsideRoots},
		{"get_file_outline", map[string]any{"path": alias + "/link_out/secret.go"}, graph.CodeOutsideRoots},
		{"get_file_outline", map[string]any{"path": alias + "/link_abs/secret.go"}, graph.CodeOutsideRoots},
		{"get_file_outline", map[string]any{"path": alias + "-other/x.go"}, graph.CodeOutsideRoots},
		{"get_file_outline", map[string]any{"path": alias + "/missing.go"}, graph.CodeFileNotFound},
	} {
		got, e := rf.callJSON(t, c.tool, c.args)
		rf.checkNoEscape(t, c.tool, got)
		if code := codeOf(e); code != c.want {
			t.Errorf("%s %v: %s (%.300s), want %q", c.tool, c.args, code, got, c.want)
		}
	}
}

// TestAbsoluteSymlinkInsideRoot: an absolute symlink that points inside
// the root (directly, or through a symlink to the root) is followed
// there like a relative one, by the path tools and by the reads of an
// indexed file; one that points outside stays refused.
func TestAbsoluteSymlinkInsideRoot(t *testing.T) {
	f := newRootsFixture(t)
	alias := filepath.Join(f.parent, "alias")
	for link, target := range map[string]string{
		alias:            f.dir,
		"abs_a.go":       filepath.Join(f.dir, "a.go"),
		"abs_sub":        filepath.Join(f.dir, "sub"),
		"abs_alias_a.go": filepath.Join(alias, "a.go"),
	} {
		if !filepath.IsAbs(link) {
			link = filepath.Join(f.dir, link)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want graph.Code
		has  string // in the answer
	}{
		{"get_file_outline", map[string]any{"path": "abs_a.go"}, "", "func A()"},
		{"get_file_outline", map[string]any{"path": "abs_alias_a.go"}, "", "func A()"},
		{"get_file_outline", map[string]any{"path": "abs_sub/b.go"}, "", "func B()"},
		{"get_file_outline", map[string]any{"path": "abs_sub"}, "", "func B()"},
		{"get_file_outline", map[string]any{"path": "link_root_abs/sub/b.go"}, "", "func B()"},
		{"get_file_outline", map[string]any{"path": f.dir + "/abs_a.go"}, "", "func A()"},
		{"read_source", map[string]any{"ref": "abs_a.go:1-4"}, "", "func A()"},
		{"read_source", map[string]any{"ref": "abs_sub/b.go::B"}, "", "func B()"},
		{"get_symbol", map[string]any{"file": "abs_sub/b.go", "name": "B"}, "", "B is inside"},
		{"get_file_outline", map[string]any{"path": "link_abs/secret.go"}, graph.CodeOutsideRoots, ""},
		{"get_file_outline", map[string]any{"path": "dev_null.go"}, graph.CodeOutsideRoots, ""},
		{"get_file_outline", map[string]any{"path": "link_proc_self.go"}, graph.CodeOutsideRoots, ""},
	} {
		got, e := f.callJSON(t, c.tool, c.args)
		f.checkNoEscape(t, c.tool, got)
		if code := codeOf(e); code != c.want || !strings.Contains(got, c.has) {
			t.Errorf("%s %v: %s (%.300s), want %q with %q", c.tool, c.args, code, got, c.want, c.has)
		}
	}
}
