package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The effect tools through the binary, on cobra: served with --tools all
// over the shared index.

type witnessStep struct {
	Function string `json:"function"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Calls    string `json:"calls"`
	Detail   string `json:"detail"`
}

type effectEntry struct {
	Effect      string        `json:"effect"`
	Explanation string        `json:"explanation"`
	Direct      bool          `json:"direct"`
	Certain     bool          `json:"certain"`
	Witness     []witnessStep `json:"witness"`
}

type explainEffectsOut struct {
	envelope
	Symbol   *symbolRef    `json:"symbol"`
	Analysed bool          `json:"analysed"`
	Pure     bool          `json:"pure"`
	Open     *effectEntry  `json:"open"`
	Results  []effectEntry `json:"results"`
}

type effectGraphOut struct {
	envelope
	SchemaVersion int    `json:"schema_version"`
	Format        string `json:"format"`
	Nodes         []struct {
		ID            string   `json:"id"`
		QualifiedName string   `json:"qualified_name"`
		Effects       []string `json:"effects"`
	} `json:"nodes"`
	Edges   []struct{ From, To string } `json:"edges"`
	Narrow  string                      `json:"narrow"`
	Mermaid string                      `json:"mermaid"`
}

func TestEffectTools(t *testing.T) {
	sharedIndex(t) // the index the second server reads
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--tools", "all", "--db", sharedDB, cobraDir)
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to sextant serve --tools all: %v", err)
	}
	defer cs.Close()

	// cobra.CheckErr prints to stderr and exits.
	row, _ := callOK[explainEffectsOut](t, cs, "explain_effects", map[string]any{"qualified_name": "CheckErr"})
	got := map[string]effectEntry{}
	for _, e := range row.Results {
		got[e.Effect] = e
	}
	for _, want := range []string{"exit", "stdio"} {
		e, ok := got[want]
		if !ok {
			t.Errorf("CheckErr row lacks %s: %+v", want, row.Results)
			continue
		}
		if !e.Direct || !e.Certain || len(e.Witness) != 1 || e.Witness[0].Path != "cobra.go" || e.Witness[0].Line == 0 || e.Explanation == "" {
			t.Errorf("CheckErr %s = %+v; want direct, certain, one step in cobra.go", want, e)
		}
	}
	if e := got["exit"]; len(e.Witness) == 1 && e.Witness[0].Calls != "os.Exit" {
		t.Errorf("CheckErr exit witness calls %q, want os.Exit", e.Witness[0].Calls)
	}
	callErr(t, cs, "explain_effects", map[string]any{"qualified_name": "Command"}, "NOT_A_FUNCTION")

	// Who may exit? CheckErr at least.
	found, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"effects": "exit", "limit": 500})
	if !slices.ContainsFunc(found.Results, func(r symbolRow) bool { return r.QualifiedName == "CheckErr" }) {
		t.Errorf("find_symbol effects=exit misses CheckErr: %+v", found.Results)
	}

	g, a := callOK[effectGraphOut](t, cs, "emit_effect_graph", map[string]any{"qualified_name": "Command.ExecuteC", "depth": 2, "format": "mermaid"})
	if g.SchemaVersion != 1 || len(g.Nodes) < 2 || g.Nodes[0].QualifiedName != "Command.ExecuteC" ||
		!strings.HasPrefix(g.Mermaid, "flowchart") || !strings.Contains(a.text, "flowchart LR") {
		t.Errorf("emit_effect_graph Command.ExecuteC = %d nodes, mermaid %q", len(g.Nodes), g.Mermaid)
	}
	cut, _ := callOK[effectGraphOut](t, cs, "emit_effect_graph", map[string]any{"qualified_name": "Command.ExecuteC", "max_nodes": 2})
	if !cut.Truncated || cut.Narrow == "" || len(cut.Nodes) != 2 {
		t.Errorf("emit_effect_graph max_nodes 2: truncated %v, %d nodes, narrow %q", cut.Truncated, len(cut.Nodes), cut.Narrow)
	}
}
