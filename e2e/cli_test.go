package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// runCLI runs the binary with args and requires exit code want. It
// returns stdout and stderr.
func runCLI(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir() // the working directory must not matter when --root is given
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("sextant %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		t.Fatalf("sextant %s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// withoutAge decodes a structured answer and drops what differs between
// two calls over the same snapshot (its age).
func withoutAge(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	delete(m, "snapshot_age_ms")
	if rows, ok := m["results"].([]any); ok {
		for _, r := range rows {
			if row, ok := r.(map[string]any); ok {
				delete(row, "snapshot_age_ms")
			}
		}
	}
	return m
}

// TestCLIMirror runs tools as subcommands over the shared database and
// requires the same answers as over MCP: the structured answer with
// --json, the text without.
func TestCLIMirror(t *testing.T) {
	cs := sharedIndex(t)
	db := []string{"--db", sharedDB, "--root", cobraDir}
	cases := []struct {
		tool string
		args map[string]any
		argv []string
	}{
		{"find_symbol", map[string]any{"name": "Execute", "kind": "method"}, []string{"--name", "Execute", "--kind", "method"}},
		{"find_symbol", map[string]any{"name": "Gen", "mode": "prefix", "path": "doc/", "limit": 3}, []string{"--name", "Gen", "--mode", "prefix", "--path", "doc/", "--limit", "3"}},
		{"find_symbol", map[string]any{"name": "AddCmd", "exported": true}, []string{"AddCmd", "--exported", "true"}},
		{"get_symbol", map[string]any{"qualified_name": "Command.Execute"}, []string{"Command.Execute"}},
		{"get_symbol", map[string]any{"file": "command.go", "name": "Command"}, []string{"--file", "command.go", "--name", "Command"}},
		{"get_file_outline", map[string]any{"path": "args.go"}, []string{"args.go"}},
		{"list_repositories", map[string]any{}, nil},
	}
	for _, c := range cases {
		mcpAnswer := call(t, cs, c.tool, c.args)
		if mcpAnswer.res.IsError {
			t.Fatalf("MCP %s %v failed: %s", c.tool, c.args, mcpAnswer.text)
		}
		// Flags go before the positional argument, which ends flag parsing.
		var flags, positional []string
		for i := 0; i < len(c.argv); i++ {
			if strings.HasPrefix(c.argv[i], "--") {
				flags = append(flags, c.argv[i], c.argv[i+1])
				i++
			} else {
				positional = append(positional, c.argv[i])
			}
		}
		argv := append(append(append([]string{c.tool}, db...), flags...), positional...)
		jsonOut, _ := runCLI(t, 0, append(append(append([]string{c.tool, "--json"}, db...), flags...), positional...)...)
		if got, want := withoutAge(t, []byte(jsonOut)), withoutAge(t, mcpAnswer.structured); !reflect.DeepEqual(got, want) {
			t.Errorf("sextant %s --json differs from MCP:\nCLI: %v\nMCP: %v", strings.Join(argv, " "), got, want)
		}
		if c.tool == "list_repositories" {
			continue // its text shows the snapshot's age
		}
		text, _ := runCLI(t, 0, argv...)
		if text != mcpAnswer.text {
			t.Errorf("sextant %s text differs from MCP:\nCLI:\n%s\nMCP:\n%s", strings.Join(argv, " "), text, mcpAnswer.text)
		}
	}

	out, _ := runCLI(t, 0, "instructions", "all") // the session serves --tools all
	if init := cs.InitializeResult(); init != nil && out != init.Instructions {
		t.Errorf("sextant instructions differs from the instructions at initialize")
	}
}

// TestCLIExitCodes checks the exit codes scripts branch on: 0 ok, 2 for
// a usage error (bad flags, invalid arguments), 3 for not found. A failed
// call prints the code on stderr, or as {"error": ...} with --json.
func TestCLIExitCodes(t *testing.T) {
	sharedIndex(t)
	db := []string{"--db", sharedDB, "--root", cobraDir}
	with := func(args ...string) []string { return append(append([]string{args[0]}, db...), args[1:]...) }

	runCLI(t, 0, with("find_symbol", "--name", "Command")...)
	runCLI(t, 0, "help", "find_symbol")
	runCLI(t, 0, "version")

	for _, c := range []struct {
		argv []string
		code string // printed on stderr
	}{
		{with("get_symbol", "--qualified_name", "Comand"), "SYMBOL_NOT_FOUND"},
		{with("get_symbol", "--file", "command.go", "--name", "flag.FlagSet"), "SYMBOL_NOT_FOUND"},
		{with("get_file_outline", "--path", "nope.go"), "FILE_NOT_FOUND"},
		{with("find_symbol", "--name", "Command", "--repository", "nobody"), "REPOSITORY_NOT_FOUND"},
	} {
		_, stderr := runCLI(t, 3, c.argv...)
		if !strings.Contains(stderr, c.code) {
			t.Errorf("sextant %s: stderr does not name %s: %q", strings.Join(c.argv, " "), c.code, stderr)
		}
	}
	stdout, _ := runCLI(t, 3, with("get_symbol", "--json", "--qualified_name", "Comand")...)
	var failed struct{ Error *errorInfo }
	if err := json.Unmarshal([]byte(stdout), &failed); err != nil || failed.Error == nil || failed.Error.Code != "SYMBOL_NOT_FOUND" || len(failed.Error.list("suggestions")) == 0 {
		t.Errorf("--json failure: %v %q", err, stdout)
	}

	for _, argv := range [][]string{
		{},
		{"frobnicate"},
		with("find_symbol", "--no-such-flag", "x"),
		with("find_symbol", "--name", "Command", "--limit", "ten"),
		with("find_symbol", "--name", "Command", "--exported", "maybe"),
		with("find_symbol", "--name", "Command", "--kind", "klass"),
		with("find_symbol", "--name", " Command"),
		with("find_symbol", "one", "two"),
		with("get_symbol", "--qualified_name", "emptyRun"), // AMBIGUOUS_SYMBOL: narrow the command
		with("get_file_outline", "--path", "../x"),         // OUTSIDE_ROOTS
		{"serve", "--db", sharedDB, "--http", "nonsense", cobraDir},
	} {
		runCLI(t, 2, argv...)
	}
}
