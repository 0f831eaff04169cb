package scipindexer_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// TestSameTrustAsLSP: the indexers' configuration is trusted exactly when
// the language servers' is, from the same files.
func TestSameTrustAsLSP(t *testing.T) {
	if scipindexer.TrustEnv != lsp.TrustEnv {
		t.Errorf("TrustEnv %q, lsp's %q", scipindexer.TrustEnv, lsp.TrustEnv)
	}
	if !slices.Equal(scipindexer.ConfigFiles, lsp.ConfigFiles) {
		t.Errorf("ConfigFiles %q, lsp's %q", scipindexer.ConfigFiles, lsp.ConfigFiles)
	}
}

func TestLoadConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		trusted bool
		wantErr string
		check   func(t *testing.T, c scipindexer.Config)
	}{
		{name: "no file", check: func(t *testing.T, c scipindexer.Config) {
			if c.Timeout.Duration != 10*time.Minute || c.TypeScript.Command != "scip-typescript" || c.Python.Command != "scip-python" || c.MemoryMB != 8192 || c.Source != "" {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "tightening", file: "[lsp]\nmax_servers = 2\n\n[scip]\ntimeout = \"2m\"\nmemory_mb = 1024\n\n[scip.python]\ndisabled = true\n",
			check: func(t *testing.T, c scipindexer.Config) {
				if c.Timeout.Duration != 2*time.Minute || c.MemoryMB != 1024 || !c.Python.Disabled || c.TypeScript.Disabled {
					t.Errorf("config: %+v", c)
				}
			}},
		{name: "command untrusted", file: "[scip.typescript]\ncommand = \"/tmp/evil\"\n", wantErr: "SEXTANT_TRUST_REPO_CONFIG=1"},
		{name: "longer timeout untrusted", file: "[scip]\ntimeout = \"1h\"\n", wantErr: "lifts the bound"},
		{name: "no memory cap untrusted", file: "[scip]\nmemory_mb = -1\n", wantErr: "lifts the bound"},
		{name: "command trusted", file: "[scip.typescript]\ncommand = \"/opt/scip/scip-typescript\"\n[scip]\ntimeout = \"1h\"\n", trusted: true,
			check: func(t *testing.T, c scipindexer.Config) {
				if c.TypeScript.Command != "/opt/scip/scip-typescript" || c.Timeout.Duration != time.Hour || c.Python.Command != "scip-python" {
					t.Errorf("config: %+v", c)
				}
			}},
		{name: "out of range", file: "[scip]\ntimeout = \"3h\"\n", trusted: true, wantErr: "out of range"},
		{name: "unknown key", file: "[scip]\ntimout = \"1m\"\n", wantErr: "unknown key scip.timout"},
		{name: "malformed", file: "[scip\n", wantErr: "parsing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.trusted {
				t.Setenv(scipindexer.TrustEnv, "1")
			} else {
				t.Setenv(scipindexer.TrustEnv, "")
			}
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := scipindexer.LoadConfig(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.file != "" && c.Source != filepath.Join(dir, "sextant.toml") {
				t.Errorf("source %q", c.Source)
			}
			tc.check(t, c)
		})
	}
}

// TestDisabledIndexer: a disabled indexer is not run, and says so.
func TestDisabledIndexer(t *testing.T) {
	r := scipindexer.NewRunner(scipindexer.Config{Python: scipindexer.Tool{Disabled: true}})
	err := r.Available(scipindexer.Python)
	e := failure(t, err, scipindexer.Disabled)
	if !strings.Contains(e.Message, "disabled") {
		t.Errorf("message %q", e.Message)
	}
}
