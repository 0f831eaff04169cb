package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestFileOutline outlines command.go: the Command type with its fields
// and methods nested under it, functions at top level, line ranges that
// match get_symbol's.
func TestFileOutline(t *testing.T) {
	cs := sharedIndex(t)
	out, a := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": "command.go"})
	if len(out.Results) != 1 || out.Repository != cobraModule || out.Total != 1 || !out.Fresh {
		t.Fatalf("outline of command.go: repository %q, %d files, envelope %+v", out.Repository, len(out.Results), out.envelope)
	}
	f := out.Results[0]
	src, err := os.ReadFile(filepath.Join(cobraDir, "command.go"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "command.go" || f.Package != "cobra" || f.Lines != strings.Count(string(src), "\n") || len(f.ParseErrors) != 0 {
		t.Errorf("file: path %q package %q lines %d (want %d) errors %v", f.Path, f.Package, f.Lines, strings.Count(string(src), "\n"), f.ParseErrors)
	}
	cmd := f.entry("Command")
	if cmd == nil {
		t.Fatal("no Command entry")
	}
	detail := getSymbol(t, map[string]any{"qualified_name": "Command"})
	if cmd.Kind != "type" || cmd.StartLine != detail.StartLine || cmd.EndLine != detail.EndLine {
		t.Errorf("Command entry %s %d-%d, get_symbol says %d-%d", cmd.Kind, cmd.StartLine, cmd.EndLine, detail.StartLine, detail.EndLine)
	}
	for _, m := range []struct{ name, kind string }{{"Use", "field"}, {"RunE", "field"}, {"Execute", "method"}, {"AddCommand", "method"}} {
		mm := cmd.member(m.name, m.kind)
		if mm == nil {
			t.Errorf("Command: no %s %s nested", m.kind, m.name)
			continue
		}
		if mm.StartLine == 0 || mm.EndLine < mm.StartLine || mm.Signature == "" {
			t.Errorf("Command.%s: %+v", m.name, *mm)
		}
	}
	if f.entry("Execute") != nil || f.entry("Command.Execute") != nil {
		t.Error("a method of Command declared in command.go is listed at top level")
	}
	for i := 1; i < len(f.Entries); i++ {
		if f.Entries[i].StartLine < f.Entries[i-1].StartLine {
			t.Errorf("entries out of source order at %s", f.Entries[i].Name)
		}
	}
	if !strings.Contains(a.text, "type Command") || !strings.Contains(a.text, "Execute() error") {
		t.Errorf("text does not show Command and Execute:\n%.500s", a.text)
	}

	// Absolute paths inside the root are accepted.
	abs, _ := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": filepath.Join(cobraDir, "command.go")})
	if len(abs.Results) != 1 || abs.Results[0].Path != "command.go" {
		t.Errorf("absolute path: %+v", abs.Results)
	}
	// Methods whose type lives in another file are listed as Type.Method.
	other, _ := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": "completions.go"})
	if len(other.Results) != 1 || other.Results[0].entry("Command.GenBashCompletion") == nil && other.Results[0].entry("Command.RegisterFlagCompletionFunc") == nil {
		t.Errorf("completions.go: no Command.Method entry at top level")
	}
}

// TestDirectoryOutline outlines a directory: one outline per .go file,
// by name when it fits a page, and paged with a cursor most used first.
func TestDirectoryOutline(t *testing.T) {
	cs := sharedIndex(t)
	var want []string
	entries, err := os.ReadDir(filepath.Join(cobraDir, "doc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			want = append(want, "doc/"+e.Name())
		}
	}
	sort.Strings(want)
	out, _ := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": "doc"})
	var got []string
	for _, f := range out.Results {
		got = append(got, f.Path)
		if f.Package != "doc" && f.Package != "doc_test" {
			t.Errorf("%s: package %q", f.Path, f.Package)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || out.Total != len(want) {
		t.Errorf("doc outline files = %v (total %d), want %v", got, out.Total, want)
	}

	// The root directory, two files a page.
	var paged []string
	cursor := ""
	for page := 0; ; page++ {
		args := map[string]any{"path": ".", "limit": 2}
		if cursor != "" {
			args["cursor"] = cursor
		}
		out, _ := callOK[outlineOut](t, cs, "get_file_outline", args)
		for _, f := range out.Results {
			if strings.Contains(f.Path, "/") {
				t.Errorf("root outline includes %s from a subdirectory", f.Path)
			}
			paged = append(paged, f.Path)
		}
		if out.NextCursor == nil {
			if len(paged) != out.Total {
				t.Errorf("paged %d files, total says %d", len(paged), out.Total)
			}
			break
		}
		cursor = *out.NextCursor
		if page > 40 {
			t.Fatal("the cursor does not advance")
		}
	}
	// Pages of a directory come most used first (command.go, whose
	// declarations every other file uses), each file once.
	sorted := slices.Clone(paged)
	sort.Strings(sorted)
	if len(paged) < 20 || len(slices.Compact(sorted)) != len(paged) || paged[0] != "command.go" {
		t.Errorf("root outline: %d files, first %q; want each once, command.go first: %v", len(paged), paged[0], paged)
	}
	callErr(t, cs, "get_file_outline", map[string]any{"path": ".", "cursor": cursor + "x"}, "CURSOR_INVALID")
}

// TestOutlineBrokenFile outlines files that are not UTF-8 and do not
// parse: the answer lists the syntax errors and outlines what did parse.
func TestOutlineBrokenFile(t *testing.T) {
	cs := sharedIndex(t)
	for _, c := range []struct {
		path, pkg string
	}{
		{"testdata/latin1.go", "broken"},
		// The Latin-1 byte is read with the package clause; an outline that
		// only hands the bytes to go/parser loses the whole file.
		{"testdata/latin1_header.go", "latin1"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			out, a := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": c.path})
			if len(out.Results) != 1 {
				t.Fatalf("want one file: %s", a.structured)
			}
			f := out.Results[0]
			if len(f.ParseErrors) == 0 || !containsSubstring(f.ParseErrors, "UTF-8") {
				t.Errorf("parse errors %v; want the illegal UTF-8 reported", f.ParseErrors)
			}
			if !strings.Contains(a.text, "syntax error") {
				t.Errorf("text does not show the syntax errors:\n%s", a.text)
			}
			if f.Package != c.pkg || f.entry("Hello") == nil || f.entry("Kept") == nil {
				t.Errorf("package %q, entries %+v; want package %s with Hello and Kept outlined", f.Package, f.Entries, c.pkg)
			}
		})
	}
}

// TestOutlineErrors checks the path failures: leaving the root lexically,
// by an absolute path or through a symlink; missing files; files that are
// not Go; bad arguments.
func TestOutlineErrors(t *testing.T) {
	cs := sharedIndex(t)
	type failure struct {
		args map[string]any
		code string
	}
	check := func(c failure) {
		t.Helper()
		e := callErr(t, cs, "get_file_outline", c.args, c.code)
		if c.code == "INVALID_ARGUMENT" || c.code == "OUTSIDE_ROOTS" {
			if f, _ := e.Data["field"].(string); f == "" {
				t.Errorf("get_file_outline %v: %s without data.field: %s", c.args, c.code, e.Message)
			}
		}
		if strings.Contains(e.Message, "secret") && strings.Contains(e.Message, "42") {
			t.Errorf("get_file_outline %v: the error leaks the outside file's content", c.args)
		}
	}
	for _, c := range []failure{
		{map[string]any{"path": "../x"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": "../cobra/command.go"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": "doc/../../x.go"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": "/etc/passwd"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": filepath.Dir(cobraDir)}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": "nope.go"}, "FILE_NOT_FOUND"},
		{map[string]any{"path": "doc/nope"}, "FILE_NOT_FOUND"},
		{map[string]any{"path": "command.go", "repository": "github.com/nobody/nothing"}, "REPOSITORY_NOT_FOUND"},
		{map[string]any{"path": "README.md"}, "INVALID_ARGUMENT"},
		{map[string]any{"path": " command.go"}, "INVALID_ARGUMENT"},
		{map[string]any{"path": ""}, "INVALID_ARGUMENT"},
		{map[string]any{"path": "doc", "limit": 1000}, "INVALID_ARGUMENT"},
	} {
		check(c)
	}
	needEscape(t)
	for _, c := range []failure{
		{map[string]any{"path": "testdata/escape"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": "testdata/escape/secret.go"}, "OUTSIDE_ROOTS"},
		{map[string]any{"path": filepath.Join(cobraDir, "testdata/escape/secret.go")}, "OUTSIDE_ROOTS"},
	} {
		check(c)
	}
}
