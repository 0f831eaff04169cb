package e2e_test

import (
	"strings"
	"testing"
)

// TestListRepositories checks that the indexed cobra copy is listed with
// its module, a current snapshot and real counts.
func TestListRepositories(t *testing.T) {
	cs := sharedIndex(t)
	out, a := callOK[listRepositoriesOut](t, cs, "list_repositories", map[string]any{})
	if len(out.Results) != 1 {
		t.Fatalf("want exactly one repository, got %d: %s", len(out.Results), a.structured)
	}
	r := out.Results[0]
	if r.Name != cobraModule {
		t.Errorf("name = %q, want %q", r.Name, cobraModule)
	}
	if r.Root != cobraDir {
		t.Errorf("root = %q, want %q", r.Root, cobraDir)
	}
	if len(r.Modules) != 1 || r.Modules[0] != cobraModule {
		t.Errorf("modules = %v, want [%s]", r.Modules, cobraModule)
	}
	// cobra and cobra/doc, plus doc's external test package.
	if r.Packages < 2 || r.Files < 30 || r.Symbols < 500 {
		t.Errorf("counts too small for cobra: %d packages, %d files, %d symbols", r.Packages, r.Files, r.Symbols)
	}
	if r.Diagnostics != 0 {
		t.Errorf("cobra compiles, yet %d diagnostics were recorded", r.Diagnostics)
	}
	if !r.Fresh || !out.Fresh || r.SnapshotID == 0 || out.SnapshotID != r.SnapshotID {
		t.Errorf("snapshot: row %d fresh=%v, envelope %d fresh=%v", r.SnapshotID, r.Fresh, out.SnapshotID, out.Fresh)
	}
	if out.Total != 1 || out.Returned != 1 || out.Truncated || out.NextCursor != nil {
		t.Errorf("envelope paging = %+v", out.envelope)
	}
	if !strings.Contains(a.text, cobraModule) || !strings.Contains(a.text, "symbols") {
		t.Errorf("text does not summarise the repository:\n%s", a.text)
	}

	one, _ := callOK[listRepositoriesOut](t, cs, "list_repositories", map[string]any{"repository": cobraModule})
	if len(one.Results) != 1 || one.Results[0].Name != cobraModule {
		t.Errorf("repository filter: %+v", one.Results)
	}
	e := callErr(t, cs, "list_repositories", map[string]any{"repository": "github.com/nobody/nothing"}, "REPOSITORY_NOT_FOUND")
	if avail := e.list("available"); len(avail) != 1 || avail[0] != cobraModule {
		t.Errorf("REPOSITORY_NOT_FOUND data.available = %v, want [%s]", avail, cobraModule)
	}
	callErr(t, cs, "list_repositories", map[string]any{"response_format": "verbose"}, "INVALID_ARGUMENT")
}

// TestFindSymbolModes checks each match mode on names cobra declares.
func TestFindSymbolModes(t *testing.T) {
	cs := sharedIndex(t)
	cases := []struct {
		name, mode string
		want       string // a qualified name that must be among the results
		first      bool   // and must rank first
	}{
		{"Execute", "exact", "Command.Execute", true},
		{"Command.Execute", "exact", "Command.Execute", true},
		{"Execu", "prefix", "Command.ExecuteC", false},
		{"executec", "prefix", "Command.ExecuteC", true},
		{"ommandPat", "substring", "Command.CommandPath", true},
		{"ExecC", "fuzzy", "Command.ExecuteC", true},
		{"AddCmd", "fuzzy", "Command.AddCommand", true},
		{"AddCmd", "", "Command.AddCommand", true}, // fuzzy is the default
		{"GenMdTree", "", "GenMarkdownTree", true},
	}
	for _, c := range cases {
		args := map[string]any{"name": c.name}
		if c.mode != "" {
			args["mode"] = c.mode
		}
		out, a := callOK[findSymbolOut](t, cs, "find_symbol", args)
		row := find(out.Results, c.want)
		switch {
		case row == nil:
			t.Errorf("find_symbol %v: %s not among %v", args, c.want, names(out.Results))
			continue
		case c.first && out.Results[0].QualifiedName != c.want:
			t.Errorf("find_symbol %v: %s ranks first, want %s", args, out.Results[0].QualifiedName, c.want)
		}
		if row.StableKey == "" || row.Repository != cobraModule || row.StartLine == 0 || row.EndLine < row.StartLine || row.Signature == "" {
			t.Errorf("find_symbol %v: incomplete row %+v", args, *row)
		}
		if out.Total < out.Returned || out.Returned != len(out.Results) || !out.Fresh {
			t.Errorf("find_symbol %v: envelope %+v with %d results", args, out.envelope, len(out.Results))
		}
		if !strings.Contains(a.text, c.want) {
			t.Errorf("find_symbol %v: text does not show %s:\n%s", args, c.want, a.text)
		}
		if c.mode == "exact" {
			for _, r := range out.Results {
				if r.Name != c.name && r.QualifiedName != c.name {
					t.Errorf("find_symbol %v: exact mode returned %s", args, r.QualifiedName)
				}
			}
		}
	}

	none, a := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Zzyzx", "mode": "exact"})
	if none.Total != 0 || len(none.Results) != 0 || none.NextCursor != nil {
		t.Errorf("no match: %+v", none)
	}
	if !strings.Contains(a.text, "No symbol") {
		t.Errorf("no-match text does not say so: %q", a.text)
	}
}

// TestFindSymbolFilters checks the kind, path and exported filters.
func TestFindSymbolFilters(t *testing.T) {
	cs := sharedIndex(t)

	types, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Command", "kind": "type"})
	if len(types.Results) == 0 || types.Results[0].QualifiedName != "Command" || types.Results[0].Path != "command.go" {
		t.Errorf("kind type: want Command in command.go first, got %v", names(types.Results))
	}
	for _, r := range types.Results {
		if r.Kind != "type" {
			t.Errorf("kind type: got %s %s", r.Kind, r.QualifiedName)
		}
	}

	methods, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Execute", "kind": "method", "limit": 100})
	if find(methods.Results, "Command.Execute") == nil {
		t.Errorf("kind method: Command.Execute missing from %v", names(methods.Results))
	}
	for _, r := range methods.Results {
		if r.Kind != "method" {
			t.Errorf("kind method: got %s %s", r.Kind, r.QualifiedName)
		}
	}

	doc, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Gen", "mode": "prefix", "path": "doc/", "limit": 200})
	if doc.Total == 0 || find(doc.Results, "GenMarkdownTree") == nil {
		t.Errorf("path doc/: GenMarkdownTree missing from %v", names(doc.Results))
	}
	for _, r := range doc.Results {
		if !strings.HasPrefix(r.Path, "doc/") {
			t.Errorf("path doc/: got %s in %s", r.QualifiedName, r.Path)
		}
	}

	unexported, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "execute", "mode": "prefix", "exported": false, "limit": 200})
	if unexported.Total == 0 {
		t.Error("exported=false: nothing found for prefix execute")
	}
	for _, r := range unexported.Results {
		if r.Exported {
			t.Errorf("exported=false: got exported %s", r.QualifiedName)
		}
	}

	callErr(t, cs, "find_symbol", map[string]any{"name": "Command", "repository": "github.com/nobody/nothing"}, "REPOSITORY_NOT_FOUND")
	withRepo, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Command", "mode": "exact", "repository": cobraModule})
	if withRepo.Total == 0 {
		t.Error("repository filter: Command not found in cobra")
	}
}

// TestFindSymbolPaging walks every page of a query: the total is exact,
// pages do not overlap, and cursors are checked.
func TestFindSymbolPaging(t *testing.T) {
	cs := sharedIndex(t)
	query := map[string]any{"name": "Flag", "mode": "substring"}
	with := func(extra map[string]any) map[string]any {
		args := map[string]any{}
		for k, v := range query {
			args[k] = v
		}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	all, _ := callOK[findSymbolOut](t, cs, "find_symbol", with(map[string]any{"limit": 500}))
	if all.Total < 20 || all.Truncated || all.Returned != all.Total {
		t.Fatalf("substring Flag: total %d, returned %d, truncated %v; want one complete page of at least 20", all.Total, all.Returned, all.Truncated)
	}
	limit := all.Total/3 + 1
	seen := map[string]bool{}
	var keys []string
	cursor := ""
	pages := 0
	for {
		args := with(map[string]any{"limit": limit})
		if cursor != "" {
			args["cursor"] = cursor
		}
		page, a := callOK[findSymbolOut](t, cs, "find_symbol", args)
		pages++
		if page.Total != all.Total {
			t.Fatalf("page %d: total %d, want %d", pages, page.Total, all.Total)
		}
		if page.Returned != len(page.Results) || page.Returned > limit {
			t.Fatalf("page %d: returned %d with %d results, limit %d", pages, page.Returned, len(page.Results), limit)
		}
		for _, r := range page.Results {
			if seen[r.StableKey] {
				t.Errorf("page %d repeats %s", pages, r.QualifiedName)
			}
			seen[r.StableKey] = true
			keys = append(keys, r.StableKey)
		}
		if page.NextCursor == nil {
			if page.Truncated {
				t.Errorf("page %d: truncated without a next_cursor", pages)
			}
			break
		}
		if !page.Truncated {
			t.Errorf("page %d: next_cursor on a page that is not truncated", pages)
		}
		if !strings.Contains(a.text, *page.NextCursor) {
			t.Errorf("page %d: text does not tell how to get the next page", pages)
		}
		cursor = *page.NextCursor
		if pages > 10 {
			t.Fatal("more than 10 pages: the cursor does not advance")
		}
	}
	if len(keys) != all.Total || pages != 3 {
		t.Errorf("paged %d results in %d pages, want %d in 3", len(keys), pages, all.Total)
	}
	for i, r := range all.Results {
		if i < len(keys) && keys[i] != r.StableKey {
			t.Errorf("result %d: paged order differs from the single page (%s)", i, r.QualifiedName)
			break
		}
	}

	first, _ := callOK[findSymbolOut](t, cs, "find_symbol", with(map[string]any{"limit": limit}))
	callErr(t, cs, "find_symbol", with(map[string]any{"limit": limit, "cursor": "bm90LWEtY3Vyc29y"}), "CURSOR_INVALID")
	callErr(t, cs, "find_symbol", with(map[string]any{"limit": limit, "cursor": "%%%"}), "CURSOR_INVALID")
	// A cursor replayed against another query is refused, not misapplied.
	callErr(t, cs, "find_symbol", map[string]any{"name": "Command", "mode": "substring", "cursor": *first.NextCursor}, "CURSOR_INVALID")
	callErr(t, cs, "find_symbol", with(map[string]any{"limit": 0 - 1}), "INVALID_ARGUMENT")
	callErr(t, cs, "find_symbol", with(map[string]any{"limit": 501}), "INVALID_ARGUMENT")
}

// TestFindSymbolErrors checks argument validation: each failure names the
// field at fault.
func TestFindSymbolErrors(t *testing.T) {
	cs := sharedIndex(t)
	for _, c := range []struct {
		args  map[string]any
		code  string
		field string
	}{
		{map[string]any{"name": " Command"}, "INVALID_ARGUMENT", "name"},
		{map[string]any{"name": "Command\t"}, "INVALID_ARGUMENT", "name"},
		{map[string]any{"name": ""}, "INVALID_ARGUMENT", "name"},
		{map[string]any{}, "INVALID_ARGUMENT", "name"},
		{map[string]any{"name": "Command", "kind": "klass"}, "INVALID_ARGUMENT", "kind"},
		{map[string]any{"name": "Command", "mode": "regex"}, "INVALID_ARGUMENT", "mode"},
		{map[string]any{"name": "Command", "path": " doc/"}, "INVALID_ARGUMENT", "path"},
		{map[string]any{"name": "Command", "limit": "ten"}, "INVALID_ARGUMENT", "limit"},
		{map[string]any{"name": "Command", "colour": "red"}, "INVALID_ARGUMENT", "colour"},
		{map[string]any{"name": "Command", "path": "../x"}, "OUTSIDE_ROOTS", "path"},
		{map[string]any{"name": "Command", "path": "/etc"}, "OUTSIDE_ROOTS", "path"},
	} {
		a := call(t, cs, "find_symbol", c.args)
		if !a.res.IsError {
			// The go-sdk server may refuse some malformed arguments itself.
			t.Errorf("find_symbol %v: succeeded, want %s", c.args, c.code)
			continue
		}
		e := checkErr(t, "find_symbol", c.args, a, c.code)
		if f, _ := e.Data["field"].(string); f != c.field && !strings.Contains(e.Message, c.field) {
			t.Errorf("find_symbol %v: error does not name the field %s: %+v", c.args, c.field, e)
		}
	}
}
