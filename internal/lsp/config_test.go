package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/lsp"
)

func TestLoadConfig(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "1")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".sextant"), 0o755)
	// The example of README.md, in .sextant/config.toml.
	if err := os.WriteFile(filepath.Join(dir, ".sextant", "config.toml"), []byte(`
[lsp]
max_servers = 3
idle_timeout = "2m"
memory_mb = -1
quiet = "1s"

[[lsp.server]]
name = "lean"
command = "lake"
args = ["serve"]
globs = ["*.lean", "src/**/*.lean"]
language_id = "lean4"
init_options = { }
settings = { python = { x = 1 } }
env = { LEAN_PATH = "..." }
custom_methods = ["$/lean/plainGoal"]

[[lsp.server]]
name = "pyright"
command = "basedpyright-langserver"
args = ["--stdio"]
globs = ["*.py"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := lsp.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Pool.MaxServers != 3 || cfg.Pool.IdleTimeout.Duration != 2*time.Minute || cfg.Pool.MemoryMB != -1 || cfg.Pool.RequestTimeout.Duration != 30*time.Second {
		t.Errorf("pool: %+v", cfg.Pool)
	}
	for rel, want := range map[string]string{
		"a.lean": "lean", "src/x/y/z.lean": "lean", "app.py": "pyright", "pkg/main.go": "gopls",
		"go.mod": "gopls", "ui/app.tsx": "typescript", "lib.rs": "rust-analyzer", "x.c": "clangd", "README.md": "",
	} {
		spec, ok := cfg.ServerFor(rel)
		got := ""
		if ok {
			got = spec.Name
		}
		if got != want {
			t.Errorf("%s served by %q, want %q", rel, got, want)
		}
	}
	if spec, _ := cfg.Server("pyright"); spec.Command != "basedpyright-langserver" {
		t.Errorf("a configured server does not replace the built-in one: %+v", spec)
	}
	ts, _ := cfg.Server("typescript")
	for rel, want := range map[string]string{"a.ts": "typescript", "a.tsx": "typescriptreact", "a.js": "javascript"} {
		if got := ts.LanguageIDFor(rel); got != want {
			t.Errorf("languageId of %s = %s, want %s", rel, got, want)
		}
	}
}

// TestLoadConfigUntrusted checks that a repository's file that names a
// server's command is refused unless the user trusts the repository.
func TestLoadConfigUntrusted(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte("[lsp]\n[[lsp.server]]\nname = \"evil\"\ncommand = \"/bin/sh\"\nglobs = [\"*.txt\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := lsp.LoadConfig(dir)
	if err == nil || !strings.Contains(err.Error(), lsp.TrustEnv) {
		t.Fatalf("untrusted server command: err = %v, want a refusal naming %s", err, lsp.TrustEnv)
	}
	if err := os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte("[lsp]\nmax_servers = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lsp.LoadConfig(dir); err != nil {
		t.Fatalf("pool settings alone need no trust: %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "1")
	for name, text := range map[string]string{
		"syntax":      "[lsp\n",
		"unknown key": "[lsp]\nmax_server = 3\n",
		"no globs":    "[[lsp.server]]\nname = \"x\"\ncommand = \"x\"\n",
		"bad timeout": "[lsp]\nrequest_timeout = \"soon\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte(text), 0o644)
			if _, err := lsp.LoadConfig(dir); err == nil || !strings.Contains(err.Error(), "sextant.toml") {
				t.Errorf("error %v, want one naming sextant.toml", err)
			}
		})
	}
	// No file: the defaults.
	cfg, err := lsp.LoadConfig(t.TempDir())
	if err != nil || cfg.Source != "" || len(cfg.Servers) != 5 {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
}
