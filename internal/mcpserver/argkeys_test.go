package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestArgumentKeyCase: a parameter is named by its exact key. encoding/json
// matches keys without regard to case, so without an exact check
// {"NAME": ...} would pass for name and {"name": ..., "Name": ...} would
// silently use the last; both are INVALID_ARGUMENT naming the key.
func TestArgumentKeyCase(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	ss := newStdioSession(t, h.server(t))
	cases := []struct {
		tool, args, field string // field "": the call succeeds
	}{
		{"find_symbol", `{"name":"P"}`, ""},
		{"find_symbol", `{"NAME":"P"}`, "NAME"},
		{"find_symbol", `{"Name":"P"}`, "Name"},
		{"find_symbol", `{"name":"P","Name":"Q"}`, "Name"},
		{"find_symbol", `{"Name":"Q","name":"P"}`, "Name"},
		{"find_symbol", `{"name":"P","LIMIT":5}`, "LIMIT"},
		{"get_callers", `{"qualified_name":"P","Depth":2}`, "Depth"},
		{"get_file_outline", `{"PATH":"p.go"}`, "PATH"},
		{"get_file_outline", `{"path":"p.go"}`, ""},
	}
	for i, c := range cases {
		idText := fmt.Sprintf(`"case-%d"`, i)
		ss.send(t, callLine(idText, c.tool, c.args))
		m := ss.until(t, idText)
		res, _ := m["result"].(map[string]any)
		var sc struct {
			Error *struct {
				Code string         `json:"code"`
				Data map[string]any `json:"data"`
			} `json:"error"`
		}
		b, _ := json.Marshal(res["structuredContent"])
		_ = json.Unmarshal(b, &sc)
		switch {
		case res == nil:
			t.Errorf("%s %s: no result: %.300v", c.tool, c.args, m)
		case c.field == "" && sc.Error != nil:
			t.Errorf("%s %s: failed: %s", c.tool, c.args, b)
		case c.field != "" && (sc.Error == nil || sc.Error.Code != "INVALID_ARGUMENT" || sc.Error.Data["field"] != c.field):
			t.Errorf("%s %s: got %.300s, want INVALID_ARGUMENT naming %q", c.tool, c.args, b, c.field)
		}
	}
}
