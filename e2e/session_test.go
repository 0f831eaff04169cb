package e2e_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/internal/query"
)

// toolNames are the tools the default profile publishes: one for each
// kind of question (get_impact too, where it is built).
var toolNames = func() []string {
	names := []string{"get_repository_overview", "find_symbol", "get_symbol", "get_file_outline", "read_source",
		"search_code", "get_context_for_symbol", "find_references", "get_callers", "get_callees",
		"find_implementations", "explain_effects", "explain_type", "infer_type", "check_file"}
	if _, ok := query.LookupTool("get_impact"); ok {
		names = append(names, "get_impact")
	}
	return names
}()

// maxSeenBytes is the budget of what a model is shown of the default
// tools/list (each tool's name, description, input schema and
// annotations; clients keep output schemas to themselves), and
// maxToolsListBytes that of the whole answer on the wire, as
// ../shared/tools/toolcheck measures them.
const (
	maxSeenBytes      = 20000
	maxToolsListBytes = 48000
)

// TestToolsList checks every published tool: the expected set, each with
// a description, an input schema whose parameters are described, an
// output schema, and read-only annotations.
func TestToolsList(t *testing.T) {
	cs := connect(t, "", nil, sharedDB, "--tools", "default", cobraDir)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var got []string
	for _, tl := range res.Tools {
		got = append(got, tl.Name)
		if len(tl.Description) < 150 {
			t.Errorf("%s: description is %d characters, too short to guide an agent", tl.Name, len(tl.Description))
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s: no outputSchema", tl.Name)
		}
		a := tl.Annotations
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tl.Name)
			continue
		case !a.ReadOnlyHint:
			t.Errorf("%s: readOnlyHint is false", tl.Name)
		case !a.IdempotentHint:
			t.Errorf("%s: idempotentHint is false", tl.Name)
		case a.OpenWorldHint == nil || *a.OpenWorldHint:
			t.Errorf("%s: openWorldHint is not false", tl.Name)
		}
		in, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Type                 string                                  `json:"type"`
			Properties           map[string]struct{ Description string } `json:"properties"`
			AdditionalProperties any                                     `json:"additionalProperties"`
		}
		if err := json.Unmarshal(in, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: input schema is not an object schema: %s", tl.Name, in)
		}
		for p, d := range schema.Properties {
			if len(d.Description) < 20 {
				t.Errorf("%s: parameter %s has no real description", tl.Name, p)
			}
		}
		out, _ := json.Marshal(tl.OutputSchema)
		fields := []string{"snapshot_id", "fresh", "total", "returned", "truncated", "next_cursor", "results"}
		if tl.Name == "get_context_for_symbol" {
			fields = fields[:len(fields)-1] // one summary, not a list of results
		}
		for _, field := range fields {
			if !strings.Contains(string(out), `"`+field+`"`) {
				t.Errorf("%s: output schema lacks the envelope field %s", tl.Name, field)
			}
		}
	}
	if b, err := json.Marshal(map[string]any{"tools": res.Tools}); err != nil || len(b) >= maxToolsListBytes {
		t.Errorf("tools/list is %d bytes, over its budget of %d: trim descriptions or schemas", len(b), maxToolsListBytes)
	}
	seen := 0
	for _, tl := range res.Tools {
		in, _ := json.Marshal(tl.InputSchema)
		ann, _ := json.Marshal(tl.Annotations)
		seen += len(tl.Name) + len(tl.Description) + len(in) + len(ann)
	}
	if seen > maxSeenBytes {
		t.Errorf("a model sees %d bytes of tools/list, over its budget of %d: trim descriptions or input schemas", seen, maxSeenBytes)
	}
	slices.Sort(got) // the SDK lists tools by name
	want := slices.Sorted(slices.Values(toolNames))
	if !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
}

// TestInitialize checks the handshake under both protocol generations the
// SDK speaks: server/discover (the SDK's default) and the legacy
// initialize request that most clients send. Each carries the server's
// instructions for the agent.
func TestInitialize(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18", "2025-11-25"} {
		name := protocol
		if name == "" {
			name = "sdk-default"
		}
		t.Run(name, func(t *testing.T) {
			cs := connect(t, protocol, nil, sharedDB, cobraDir)
			init := cs.InitializeResult()
			if init == nil {
				t.Fatal("no initialize result")
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "sextant" || init.ServerInfo.Version == "" {
				t.Errorf("serverInfo = %+v, want name sextant and a version", init.ServerInfo)
			}
			if protocol != "" && init.ProtocolVersion != protocol {
				t.Errorf("negotiated protocol %s, want %s", init.ProtocolVersion, protocol)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil {
				t.Errorf("capabilities do not announce tools: %+v", init.Capabilities)
			}
			for _, want := range toolNames {
				if !strings.Contains(init.Instructions, want) {
					t.Errorf("instructions do not mention %s:\n%s", want, init.Instructions)
				}
			}
			// A cheap call proves the session works after this handshake.
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Errorf("tools/list after the handshake: %v", err)
			}
		})
	}
}

// TestIndexOnFirstUse checks the call that indexed the shared database:
// it answered after indexing cobra, and reported progress on the token it
// was given, with values that only grow.
func TestIndexOnFirstUse(t *testing.T) {
	sharedIndex(t)
	a := answerOf(t, shared.first)
	out := decodeOK[listRepositoriesOut](t, "list_repositories", nil, a)
	if len(out.Results) != 1 || out.Results[0].Symbols == 0 {
		t.Fatalf("first call did not answer with the indexed repository: %s", a.structured)
	}
	t.Logf("first call indexed cobra in %s", shared.elapsed.Round(time.Millisecond))
	// Notifications are handled asynchronously: give stragglers a moment.
	var notes []mcp.ProgressNotificationParams
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		notes = shared.progress.snapshot()
		if len(notes) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(notes) == 0 {
		t.Fatal("no progress notification arrived while the first call indexed cobra")
	}
	last := -1.0
	for i, n := range notes {
		if n.ProgressToken != shared.token {
			t.Errorf("notification %d has token %v, want %q", i, n.ProgressToken, shared.token)
		}
		if n.Progress <= last {
			t.Errorf("notification %d: progress %v does not increase (previous %v; message %q)", i, n.Progress, last, n.Message)
		}
		if n.Total != 0 && n.Progress > n.Total {
			t.Errorf("notification %d: progress %v exceeds total %v", i, n.Progress, n.Total)
		}
		last = n.Progress
	}
	t.Logf("%d progress notifications, last %v: %q", len(notes), last, notes[len(notes)-1].Message)
}

// TestUnknownTool checks that calling a tool that does not exist is a
// protocol error, not a tool result.
func TestUnknownTool(t *testing.T) {
	cs := sharedIndex(t)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("calling an unknown tool succeeded, want a JSON-RPC error")
	}
}
