package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// server is one `sextant serve` of a corpus's index, over MCP on stdio.
type server struct {
	session *mcp.ClientSession
	stderr  *bytes.Buffer
}

// serve starts `sextant serve --db db --tools default,lsp root` (the
// default tools and the language-server bridge's), env added to its
// environment.
func serve(ctx context.Context, sextant, root, db string, env ...string) (*server, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "scip-bench", Version: "0.1.0"}, nil)
	cmd := exec.Command(sextant, "serve", "--db", db, "--tools", "default,lsp", root)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting sextant serve: %v: %s", err, harness.Tail(stderr.String()))
	}
	return &server{session: s, stderr: &stderr}, nil
}

func (s *server) Close() error { return s.session.Close() }

// call calls tool with args and decodes its structured answer into out
// (when not nil); it returns how long the call took. A tool error is an
// error carrying the answer's text.
func (s *server) call(ctx context.Context, tool string, args map[string]any, out any) (time.Duration, error) {
	start := time.Now()
	r, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s: %v: %s", tool, err, harness.Tail(s.stderr.String()))
	}
	if r.IsError {
		return d, &toolError{tool: tool, text: harness.ResultText(r)}
	}
	if out != nil {
		data, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return d, err
		}
		if err := json.Unmarshal(data, out); err != nil {
			return d, fmt.Errorf("%s: decoding the answer: %w", tool, err)
		}
	}
	return d, nil
}

// toolError is a call the tool answered with an error.
type toolError struct{ tool, text string }

func (e *toolError) Error() string { return e.tool + ": " + e.text }

// page is what every paged answer shares.
type page struct {
	NextCursor *string `json:"next_cursor"`
	Total      int     `json:"total"`
}

// refsAnswer is find_references's answer.
type refsAnswer struct {
	page
	Completeness string   `json:"completeness"`
	BlindSpots   []string `json:"blind_spots"`
	Results      []struct {
		Path       string `json:"path"`
		References []struct {
			Line   int    `json:"line"`
			Column int    `json:"column"`
			Kind   string `json:"kind"`
			Text   string `json:"text"`
		} `json:"references"`
	} `json:"results"`
}

// implsAnswer is find_implementations's answer.
type implsAnswer struct {
	page
	Direction string `json:"direction"`
	Results   []struct {
		StableKey string `json:"stable_key"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Value     string `json:"value"` // a value written as the type, at Col
		Col       int    `json:"col"`
	} `json:"results"`
}

// locationsAnswer is lsp_references's answer.
type locationsAnswer struct {
	page
	Server  string `json:"server"`
	Results []struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
		Text   string `json:"text"`
	} `json:"results"`
}

// requestAnswer is lsp_request's answer.
type requestAnswer struct {
	Encoding string          `json:"position_encoding"`
	Result   json.RawMessage `json:"result"`
}

// allPages calls a paged tool until its last page, each page decoded
// into a fresh out by newOut and handed to each; it returns the total
// time of the calls.
func allPages[T any](ctx context.Context, s *server, tool string, args map[string]any, each func(*T) *page) (time.Duration, error) {
	var total time.Duration
	a := map[string]any{}
	for k, v := range args {
		a[k] = v
	}
	for range 100 {
		out := new(T)
		d, err := s.call(ctx, tool, a, out)
		total += d
		if err != nil {
			return total, err
		}
		p := each(out)
		if p.NextCursor == nil {
			return total, nil
		}
		a["cursor"] = *p.NextCursor
	}
	return total, fmt.Errorf("%s: more than 100 pages", tool)
}
