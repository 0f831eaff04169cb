package query

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hubFixture writes a module whose function Hub has n callers, C000 to
// C(n-1), and a second module file with direct and mutual recursion.
func hubFixture(t *testing.T, n int) *fixture {
	t.Helper()
	return indexFixture(t, func() string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("package hub\n\n// Hub is called by many.\nfunc Hub() int { return 1 }\n")
		for i := range n {
			fmt.Fprintf(&b, "\nfunc C%03d() int { return Hub() }\n", i)
		}
		files := map[string]string{
			"go.mod": "module example.com/hub\n\ngo 1.24\n",
			"hub.go": b.String(),
			"rec.go": `package hub

// Fact calls itself.
func Fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * Fact(n-1)
}

// Even and Odd call each other.
func Even(n int) bool {
	if n == 0 {
		return true
	}
	return Odd(n - 1)
}

func Odd(n int) bool {
	if n == 0 {
		return false
	}
	return Even(n - 1)
}
`,
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	})
}

// TestCallersCutByMaxNodes checks that a walk max_nodes cuts says so
// (truncated, a cursor, the first line of the text) and that following
// the cursor resumes it to the end, each caller once; and that a limit
// above the default max_nodes is not cut short by it.
func TestCallersCutByMaxNodes(t *testing.T) {
	const n = 160
	f := hubFixture(t, n)
	all := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"Hub","limit":500}`)
	if len(all.Results) != n || all.Truncated || all.NextCursor != nil {
		t.Errorf("limit 500: %d rows, truncated %v, cursor %v; want all %d in one page", len(all.Results), all.Truncated, all.NextCursor != nil, n)
	}

	seen := map[string]int{}
	args := `{"qualified_name":"Hub","max_nodes":30,"limit":500}`
	page := ok[*CallGraphOutput](t, f, "get_callers", args)
	if !page.Truncated || page.NextCursor == nil {
		t.Fatalf("max_nodes 30: truncated %v, cursor %v; want a cut walk with a continuation", page.Truncated, page.NextCursor != nil)
	}
	if first, _, _ := strings.Cut(page.Text(), "\n"); !strings.Contains(first, "max_nodes") {
		t.Errorf("first line %q does not say max_nodes cut the walk", first)
	}
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("cursor does not end")
		}
		for _, r := range page.Results {
			seen[r.QualifiedName]++
		}
		if page.NextCursor == nil {
			break
		}
		if !page.Truncated {
			t.Errorf("a page with a cursor says truncated false")
		}
		page = ok[*CallGraphOutput](t, f, "get_callers", fmt.Sprintf(`{"qualified_name":"Hub","max_nodes":30,"limit":500,"cursor":%q}`, *page.NextCursor))
	}
	if len(seen) != n {
		t.Errorf("pages hold %d distinct callers, want %d", len(seen), n)
	}
	for name, c := range seen {
		if c != 1 {
			t.Errorf("%s listed %d times across pages", name, c)
		}
	}

	// The page size cuts as before, and a limit below max_nodes still
	// pages through every caller.
	seen = map[string]int{}
	page = ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"Hub"}`)
	for page.NextCursor != nil {
		for _, r := range page.Results {
			seen[r.QualifiedName]++
		}
		page = ok[*CallGraphOutput](t, f, "get_callers", fmt.Sprintf(`{"qualified_name":"Hub","cursor":%q}`, *page.NextCursor))
	}
	for _, r := range page.Results {
		seen[r.QualifiedName]++
	}
	if len(seen) != n {
		t.Errorf("default pages hold %d distinct callers, want %d", len(seen), n)
	}
}

// TestCallGraphRecursion checks that a function calling itself is its
// own caller and callee, and that mutual recursion shows the edge back
// to the root.
func TestCallGraphRecursion(t *testing.T) {
	f := hubFixture(t, 1)
	has := func(o *CallGraphOutput, depth int, name, parent string) bool {
		for _, r := range o.Results {
			if r.Depth == depth && r.QualifiedName == name && r.Parent == parent {
				return true
			}
		}
		return false
	}
	for _, tool := range []string{"get_callers", "get_callees"} {
		out := ok[*CallGraphOutput](t, f, tool, `{"qualified_name":"Fact"}`)
		if !has(out, 1, "Fact", "Fact") {
			t.Errorf("%s Fact: no Fact row in %+v", tool, out.Results)
		}
		out = ok[*CallGraphOutput](t, f, tool, `{"qualified_name":"Even","depth":2}`)
		if !has(out, 1, "Odd", "Even") || !has(out, 2, "Even", "Odd") {
			t.Errorf("%s Even depth 2: want Odd at 1 and Even back at 2, got %+v", tool, out.Results)
		}
	}
}
