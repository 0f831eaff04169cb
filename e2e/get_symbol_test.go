package e2e_test

import (
	"strings"
	"testing"
)

// getSymbol calls get_symbol with args and returns the symbol.
func getSymbol(t *testing.T, args map[string]any) *symbolDetail {
	t.Helper()
	out, a := callOK[getSymbolOut](t, sharedIndex(t), "get_symbol", args)
	if out.Results == nil {
		t.Fatalf("get_symbol %v: no symbol in %s", args, a.structured)
	}
	if out.Total != 1 || out.Returned != 1 || out.SnapshotID == 0 || !out.Fresh {
		t.Errorf("get_symbol %v: envelope %+v", args, out.envelope)
	}
	d := out.Results
	if !strings.Contains(a.text, d.QualifiedName) || !strings.Contains(a.text, d.Path) {
		t.Errorf("get_symbol %v: text does not name %s at %s:\n%s", args, d.QualifiedName, d.Path, a.text)
	}
	return d
}

// TestGetSymbolSelectors reaches cobra's Command type and its Execute
// method through every selector form and checks they agree.
func TestGetSymbolSelectors(t *testing.T) {
	cmd := getSymbol(t, map[string]any{"qualified_name": "Command"})
	if cmd.Kind != "type" || cmd.Path != "command.go" || cmd.PackagePath != cobraModule ||
		cmd.PackageName != "cobra" || cmd.ModulePath != cobraModule || cmd.Repository != cobraModule ||
		cmd.RepositoryPath != cobraDir || !cmd.Exported {
		t.Errorf("Command: %+v", *cmd)
	}
	if !strings.HasPrefix(cmd.Doc, "Command is just that") {
		t.Errorf("Command: doc = %q", cmd.Doc)
	}
	if cmd.StartLine == 0 || cmd.EndLine-cmd.StartLine < 100 {
		t.Errorf("Command: lines %d-%d, want the whole struct", cmd.StartLine, cmd.EndLine)
	}
	for _, f := range []string{"Use", "Short", "Long", "RunE", "Args"} {
		if !hasMember(cmd.Fields, f) {
			t.Errorf("Command: field %s missing", f)
		}
	}
	for _, m := range []string{"Execute", "ExecuteC", "AddCommand", "Flags", "execute"} {
		if !hasMember(cmd.Methods, m) {
			t.Errorf("Command: method %s missing", m)
		}
	}
	for _, m := range append(cmd.Fields, cmd.Methods...) {
		if m.StableKey == "" || m.StartLine == 0 || m.Signature == "" {
			t.Errorf("Command: incomplete member %+v", m)
		}
	}

	for _, args := range []map[string]any{
		{"stable_key": cmd.StableKey},
		{"qualified_name": "cobra.Command"},
		{"qualified_name": "github.com/spf13/cobra.Command"},
		{"qualified_name": "Command", "repository": cobraModule},
		{"qualified_name": "Command", "path": "command.go"},
		{"file": "command.go", "name": "Command"},
		{"file": "args.go", "name": "Command"},
		{"file": cobraDir + "/command.go", "name": "Command"},
	} {
		if d := getSymbol(t, args); d.StableKey != cmd.StableKey {
			t.Errorf("get_symbol %v = %s %s, want Command %s", args, d.QualifiedName, d.StableKey, cmd.StableKey)
		}
	}

	exec := getSymbol(t, map[string]any{"qualified_name": "Command.Execute"})
	if exec.Kind != "method" || exec.Name != "Execute" || exec.Receiver != "*Command" ||
		!strings.Contains(exec.Signature, "Execute() error") || exec.Path != "command.go" {
		t.Errorf("Command.Execute: %+v", *exec)
	}
	for _, args := range []map[string]any{
		{"qualified_name": "cobra.Command.Execute"},
		{"file": "command.go", "name": "Command.Execute"},
		{"stable_key": exec.StableKey},
	} {
		if d := getSymbol(t, args); d.StableKey != exec.StableKey {
			t.Errorf("get_symbol %v = %s, want Command.Execute", args, d.QualifiedName)
		}
	}

	field := getSymbol(t, map[string]any{"qualified_name": "Command.Use"})
	if field.Kind != "field" || !strings.Contains(field.Signature, "string") {
		t.Errorf("Command.Use: %+v", *field)
	}
	// A symbol of the doc package, resolved through doc/md_docs.go's own
	// import of cobra.
	if d := getSymbol(t, map[string]any{"file": "doc/md_docs.go", "name": "cobra.Command"}); d.StableKey != cmd.StableKey {
		t.Errorf("cobra.Command from doc/md_docs.go = %s", d.QualifiedName)
	}
	if d := getSymbol(t, map[string]any{"file": "doc/md_docs.go", "name": "GenMarkdownTree"}); d.PackagePath != cobraModule+"/doc" || d.Kind != "func" {
		t.Errorf("GenMarkdownTree from doc/md_docs.go: %+v", *d)
	}
}

// TestGetSymbolNotFound checks the failures that name what was not found:
// suggestions for a typo, a package outside the index, a name a file
// cannot see, a key from nowhere.
func TestGetSymbolNotFound(t *testing.T) {
	cs := sharedIndex(t)
	e := callErr(t, cs, "get_symbol", map[string]any{"qualified_name": "Comand"}, "SYMBOL_NOT_FOUND")
	sugg := e.list("suggestions")
	if len(sugg) == 0 || !strings.HasPrefix(sugg[0], "Command ") {
		t.Errorf("Comand: suggestions %v, want Command first", sugg)
	}
	a := call(t, cs, "get_symbol", map[string]any{"qualified_name": "Comand"})
	if !strings.Contains(a.text, "Command") {
		t.Errorf("Comand: the text shows no suggestion: %q", a.text)
	}

	e = callErr(t, cs, "get_symbol", map[string]any{"qualified_name": "Command", "path": "doc/"}, "SYMBOL_NOT_FOUND")
	if !strings.Contains(e.Message, "doc/") {
		t.Errorf("narrowed by path: the message does not say where it looked: %q", e.Message)
	}

	// command.go imports github.com/spf13/pflag as flag: the name resolves
	// to a package that is not indexed.
	e = callErr(t, cs, "get_symbol", map[string]any{"file": "command.go", "name": "flag.FlagSet"}, "SYMBOL_NOT_FOUND")
	if !strings.Contains(e.Message, "outside") || !strings.Contains(e.Message, "github.com/spf13/pflag") {
		t.Errorf("flag.FlagSet: message %q does not say pflag is outside the index", e.Message)
	}
	// Under its own name pflag is not visible in command.go.
	e = callErr(t, cs, "get_symbol", map[string]any{"file": "command.go", "name": "pflag.FlagSet"}, "SYMBOL_NOT_FOUND")
	if !strings.Contains(e.Message, "command.go") {
		t.Errorf("pflag.FlagSet: message %q does not name the file", e.Message)
	}
	// GenMarkdownTree is declared in package doc, which command.go cannot see.
	callErr(t, cs, "get_symbol", map[string]any{"file": "command.go", "name": "GenMarkdownTree"}, "SYMBOL_NOT_FOUND")

	callErr(t, cs, "get_symbol", map[string]any{"stable_key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "SYMBOL_NOT_FOUND")
	callErr(t, cs, "get_symbol", map[string]any{"qualified_name": "Command", "repository": "github.com/nobody/nothing"}, "REPOSITORY_NOT_FOUND")
	callErr(t, cs, "get_symbol", map[string]any{"file": "nope.go", "name": "Command"}, "FILE_NOT_FOUND")
	callErr(t, cs, "get_symbol", map[string]any{"file": "../cobra/command.go", "name": "Command"}, "OUTSIDE_ROOTS")
	needEscape(t)
	callErr(t, cs, "get_symbol", map[string]any{"file": "testdata/escape/secret.go", "name": "Secret"}, "OUTSIDE_ROOTS")
}

// TestGetSymbolAmbiguous finds a name cobra declares twice (emptyRun, a
// test helper of both cobra and cobra/doc), expects AMBIGUOUS_SYMBOL with
// both places, and narrows to each.
func TestGetSymbolAmbiguous(t *testing.T) {
	cs := sharedIndex(t)
	const name = "emptyRun"
	found, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": name, "mode": "exact"})
	if found.Total < 2 {
		t.Fatalf("cobra declares %s in command_test.go and doc/cmd_test.go; find_symbol found %d", name, found.Total)
	}
	e := callErr(t, cs, "get_symbol", map[string]any{"qualified_name": name}, "AMBIGUOUS_SYMBOL")
	cands := e.list("candidates")
	if len(cands) != found.Total {
		t.Fatalf("candidates %v, want %d", cands, found.Total)
	}
	for _, r := range found.Results {
		place := cobraModule + " " + r.Path + ":"
		ok := false
		for _, c := range cands {
			ok = ok || strings.HasPrefix(c, place)
		}
		if !ok {
			t.Errorf("no candidate names %s (candidates %v)", place, cands)
		}
		// Each candidate is reachable by narrowing with its path, or its key.
		d := getSymbol(t, map[string]any{"qualified_name": name, "path": r.Path})
		if d.StableKey != r.StableKey {
			t.Errorf("narrowed to %s: got %s in %s", r.Path, d.StableKey, d.Path)
		}
		if d := getSymbol(t, map[string]any{"stable_key": r.StableKey}); d.Path != r.Path {
			t.Errorf("by key: %s is in %s, want %s", r.StableKey, d.Path, r.Path)
		}
	}
	// Qualified by package, only one remains.
	if d := getSymbol(t, map[string]any{"qualified_name": "doc." + name}); d.PackagePath != cobraModule+"/doc" {
		t.Errorf("doc.%s: got package %s", name, d.PackagePath)
	}
}

// TestGetSymbolInvalid checks selector validation: each failure names the
// field at fault.
func TestGetSymbolInvalid(t *testing.T) {
	cs := sharedIndex(t)
	for _, c := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"qualified_name": " Command"}, "qualified_name"},
		{map[string]any{"qualified_name": "Command "}, "qualified_name"},
		{map[string]any{"stable_key": " ABC"}, "stable_key"},
		{map[string]any{"stable_key": "not-a-key"}, "stable_key"},
		{map[string]any{"file": "command.go", "name": "Command\n"}, "name"},
		{map[string]any{"file": "command.go"}, "name"},
		{map[string]any{"name": "Command"}, "file"},
		{map[string]any{}, "stable_key"},
		{map[string]any{"stable_key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "qualified_name": "Command"}, "stable_key"},
		{map[string]any{"qualified_name": "Command", "file": "command.go", "name": "Command"}, "qualified_name"},
		{map[string]any{"qualified_name": "Command", "response_format": "long"}, "response_format"},
	} {
		e := callErr(t, cs, "get_symbol", c.args, "INVALID_ARGUMENT")
		if f, _ := e.Data["field"].(string); f != c.field {
			t.Errorf("get_symbol %v: data.field = %q, want %q (%s)", c.args, f, c.field, e.Message)
		}
		if !strings.Contains(e.Message, c.field) {
			t.Errorf("get_symbol %v: message does not name %s: %q", c.args, c.field, e.Message)
		}
	}
}
