package lsp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sextant.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestUntrustedConfigOnlyTightens: a repository's own [lsp] section may
// lower the resource bounds but never lift them unless the user trusts
// the repository; a refusal names the setting and the bound.
func TestUntrustedConfigOnlyTightens(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "")
	for _, tc := range []struct{ text, field string }{
		{"[lsp]\nmemory_mb = -1\n", "memory_mb"},
		{"[lsp]\nmemory_mb = 100000\n", "memory_mb"},
		{"[lsp]\nrequest_timeout = \"600s\"\n", "request_timeout"},
		{"[lsp]\nmax_servers = 100\n", "max_servers"},
		{"[lsp]\nstart_timeout = \"10m\"\n", "start_timeout"},
		{"[lsp]\nidle_timeout = \"12h\"\n", "idle_timeout"},
		{"[lsp]\nsoft_memory_mb = 9000\n", "soft_memory_mb"},
		{"[lsp]\nmax_open_files = 5000\n", "max_open_files"},
		{"[lsp]\nquiet = \"30s\"\n", "quiet"},
	} {
		_, err := lsp.LoadConfig(writeConfig(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), lsp.TrustEnv) {
			t.Errorf("untrusted %q: err = %v, want a refusal naming %s and %s", tc.text, err, tc.field, lsp.TrustEnv)
		}
	}
	cfg, err := lsp.LoadConfig(writeConfig(t, "[lsp]\nmax_servers = 2\nmemory_mb = 1024\nrequest_timeout = \"5s\"\nstart_timeout = \"3s\"\n"))
	if err != nil {
		t.Fatalf("tighter limits need no trust: %v", err)
	}
	if p := cfg.Pool; p.MaxServers != 2 || p.MemoryMB != 1024 || p.RequestTimeout.Duration != 5*time.Second || p.StartTimeout.Duration != 3*time.Second {
		t.Errorf("tightened pool %+v", p)
	}

	t.Setenv(lsp.TrustEnv, "1")
	cfg, err = lsp.LoadConfig(writeConfig(t, "[lsp]\nmemory_mb = -1\nrequest_timeout = \"600s\"\nmax_servers = 100\n"))
	if err != nil {
		t.Fatalf("a trusted repository may loosen within range: %v", err)
	}
	if p := cfg.Pool; p.MemoryMB != -1 || p.RequestTimeout.Duration != 600*time.Second || p.MaxServers != 100 {
		t.Errorf("trusted pool %+v", p)
	}
}

// TestConfigRanges: every numeric setting is range-checked, even for a
// trusted repository; 2^44 MiB no longer wraps into a crash on start.
func TestConfigRanges(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "1")
	for _, tc := range []struct{ text, field string }{
		{"[lsp]\nmemory_mb = 17592186044416\n", "memory_mb"},
		{"[lsp]\nmemory_mb = -2\n", "memory_mb"},
		{"[lsp]\nmemory_mb = 10\n", "memory_mb"},
		{"[lsp]\nmax_servers = -1\n", "max_servers"},
		{"[lsp]\nmax_servers = 100000\n", "max_servers"},
		{"[lsp]\nsoft_memory_mb = 17592186044416\n", "soft_memory_mb"},
		{"[lsp]\nmax_open_files = -3\n", "max_open_files"},
		{"[lsp]\nrequest_timeout = \"-1s\"\n", "request_timeout"},
		{"[lsp]\nrequest_timeout = \"100000h\"\n", "request_timeout"},
		{"[lsp]\nstart_timeout = \"-5s\"\n", "start_timeout"},
		{"[lsp]\nidle_timeout = \"1000000h\"\n", "idle_timeout"},
		{"[lsp]\nquiet = \"-1s\"\n", "quiet"},
		{"[[lsp.server]]\nname = \"x\"\ncommand = \"x\"\nglobs = [\"*.x\"]\nmemory_mb = 17592186044416\n", "memory_mb"},
		{"[[lsp.server]]\nname = \"x\"\ncommand = \"x\"\nglobs = [\"*.x\"]\ntimeout = \"-2s\"\n", "timeout"},
	} {
		_, err := lsp.LoadConfig(writeConfig(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "sextant.toml") || !strings.Contains(err.Error(), "between") && !strings.Contains(err.Error(), "must be") {
			t.Errorf("%q: err = %v, want an error naming sextant.toml, %s and its range", tc.text, err, tc.field)
		}
	}
}

// TestRestartMemoryRange: lsp_restart's memory_mb is bounded like the
// setting, INVALID_ARGUMENT naming the field, before anything starts.
func TestRestartMemoryRange(t *testing.T) {
	p := testPool(t, lsp.PoolConfig{})
	spec := fakeSpec(t)
	for _, mb := range []int{1 << 44, -2, 10} {
		_, err := p.Restart(context.Background(), spec, t.TempDir(), mb)
		var ge *graph.Error
		if !errors.As(err, &ge) || ge.Code != graph.CodeInvalidArgument || ge.Data["field"] != "memory_mb" {
			t.Errorf("restart with memory_mb %d: %v, want INVALID_ARGUMENT on memory_mb", mb, err)
		}
	}
	if n := len(p.Running()); n != 0 {
		t.Errorf("%d servers started by refused restarts", n)
	}
}
