package query

import (
	"strings"
	"testing"
)

// TestTestOnlyEdges checks that a call production code makes only in a
// test binary (through a variable a test points at a test function)
// stays out of answers about production code: Run's callees and its
// effects. include_tests lists the edge, and a walk from the test
// follows it.
func TestTestOnlyEdges(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/testonly.txtar")
	callees := func(args string) map[string]bool {
		out := ok[*CallGraphOutput](t, f, "get_callees", args)
		names := map[string]bool{}
		for _, r := range out.Results {
			names[r.QualifiedName] = true
		}
		return names
	}
	if got := callees(`{"qualified_name":"Run"}`); got["readHelper"] || !got["noop"] {
		t.Errorf("get_callees Run = %v; want noop and not the test's readHelper", got)
	}
	if got := callees(`{"qualified_name":"Run","include_tests":true}`); !got["readHelper"] {
		t.Errorf("get_callees Run include_tests = %v; want readHelper", got)
	}
	if got := callees(`{"qualified_name":"TestRun","depth":2}`); !got["readHelper"] {
		t.Errorf("get_callees TestRun depth 2 = %v; want readHelper through Run", got)
	}
	callers := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"Run"}`)
	if len(callers.Results) != 1 || callers.Results[0].QualifiedName != "TestRun" {
		t.Errorf("get_callers Run = %+v; want TestRun", callers.Results)
	}

	row := ok[*EffectsOutput](t, f, "explain_effects", `{"qualified_name":"Run"}`)
	for _, e := range row.Results {
		if e.Effect == "fs" {
			t.Errorf("Run has an fs effect through the test helper: %+v", e)
		}
		for _, st := range e.Witness {
			if st.Path == "app_test.go" {
				t.Errorf("Run's %s witness passes through app_test.go: %+v", e.Effect, e.Witness)
			}
		}
	}
	g := ok[*EffectGraphOutput](t, f, "emit_effect_graph", `{"qualified_name":"Run"}`)
	for _, n := range g.Nodes {
		if n.Path == "app_test.go" {
			t.Errorf("emit_effect_graph Run reaches test code: %+v", g.Nodes)
		}
	}
	sum := ok[*GetContextOutput](t, f, "get_context_for_symbol", `{"qualified_name":"Run"}`)
	if strings.Contains(sum.Text(), "readHelper") {
		t.Errorf("get_context_for_symbol Run names the test's readHelper:\n%s", sum.Text())
	}
	helper := ok[*EffectsOutput](t, f, "explain_effects", `{"qualified_name":"readHelper"}`)
	if len(helper.Results) != 1 || helper.Results[0].Effect != "fs" {
		t.Errorf("readHelper's effects = %+v; want its own fs", helper.Results)
	}
}
