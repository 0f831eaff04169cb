package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// asciiStrings are texts with characters of every UTF-8 length, the
// characters JSON escapes anyway, and the line separators.
var asciiStrings = []string{
	"",
	"plain ascii <b> & \"q\" \\ /\n\t",
	"cut line …)",
	"é ü ß Größe",
	"世界 → ∑",
	"emoji 😀 and 𝄞 (above U+FFFF)",
	"line\u2028sep\u2029para",
	"mixed é\n世\t😀\"",
}

// writeSplit writes msg through an asciiWriter in two writes cut at at,
// and returns what reached the underlying writer.
func writeSplit(t testing.TB, msg []byte, at int) []byte {
	t.Helper()
	var out bytes.Buffer
	a := &asciiWriter{w: &out}
	for _, part := range [][]byte{msg[:at], msg[at:]} {
		n, err := a.Write(part)
		if err != nil || n != len(part) {
			t.Fatalf("Write of %d bytes: %d, %v", len(part), n, err)
		}
	}
	if len(a.carry) != 0 {
		t.Fatalf("%d bytes left over after a whole message", len(a.carry))
	}
	return out.Bytes()
}

// TestASCIIWriter: whatever the cut between two writes, the JSON that
// reaches the peer is ASCII and decodes to the same value; ASCII passes
// unchanged.
func TestASCIIWriter(t *testing.T) {
	for _, s := range asciiStrings {
		msg, err := json.Marshal(map[string]any{"text": s, "results": []string{s, "x"}})
		if err != nil {
			t.Fatal(err)
		}
		for at := 0; at <= len(msg); at++ {
			got := writeSplit(t, msg, at)
			if !isASCII(got) {
				t.Fatalf("%q cut at %d: output not ASCII: %s", s, at, got)
			}
			var want, have any
			if err := json.Unmarshal(msg, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &have); err != nil {
				t.Fatalf("%q cut at %d: output is not JSON: %v\n%s", s, at, err, got)
			}
			if w, h, _ := marshalBoth(want, have); w != h {
				t.Fatalf("%q cut at %d: decodes to %s, want %s", s, at, h, w)
			}
			if isASCII(msg) && !bytes.Equal(got, msg) {
				t.Fatalf("ASCII message changed: %s → %s", msg, got)
			}
		}
	}
	// A byte that starts no UTF-8 sequence (encoding/json never writes
	// one) is the replacement character, as a JSON reader takes it.
	if got := writeSplit(t, []byte("\"a\xffb\""), 3); string(got) != `"a\ufffdb"` {
		t.Errorf("bad byte: %s", got)
	}
}

func marshalBoth(a, b any) (string, string, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return "", "", err
	}
	y, err := json.Marshal(b)
	return string(x), string(y), err
}

// FuzzASCIIWriter: any string, marshalled and written in two pieces,
// arrives as ASCII JSON of the same string.
func FuzzASCIIWriter(f *testing.F) {
	for _, s := range asciiStrings {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, at int) {
		msg, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		at = min(max(at, 0), len(msg))
		got := writeSplit(t, msg, at)
		var want, have string
		if err := json.Unmarshal(msg, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &have); err != nil || have != want || !isASCII(got) {
			t.Fatalf("%q → %s → %q, %v", s, got, have, err)
		}
	})
}

// TestASCIIResponse: JSON and event-stream bodies are escaped, others
// (plain-text errors) written as they are; Flush reaches the recorder.
func TestASCIIResponse(t *testing.T) {
	for ct, want := range map[string]string{
		"application/json":  `{"n":"Gr\u00f6\u00dfe"}`,
		"text/event-stream": `{"n":"Gr\u00f6\u00dfe"}`,
		"text/plain":        `{"n":"Größe"}`,
	} {
		h := asciiJSON(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write([]byte(`{"n":"Grö`))
			w.(http.Flusher).Flush()
			w.Write([]byte(`ße"}`))
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
		if got := rec.Body.String(); got != want || !rec.Flushed {
			t.Errorf("%s: body %s (flushed %v), want %s", ct, got, rec.Flushed, want)
		}
	}
}

// nonASCIIFiles is a module whose names, docs and code are not ASCII.
var nonASCIIFiles = map[string]string{
	"go.mod": "module example.com/p\n\ngo 1.22\n",
	"p.go":   "package p\n\n// Größe misst → 世界 😀.\nfunc Größe() string { return \"…\" }\n\nfunc Use() string { return Größe() + \"é\" }\n",
}

// TestASCIIOverTransports: over stdio the lines a client reads are ASCII
// and name the non-ASCII symbol exactly; over streamable HTTP the Go SDK
// client gets the same names back.
func TestASCIIOverTransports(t *testing.T) {
	h := newHarness(t, nonASCIIFiles)
	ss := newStdioSession(t, h.server(t))
	ss.send(t, callLine(`"refs"`, "find_references", `{"qualified_name":"Größe"}`))
	var line []byte
	for line == nil {
		l := <-ss.lines
		if bytes.Contains(l, []byte(`"id":"refs"`)) {
			line = l
		}
	}
	if !isASCII(line) {
		t.Errorf("stdio answer is not ASCII: %s", line)
	}
	var m struct {
		Result struct {
			StructuredContent struct {
				Symbol struct {
					QualifiedName string `json:"qualified_name"`
				} `json:"symbol"`
				Total int `json:"total"`
			} `json:"structuredContent"`
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	sc := m.Result.StructuredContent
	if sc.Symbol.QualifiedName != "Größe" || sc.Total != 1 || len(m.Result.Content) == 0 ||
		!strings.Contains(m.Result.Content[0].Text, `return Größe() + "é"`) {
		t.Errorf("stdio answer decodes to %+v", m.Result)
	}

	srv := httptest.NewServer(NewHTTPHandler(h.server(t), HTTPOptions{}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_symbol", Arguments: map[string]any{"qualified_name": "Größe"}})
	if err != nil || res.IsError {
		t.Fatalf("get_symbol over HTTP: %v %s", err, textOf(res))
	}
	if text := textOf(res); !strings.Contains(text, "Größe misst → 世界 😀.") {
		t.Errorf("get_symbol over HTTP: %s", text)
	}
}
