package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/query"
)

// inCI reports whether the suite runs in CI (.ci/run sets CI=true), where
// a missing prerequisite is a failure, not a reason to skip.
func inCI() bool { return os.Getenv("CI") == "true" }

// sharedTools returns the directory of the shared tools (mcpcall,
// toolcheck): $SEXTANT_SHARED_TOOLS, else ../shared/tools beside the
// module, as laid out for developers and in CI. "" when absent.
func sharedTools() string {
	for _, dir := range []string{os.Getenv("SEXTANT_SHARED_TOOLS"), filepath.Join(moduleRoot, "..", "shared", "tools")} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "toolcheck", "main.go")); err == nil {
			return dir
		}
	}
	return ""
}

// goBuild builds the main package pkg of the module in dir into the work
// directory and returns the binary.
func goBuild(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if runtime.GOOS == "windows" {
		out += ".exe" // what os/exec looks for there
	}
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s in %s: %v\n%s", pkg, dir, err, msg)
	}
	return out
}

// TestToolcheck runs the shared contract checker on the live tools/list,
// as `mcpcall -list -- sextant serve | toolcheck` does.
func TestToolcheck(t *testing.T) {
	dir := sharedTools()
	if dir == "" {
		t.Skip("SKIPPED LOUDLY: shared/tools (toolcheck) not found at ../shared/tools or $SEXTANT_SHARED_TOOLS; the tool contract was NOT checked")
	}
	if runtime.GOOS == "windows" {
		// toolcheck opens /dev/stdin by name, which Windows has not. The
		// list is built by the same code on every platform; the native
		// run checks it against the contract, and TestToolsList checks
		// its budgets here too.
		t.Skip("SKIPPED LOUDLY: toolcheck reads /dev/stdin, which Windows lacks; the contract is checked by the native run")
	}
	mcpcall := goBuild(t, dir, "./mcpcall")
	toolcheck := goBuild(t, dir, "./toolcheck")
	all, err := query.SelectTools(query.ProfileAll)
	if err != nil {
		t.Fatal(err)
	}
	// The default profile and each other group stay within the budget an
	// agent's context affords; "all" is every group at once and is held
	// to the contract, not to that budget.
	type profileCase struct {
		name              string
		count             int
		maxBytes, maxSeen int
	}
	profiles := []profileCase{{query.ProfileDefault, len(toolNames), maxToolsListBytes, maxSeenBytes},
		{query.ProfileAll, len(all), 1 << 20, 1 << 20}}
	for _, g := range query.Groups() {
		if g == query.GroupCore {
			continue
		}
		n := 0
		for _, t := range all {
			if t.Group == g {
				n++
			}
		}
		profiles = append(profiles, profileCase{g, n, maxToolsListBytes, maxSeenBytes})
	}
	for _, profile := range profiles {
		t.Run(profile.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			list := exec.CommandContext(ctx, mcpcall, "-list", "--", bin, "serve", "--tools", profile.name, "--db", sharedDB, cobraDir)
			var listErr bytes.Buffer
			list.Stderr = &listErr
			tools, err := list.Output()
			if err != nil {
				t.Fatalf("mcpcall -list: %v\n%s", err, listErr.String())
			}
			check := exec.CommandContext(ctx, toolcheck, "-max-bytes", fmt.Sprint(profile.maxBytes), "-max-seen-bytes", fmt.Sprint(profile.maxSeen))
			check.Stdin = bytes.NewReader(tools)
			report, err := check.CombinedOutput()
			t.Logf("toolcheck:\n%s", report)
			if err != nil {
				t.Fatalf("toolcheck failed: %v", err)
			}
			if want := fmt.Sprintf("%d/%d tools meet the contract", profile.count, profile.count); !strings.Contains(string(report), want) {
				t.Errorf("toolcheck did not pass all %d tools", profile.count)
			}
		})
	}
}

// TestTypeScriptClient runs e2e/ts/client.mjs, which drives the server
// with the official TypeScript SDK client (@modelcontextprotocol/sdk)
// over stdio and checks every tool's answers. `npm ci` in e2e/ts installs
// the SDK; without it the test skips, except in CI where it fails.
func TestTypeScriptClient(t *testing.T) {
	tsDir := filepath.Join(moduleRoot, "e2e", "ts")
	missing := ""
	node, err := exec.LookPath("node")
	if err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(tsDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing = "e2e/ts/node_modules is absent (run `npm ci` in e2e/ts)"
	}
	if missing != "" {
		if inCI() {
			t.Fatalf("CI=true but %s: the TypeScript SDK client check cannot run", missing)
		}
		t.Skipf("SKIPPED LOUDLY: %s; the TypeScript SDK client was NOT exercised", missing)
	}
	sharedIndex(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(tsDir, "client.mjs"), bin, sharedDB, cobraDir)
	cmd.Dir = tsDir
	out, err := cmd.CombinedOutput()
	t.Logf("client.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v", err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Errorf("client.mjs printed no clean summary")
	}
}
