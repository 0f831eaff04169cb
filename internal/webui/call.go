package webui

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sextant-dev/sextant/internal/query"
)

// call runs the tool called name through the one registry the MCP server
// and the command line run it through (query.LookupTool), with args as its
// JSON arguments, so a page shows what the tool answers: the same
// decoding, freshness, waiting and errors. Out is the tool's output type.
func call[Out any](ctx context.Context, svc *query.Service, name string, args map[string]any) (*Out, error) {
	t, ok := query.LookupTool(name)
	if !ok {
		return nil, fmt.Errorf("no tool %s", name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encoding %s arguments: %w", name, err)
	}
	a, err := t.Call(ctx, svc, raw, nil)
	if err != nil {
		return nil, err
	}
	out, ok := any(a).(*Out)
	if !ok {
		return nil, fmt.Errorf("%s answered %T, want %T", name, a, out)
	}
	return out, nil
}
