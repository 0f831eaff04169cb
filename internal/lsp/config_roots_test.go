//go:build linux

package lsp_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// TestLoadConfigStaysInRoot lays each configuration file name as
// something hostile: a symlink out of the root (to a sibling sharing the
// root's prefix, to the parent, through a chain, through a directory),
// a FIFO, a socket, a directory. Each is refused as rootfs classes it, and
// the read never blocks; a symlink inside the root is followed.
func TestLoadConfigStaysInRoot(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "1")
	const good = "[lsp]\nmax_servers = 3\n"
	const outsideText = "[lsp]\nmax_servers = 7\n" // would load if followed
	cases := []struct {
		name string
		lay  func(t *testing.T, repo, other string) // lays the file(s) in repo
		want string                                 // "ok", "outside", "not regular", "dir", "absent"
	}{
		{"plain file", func(t *testing.T, repo, _ string) { write(t, filepath.Join(repo, "sextant.toml"), good) }, "ok"},
		{"symlink inside", func(t *testing.T, repo, _ string) {
			write(t, filepath.Join(repo, "conf", "s.toml"), good)
			symlink(t, "conf/s.toml", filepath.Join(repo, "sextant.toml"))
		}, "ok"},
		{"symlink to sibling /repo-other", func(t *testing.T, repo, other string) {
			symlink(t, filepath.Join(other, "sextant.toml"), filepath.Join(repo, "sextant.toml"))
		}, "outside"},
		{"relative symlink to sibling", func(t *testing.T, repo, _ string) {
			symlink(t, "../repo-other/sextant.toml", filepath.Join(repo, "sextant.toml"))
		}, "outside"},
		{"symlink to parent", func(t *testing.T, repo, _ string) {
			symlink(t, "../sextant.toml", filepath.Join(repo, "sextant.toml"))
		}, "outside"},
		{"chain out", func(t *testing.T, repo, other string) {
			symlink(t, filepath.Join(other, "sextant.toml"), filepath.Join(repo, "hop.toml"))
			symlink(t, "hop.toml", filepath.Join(repo, "sextant.toml"))
		}, "outside"},
		{".sextant is a directory out", func(t *testing.T, repo, other string) {
			write(t, filepath.Join(other, "config.toml"), outsideText)
			symlink(t, other, filepath.Join(repo, ".sextant"))
		}, "outside"},
		{"symlink to /etc/passwd", func(t *testing.T, repo, _ string) {
			symlink(t, "/etc/passwd", filepath.Join(repo, "sextant.toml"))
		}, "outside"},
		{"FIFO", func(t *testing.T, repo, _ string) {
			if err := syscall.Mkfifo(filepath.Join(repo, "sextant.toml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not regular"},
		{"directory", func(t *testing.T, repo, _ string) {
			os.MkdirAll(filepath.Join(repo, "sextant.toml"), 0o755)
		}, "dir"},
		{"none", func(t *testing.T, repo, _ string) {}, "absent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			repo, other := filepath.Join(base, "repo"), filepath.Join(base, "repo-other")
			os.MkdirAll(repo, 0o755)
			write(t, filepath.Join(other, "sextant.toml"), outsideText)
			write(t, filepath.Join(base, "sextant.toml"), outsideText)
			c.lay(t, repo, other)
			cfg, err := lsp.LoadConfig(repo)
			got := "error: " + errString(err)
			switch {
			case err == nil && cfg.Source == "":
				got = "absent"
			case err == nil && cfg.Pool.MaxServers == 3:
				got = "ok"
			case err == nil:
				got = "read outside the root"
			case rootfs.Outside(err):
				got = "outside"
			case errors.Is(err, rootfs.ErrNotRegular):
				got = "not regular"
			case errors.Is(err, rootfs.ErrIsDir):
				got = "dir"
			}
			if got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
	// A root that is gone has no file: the defaults.
	if cfg, err := lsp.LoadConfig(filepath.Join(t.TempDir(), "gone")); err != nil || cfg.Source != "" {
		t.Errorf("missing root: %+v, %v", cfg, err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}
