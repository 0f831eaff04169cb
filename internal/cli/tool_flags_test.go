package cli

import (
	"bytes"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/mcpserver"
	"github.com/sextant-dev/sextant/internal/query"
)

// TestToolFlagsMatchSchema checks that every tool's flags are the
// parameters of its MCP input schema, described alike, embedded structs
// (the symbol selector) included: the CLI and MCP read one input type.
func TestToolFlagsMatchSchema(t *testing.T) {
	for _, tool := range query.Tools() {
		schema, err := mcpserver.InputSchema(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		fs, _ := toolFlags(tool, env{stderr: &bytes.Buffer{}})
		var flags []string
		fs.VisitAll(func(f *flag.Flag) {
			flags = append(flags, f.Name)
			p := schema.Properties[f.Name]
			if p == nil {
				t.Errorf("%s: flag --%s is no parameter of the schema", tool.Name, f.Name)
			} else if !strings.HasPrefix(f.Usage, p.Description) {
				t.Errorf("%s: --%s says %q, the schema %q", tool.Name, f.Name, f.Usage, p.Description)
			}
		})
		for name, p := range schema.Properties {
			if !slices.Contains(flags, name) && (p.Type == "string" || p.Type == "integer" || p.Type == "boolean") {
				t.Errorf("%s: parameter %s has no flag", tool.Name, name)
			}
		}
		if strings.Contains(tool.Name, "callers") && !slices.Contains(flags, "stable_key") {
			t.Errorf("%s: no --stable_key among %v", tool.Name, flags)
		}
	}
}
