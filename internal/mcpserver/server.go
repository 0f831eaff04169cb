// Package mcpserver publishes the tools of internal/query over MCP. It is
// the only package that imports the MCP SDK: each tool's schema is
// inferred from its query input and output types, arguments are decoded
// strictly by query, and failures become isError results whose
// structuredContent.error carries the stable code.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
)

// MaxResultBytes bounds one tool answer (structured and text together);
// a larger one is refused with a coded error instead of being sent.
const MaxResultBytes = 8 << 20

// Version is the server version reported at initialize; serve sets it
// to the binary's own (internal/cli, stamped by a release).
var Version = "0.1.0"

// New returns an MCP server with the given tools (the default profile
// when nil) bound to svc.
func New(svc *query.Service, logger *slog.Logger, tools []query.Tool) (*mcp.Server, error) {
	if tools == nil {
		var err error
		if tools, err = query.SelectTools(query.ProfileDefault); err != nil {
			return nil, err
		}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sextant", Title: "Sextant", Version: Version}, &mcp.ServerOptions{
		Instructions: query.InstructionsFor(tools),
		Logger:       logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	pb := registerPrebuilt(s) // see wire.go
	for _, t := range tools {
		tl, err := definition(t)
		if err != nil {
			return nil, err
		}
		s.AddTool(tl, handler(svc, t, logger, pb))
	}
	return s, nil
}

// InputSchema is the tool's published input schema: inferred from its
// input type, each parameter described by its jsonschema tag or, where the
// tool words it itself, by its ParamDocs; no other parameter is accepted.
func InputSchema(t query.Tool) (*jsonschema.Schema, error) {
	in, err := jsonschema.ForType(t.Input, &jsonschema.ForOptions{})
	if err != nil {
		return nil, fmt.Errorf("input schema of %s: %w", t.Name, err)
	}
	in.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	for name, doc := range t.ParamDocs {
		p, ok := in.Properties[name]
		if !ok {
			return nil, fmt.Errorf("input schema of %s: no parameter %q to describe", t.Name, name)
		}
		p.Description = doc
	}
	return in, nil
}

// definition builds the published tool: schemas from the Go types,
// annotations from the registry.
func definition(t query.Tool) (*mcp.Tool, error) {
	in, err := InputSchema(t)
	if err != nil {
		return nil, err
	}
	out, err := jsonschema.ForType(t.Output, &jsonschema.ForOptions{})
	if err != nil {
		return nil, fmt.Errorf("output schema of %s: %w", t.Name, err)
	}
	compactOut, err := withoutDescriptions(out)
	if err != nil {
		return nil, fmt.Errorf("output schema of %s: %w", t.Name, err)
	}
	open := t.OpenWorld
	var destructive *bool // meaningful only for tools that write
	if !t.ReadOnly {
		destructive = new(bool)
	}
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  in,
		OutputSchema: compactOut,
		Annotations: &mcp.ToolAnnotations{ // the title is the tool's own, not repeated here
			ReadOnlyHint:    t.ReadOnly,
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   &open,
			DestructiveHint: destructive,
		},
	}, nil
}

// withoutDescriptions compacts an output schema so that tools/list stays
// within its token budget: agents read the tool description and the
// answer, not the output schema's prose, so descriptions go; and only the
// top level keeps its required list and its refusal of other properties
// (nested objects accept any), which is what a client validating
// structuredContent needs to trust the envelope. The Go types keep the rest.
func withoutDescriptions(s *jsonschema.Schema) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	// depth counts the objects above a schema: the answer is depth 0, its
	// fields (results, error) depth 1, what they hold depth 2. From depth
	// 2 down an object keeps its type but not its fields: an agent reads
	// the answer, and the published list stays within its budget.
	var strip func(v any, depth int)
	strip = func(v any, depth int) {
		schema, ok := v.(map[string]any)
		if !ok {
			return
		}
		delete(schema, "description")
		if depth > 0 {
			delete(schema, "required")
			if _, ok := schema["additionalProperties"].(bool); ok {
				delete(schema, "additionalProperties") // nested objects: any, the default
			}
		}
		if depth >= 2 {
			delete(schema, "properties")
		}
		for key, sub := range schema {
			switch key {
			case "properties", "$defs", "definitions", "patternProperties":
				if m, ok := sub.(map[string]any); ok {
					for _, s := range m {
						strip(s, depth+1)
					}
				}
			case "anyOf", "oneOf", "allOf", "prefixItems":
				if list, ok := sub.([]any); ok {
					for _, s := range list {
						strip(s, depth)
					}
				}
			case "items", "additionalProperties", "not", "contains":
				strip(sub, depth)
			}
		}
	}
	if root, ok := v.(map[string]any); ok {
		// The error object is documented by the tool contract, the same
		// for every tool.
		if props, ok := root["properties"].(map[string]any); ok {
			if e, ok := props["error"].(map[string]any); ok {
				delete(e, "properties")
			}
		}
	}
	strip(v, 0)
	return json.Marshal(v)
}

// handler runs one tool call. A panic in the tool becomes an INTERNAL
// result and a log line; the server keeps serving. A cancelled call
// answers a protocol error saying so, never a tool's coded failure.
func handler(svc *query.Service, t query.Tool, logger *slog.Logger, pb *prebuiltResults) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				logger.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = errorResult(t, graph.Errorf(graph.CodeInternal, "the tool failed unexpectedly (%v); the server keeps running, and the failure is logged", p)), nil
			}
		}()
		progress, stop := progressFunc(ctx, req)
		answer, callErr := t.Call(ctx, svc, req.Params.Arguments, progress)
		stop()
		if callErr != nil && ctx.Err() != nil {
			// Cancelled by the client, or its connection closed: what the
			// interrupted work returned is no verdict of the tool. MCP
			// wants no answer at all; a transport that still sends one
			// sends this protocol error (stdio drops it, ids.go).
			return nil, fmt.Errorf("the request was cancelled: %w", context.Cause(ctx))
		}
		if callErr != nil {
			return errorResult(t, callErr), nil
		}
		structured, err := json.Marshal(answer)
		if err != nil {
			return errorResult(t, graph.Wrap(graph.CodeInternal, err, "encoding the answer")), nil
		}
		text := query.RenderText(answer)
		if len(structured)+len(text) > MaxResultBytes {
			return errorResult(t, graph.Errorf(graph.CodeInvalidArgument, "the answer is larger than %d MiB; narrow the query, or lower limit or budget", MaxResultBytes>>20).WithData("field", "limit")), nil
		}
		if r := pb.result(req.Session, text, structured); r != nil { // see wire.go
			return r, nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: json.RawMessage(structured),
		}, nil
	}
}

// errorResult is the isError result of a failed call: the coded error as
// structuredContent.error and as text.
func errorResult(t query.Tool, err error) *mcp.CallToolResult {
	info := query.ErrorOf(err)
	// Clients validate structuredContent against the outputSchema even on
	// isError results (the TypeScript SDK does): send the tool's zero
	// answer with error set, so the envelope's required fields are there.
	fields := map[string]any{}
	if zero, merr := json.Marshal(reflect.New(t.Output).Interface()); merr == nil {
		_ = json.Unmarshal(zero, &fields)
	}
	fields["error"] = info
	structured, _ := json.Marshal(fields)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: query.EscapeControls(info.Text())}},
		StructuredContent: json.RawMessage(structured),
	}
}

// progressFunc reports indexing progress to the client when the call
// asked for it with a progress token. Values only grow.
//
// The work a call starts may outlive it (indexing goes on for the next
// caller), so the returned stop ends the reports when the call ends, and
// a cancelled call hears nothing more either.
func progressFunc(ctx context.Context, req *mcp.CallToolRequest) (report func(query.Progress), stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil, func() {}
	}
	var (
		mu      sync.Mutex
		stopped bool
	)
	stop = func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
	last := -1.0
	return func(p query.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		val := p.Percent()
		if val <= last && last < 100 && ctx.Err() == nil {
			// A report that moves nothing on (a waiting call's
			// heartbeat) still goes out, a hair further, so the
			// client hears the call is alive.
			val = min(last+0.01, 99.99)
		}
		if val <= last || ctx.Err() != nil {
			// The spec wants every notification to increase; and a
			// cancelled call (indexing goes on for the next one) hears
			// nothing more.
			return
		}
		last = val
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("indexing %s: %s", p.Root, p.Phase)
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: val, Total: 100, Message: msg,
		})
	}, stop
}
