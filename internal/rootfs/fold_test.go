package rootfs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sextant-dev/sextant/internal/rootfs"
)

func mkfile(t *testing.T, root, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCanonical: every spelling of a file that differs only in case
// gives the one name the directories hold, upper-case, lower-case and
// non-ASCII components alike; a name that matches nothing is kept for the
// open to refuse.
func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"Dir/A.go", "é/Ünï.go", "x/b.go", "x/Sub/c.go"} {
		mkfile(t, dir, f)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for in, want := range map[string]string{
		"Dir/A.go":     "Dir/A.go",
		"DIR/a.GO":     "Dir/A.go",
		"dir/a.go":     "Dir/A.go",
		"É/üNÏ.go":     "é/Ünï.go",
		"X/B.GO":       "x/b.go",
		"x/sub/C.go":   "x/Sub/c.go",
		"missing/A.go": "missing/A.go",
		"x/none.go":    "x/none.go",
		".":            ".",
	} {
		got, err := rootfs.Canonical(root, in)
		if got != want || (err != nil && want != "missing/A.go") {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
		if got == want && want != "missing/A.go" && want != "x/none.go" && want != "." {
			if data, err := rootfs.ReadRegular(root, filepath.FromSlash(got), 100); err != nil || string(data) != want {
				t.Errorf("reading %q: %q, %v", got, data, err)
			}
		}
	}
}

// TestCanonicalStaysInRoot: a directory that is a symlink out of the root
// is refused whatever its spelling: as outside the root where symlinks
// are followed, and at all where they are not (Wine cannot open one).
func TestCanonicalStaysInRoot(t *testing.T) {
	base := t.TempDir()
	mkfile(t, base, "outside/secret.txt")
	mkfile(t, base, "repo/a.txt")
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(base, "repo", "Link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	root, err := os.OpenRoot(filepath.Join(base, "repo"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, in := range []string{"Link/secret.txt", "LINK/secret.txt", "link/SECRET.txt"} {
		got, err := rootfs.Canonical(root, in)
		var data []byte
		if err == nil {
			data, err = rootfs.ReadRegular(root, filepath.FromSlash(got), 100)
		}
		if err == nil || data != nil || (runtime.GOOS != "windows" && !rootfs.Outside(err)) {
			t.Errorf("%q (as %q): %v, want a refusal as outside the root", in, got, err)
		}
	}
}

// TestCanonicalAmbiguous: where case matters, Dir and dir are two
// directories and a third spelling names neither.
func TestCanonicalAmbiguous(t *testing.T) {
	dir := t.TempDir()
	if rootfs.CaseInsensitive(dir) {
		t.Skip("a case-insensitive file system cannot hold Dir and dir")
	}
	mkfile(t, dir, "Dir/a.go")
	mkfile(t, dir, "dir/a.go")
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	for in, want := range map[string]string{"DIR/a.go": "DIR/a.go", "Dir/a.go": "Dir/a.go", "dir/A.go": "dir/a.go"} {
		if got, _ := rootfs.Canonical(root, in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWithin: a path under a root, compared up to case when the file
// system folds case, never a sibling sharing the root's prefix, never a
// path whose ".." leads out.
func TestWithin(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "Repo")
	j := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	cases := []struct {
		p    string
		fold bool
		rel  string
		ok   bool
	}{
		{j("Repo", "x", "y.go"), false, "x/y.go", true},
		{j("Repo"), false, ".", true},
		{j("REPO", "x", "y.go"), false, "", false},
		{j("REPO", "x", "y.go"), true, "x/y.go", true},
		{j("repo", "Dir", "A.go"), true, "Dir/A.go", true},
		{j("Repo-other", "x.go"), true, "", false},
		{j("RepoX"), true, "", false},
		{j("REPO", "..", "secret.txt"), true, "", false},
		{base, true, "", false},
	}
	for _, c := range cases {
		rel, ok := rootfs.Within(repo, c.p, c.fold)
		if rel != c.rel || ok != c.ok {
			t.Errorf("Within(%q, %q, fold=%v) = %q, %v; want %q, %v", repo, c.p, c.fold, rel, ok, c.rel, c.ok)
		}
	}
}

// TestCaseInsensitiveProbe: the probe agrees with the file system.
func TestCaseInsensitiveProbe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Probe")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(dir)
	b, err := os.Stat(filepath.Join(filepath.Dir(dir), "pROBE"))
	want := err == nil && os.SameFile(a, b)
	if got := rootfs.CaseInsensitive(dir); got != want {
		t.Errorf("CaseInsensitive = %v; the file system says %v", got, want)
	}
	if runtime.GOOS == "linux" && want {
		t.Log("a case-insensitive directory on Linux (ext4 casefold or a mounted volume)")
	}
}
