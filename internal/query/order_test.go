package query

import (
	"slices"
	"testing"
)

// TestExplainTypeMemberOrder checks that explain_type lists a type's
// methods by their uses from outside the type, then by all their uses,
// not alphabetically: Drive (4 uses from outside), Abort (2), Inner (used
// only by the type's own methods), Zero (unused).
func TestExplainTypeMemberOrder(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/order.txtar")
	out := ok[*ExplainTypeOutput](t, f, "explain_type", `{"qualified_name":"Ctx"}`)
	var got []string
	for _, m := range out.Results.Methods {
		got = append(got, m.Name)
	}
	if want := []string{"Drive", "Abort", "Inner", "Zero"}; !slices.Equal(got, want) {
		t.Errorf("methods %v, want %v", got, want)
	}
}

// TestOverviewCommandOrder checks that the overview lists first the
// command that reaches most of the repository, not the first directory
// by name.
func TestOverviewCommandOrder(t *testing.T) {
	f := newFixture(t, "testdata/order.txtar")
	out := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{"section":"commands"}`)
	var got []string
	for _, c := range out.Commands {
		got = append(got, c.Dir)
	}
	if want := []string{"cmd/server", "aaa/fixture"}; !slices.Equal(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
}

// TestOutlineDirectoryOrder checks that get_file_outline pages a
// directory's files by the uses of their declarations from other files,
// most first, and that the pages add up to every file once.
func TestOutlineDirectoryOrder(t *testing.T) {
	f := newFixture(t, "testdata/order.txtar")
	var got []string
	args := `{"path":"lib","limit":1}`
	for range 5 {
		out := ok[*GetFileOutlineOutput](t, f, "get_file_outline", args)
		for _, r := range out.Results {
			got = append(got, r.Path)
		}
		if out.NextCursor == nil {
			break
		}
		args = `{"path":"lib","limit":1,"cursor":"` + *out.NextCursor + `"}`
	}
	if want := []string{"lib/ctx.go", "lib/z_used.go", "lib/a_unused.go"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}
