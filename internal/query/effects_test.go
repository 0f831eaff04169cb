package query

import (
	"encoding/json"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// effectsFixture is the module internal/index/effects tests its rows on:
// every effect once, closures, method values, interface dispatch,
// recursion and goroutines.
const effectsFixture = "../index/effects/testdata/fixture.txtar"

var effectCalls = []toolCall{
	{"explain_effects", `{"qualified_name":"Worker"}`},
	{"explain_effects", `{"qualified_name":"Startup"}`},
	{"explain_effects", `{"qualified_name":"FetchAll"}`},
	{"explain_effects", `{"qualified_name":"Emit"}`},
	{"explain_effects", `{"qualified_name":"Sum"}`},
	{"explain_effects", `{"file":"shapes.go","name":"Store.Load"}`},
	{"explain_effects", `{"qualified_name":"counter"}`},
	{"explain_effects", `{"qualified_name":"Source.Fetch"}`},
	{"explain_effects", `{"qualified_name":"Nope"}`},
	{"emit_effect_graph", `{"qualified_name":"Worker"}`},
	{"emit_effect_graph", `{"qualified_name":"UseApply","format":"mermaid"}`},
	{"emit_effect_graph", `{"qualified_name":"Startup","max_nodes":1}`},
	{"emit_effect_graph", `{"qualified_name":"Startup","depth":11}`},
	{"emit_effect_graph", `{"qualified_name":"Worker","format":"svg"}`},
	{"find_symbol", `{"effects":"net,exec"}`},
	{"find_symbol", `{"name":"Fetch","effects":"fs"}`},
	{"find_symbol", `{"effects":"fs","kind":"type"}`},
	{"find_symbol", `{"effects":"teleport"}`},
}

// TestEffectsGolden renders the effect tools' answers on the effects
// fixture and compares them with testdata/effects.golden (-update
// rewrites it).
func TestEffectsGolden(t *testing.T) {
	platformNeutral(t)
	checkGolden(t, newFixture(t, effectsFixture), effectCalls, "testdata/effects.golden", nil)
}

// TestEffectsStructured checks the structured answers: explain_effects'
// witness ends at the cause, codes of bad input, and the JSON graph's
// schema_version, nodes and edges.
func TestEffectsStructured(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, effectsFixture)
	row := ok[*EffectsOutput](t, f, "explain_effects", `{"qualified_name":"Startup"}`)
	if !row.Analysed || row.Pure || row.Open != nil || len(row.Results) != 1 {
		t.Fatalf("Startup row = %+v; want one effect, closed", row)
	}
	fs := row.Results[0]
	if fs.Effect != "fs" || fs.Direct || !fs.Certain || len(fs.Witness) != 2 ||
		fs.Witness[0].Function != "Startup" || fs.Witness[0].Calls != "ReadConfig" ||
		fs.Witness[1].Calls != "os.ReadFile" || fs.Witness[1].Line == 0 || fs.Explanation == "" {
		t.Errorf("Startup fs = %+v; want transitive certain through ReadConfig to os.ReadFile", fs)
	}
	if e := fails(t, f, "explain_effects", `{"qualified_name":"cfg"}`, graph.CodeNotAFunction); e.Data["kind"] != "var" {
		t.Errorf("NOT_A_FUNCTION data = %v; want kind var", e.Data)
	}
	fails(t, f, "emit_effect_graph", `{"qualified_name":"Worker","max_nodes":1001}`, graph.CodeInvalidArgument)

	g := ok[*EffectGraphOutput](t, f, "emit_effect_graph", `{"qualified_name":"Worker"}`)
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Nodes         []struct {
			ID      string
			Effects []string
			Spawns  []string
		}
		Edges []struct{ From, To string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || len(doc.Nodes) != 3 || len(doc.Edges) != 3 {
		t.Errorf("Worker graph = %s; want schema_version 1, 3 nodes (Worker, Send, Hello), 3 edges", b)
	}
	cut := ok[*EffectGraphOutput](t, f, "emit_effect_graph", `{"qualified_name":"Startup","max_nodes":1}`)
	if !cut.Truncated || cut.Narrow == "" || cut.Total <= cut.Returned {
		t.Errorf("cut graph: truncated %v, narrow %q, total %d, returned %d; want it to say it was cut and how to narrow",
			cut.Truncated, cut.Narrow, cut.Total, cut.Returned)
	}
}
