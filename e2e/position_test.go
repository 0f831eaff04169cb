package e2e_test

import (
	"strings"
	"testing"
)

// TestPositionToolsCLI runs check_file and render_ssa as the built
// binary's subcommands on cobra: a clean package with the vet analyzers,
// a file that is not UTF-8 and does not parse (its diagnostics, not a
// failure), a symlink out of the root, and one method's SSA.
func TestPositionToolsCLI(t *testing.T) {
	sharedIndex(t) // render_ssa selects through the index
	db := []string{"--db", sharedDB, "--root", cobraDir}
	run := func(code int, args ...string) string {
		t.Helper()
		out, _ := runCLI(t, code, append(append([]string{args[0]}, db...), args[1:]...)...)
		return out
	}
	if out := run(0, "check_file", "--analyzers", "true", "command.go"); !strings.HasPrefix(out, "ok: package github.com/spf13/cobra has no diagnostics") {
		t.Errorf("check_file command.go:\n%s", out)
	}
	if out := run(0, "check_file", "testdata/latin1.go"); !strings.Contains(out, "testdata/latin1.go:10:14: error [parse parse]") {
		t.Errorf("check_file on a file that does not parse:\n%s", out)
	}
	out := run(0, "render_ssa", "Command.Name")
	for _, want := range []string{"command.go:", "# Location: command.go:", "func (c *Command) Name() string:", "strings.Index(", "return "} {
		if !strings.Contains(out, want) {
			t.Errorf("render_ssa Command.Name lacks %q:\n%s", want, out)
		}
	}
	run(2, "render_ssa", "Command") // NOT_A_FUNCTION: the call is wrong
	needEscape(t)
	run(2, "check_file", "testdata/escape/secret.go") // OUTSIDE_ROOTS: a usage error
}
