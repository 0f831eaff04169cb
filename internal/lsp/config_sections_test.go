package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsp"
)

// TestLoadConfigOtherSections: the [scip] section of sextant.toml is the
// SCIP indexers' (internal/scipindexer reads it): the language servers'
// configuration loads beside it, and still refuses an unknown section.
func TestLoadConfigOtherSections(t *testing.T) {
	for _, tc := range []struct{ file, wantErr string }{
		{"[lsp]\nmax_servers = 2\n\n[scip]\ntimeout = \"5m\"\n\n[scip.python]\ndisabled = true\n", ""},
		{"[lsp]\nmax_servers = 2\n\n[lps]\nmax_servers = 2\n", "unknown key lps"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := lsp.LoadConfig(dir)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.file, err)
			} else if cfg.Pool.MaxServers != 2 {
				t.Errorf("%q: max_servers %d, want 2", tc.file, cfg.Pool.MaxServers)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%q: error %v, want one saying %q", tc.file, err, tc.wantErr)
		}
	}
}
