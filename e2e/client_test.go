package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds one tool call. The first call of a database indexes
// cobra, which takes seconds; the rest answer in milliseconds.
const callTimeout = 3 * time.Minute

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu    sync.Mutex
	notes []mcp.ProgressNotificationParams
}

func (p *progressLog) add(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notes = append(p.notes, *req.Params)
}

// snapshot returns the notifications received so far.
func (p *progressLog) snapshot() []mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]mcp.ProgressNotificationParams(nil), p.notes...)
}

// serveCommand is `sextant serve --db DB ROOTS...`, its stderr going to
// the test's stderr so a crash is visible in the log.
//
// It serves every tool (--tools all), so that tests may call any; a test
// of the default profile passes "--tools", "default" first among roots
// (the last --tools wins).
func serveCommand(db string, roots ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"serve", "--db", db, "--tools", "all"}, roots...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// connect starts `sextant serve` over stdio with the go-sdk client and
// returns the session, closed when the test ends. protocol is the
// protocol version the client offers ("" for the SDK's default).
func connect(t *testing.T, protocol string, progress *progressLog, db string, roots ...string) *mcp.ClientSession {
	t.Helper()
	cs, err := dial(protocol, progress, db, roots...)
	if err != nil {
		t.Fatalf("connecting to sextant serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// dial is connect without a test: it starts the server and runs the
// handshake.
func dial(protocol string, progress *progressLog, db string, roots ...string) (*mcp.ClientSession, error) {
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = progress.add
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sopts *mcp.ClientSessionOptions
	if protocol != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	return client.Connect(ctx, &mcp.CommandTransport{Command: serveCommand(db, roots...), TerminateDuration: 5 * time.Second}, sopts)
}

// shared is the session over the shared database, started and indexed
// once by sharedIndex.
var shared struct {
	once     sync.Once
	session  *mcp.ClientSession
	progress progressLog
	token    string
	first    *mcp.CallToolResult // the answer of the call that indexed
	elapsed  time.Duration
	err      error
}

// sharedIndex returns a session over sharedDB with cobraDir as its root,
// indexed. The first caller's list_repositories call indexes cobra on
// first use with a progress token; TestIndexOnFirstUse checks what it
// reported. Every read-only test reuses the session.
func sharedIndex(t *testing.T) *mcp.ClientSession {
	t.Helper()
	shared.once.Do(func() {
		shared.session, shared.err = dial("", &shared.progress, sharedDB, cobraDir)
		if shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		shared.token = "e2e-first-use"
		params := &mcp.CallToolParams{Name: "list_repositories", Arguments: map[string]any{}}
		params.SetProgressToken(shared.token)
		start := time.Now()
		shared.first, shared.err = shared.session.CallTool(ctx, params)
		shared.elapsed = time.Since(start)
	})
	if shared.err != nil {
		t.Fatalf("indexing cobra through the shared session: %v", shared.err)
	}
	return shared.session
}

// shutdownShared closes the shared session, if one was started.
func shutdownShared() {
	if shared.session != nil {
		shared.session.Close()
	}
}

// answer is one tool call's result: the text an agent reads and the
// structured content as JSON.
type answer struct {
	res        *mcp.CallToolResult
	text       string
	structured json.RawMessage
}

// call runs one tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	return answerOf(t, res)
}

// answerOf extracts the text and structured content of a result.
func answerOf(t *testing.T, res *mcp.CallToolResult) answer {
	t.Helper()
	a := answer{res: res}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	a.text = b.String()
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatalf("re-encoding structured content: %v", err)
		}
		a.structured = raw
	}
	return a
}

// callOK runs a tool that must succeed and decodes its structured content
// into T. It also checks that the text rendering is concise prose, not
// the JSON again.
func callOK[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (T, answer) {
	t.Helper()
	a := call(t, cs, tool, args)
	return decodeOK[T](t, tool, args, a), a
}

// decodeOK checks that a succeeded and decodes its structured content.
func decodeOK[T any](t *testing.T, tool string, args map[string]any, a answer) T {
	t.Helper()
	var out T
	if a.res.IsError {
		t.Fatalf("%s %v failed: %s", tool, args, a.text)
	}
	if len(a.structured) == 0 {
		t.Fatalf("%s %v: no structuredContent", tool, args)
	}
	if err := json.Unmarshal(a.structured, &out); err != nil {
		t.Fatalf("%s %v: decoding structuredContent: %v\n%s", tool, args, err, a.structured)
	}
	checkConcise(t, tool, a)
	return out
}

// checkConcise requires a non-empty text rendering that is not JSON and,
// for answers of some size, is shorter than the structured content.
func checkConcise(t *testing.T, tool string, a answer) {
	t.Helper()
	text := strings.TrimSpace(a.text)
	switch {
	case text == "":
		t.Errorf("%s: empty text content", tool)
	case json.Valid([]byte(text)) || strings.HasPrefix(text, "{") || strings.HasPrefix(text, "["):
		t.Errorf("%s: text content is JSON, want a concise rendering:\n%s", tool, text)
	case len(a.structured) > 1024 && len(text) > len(a.structured):
		// Small answers may carry a hint longer than their JSON; large ones
		// must be cheaper to read as text.
		t.Errorf("%s: text (%d bytes) is longer than the structured content (%d bytes)", tool, len(text), len(a.structured))
	}
}

// errorInfo is structuredContent.error of a failed call.
type errorInfo struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// callErr runs a tool that must fail with code and returns the error. The
// failure must be an isError result (not a protocol error) carrying the
// code in structuredContent.error and in the text.
func callErr(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, code string) errorInfo {
	t.Helper()
	return checkErr(t, tool, args, call(t, cs, tool, args), code)
}

// checkErr checks that a is a failure with code.
func checkErr(t *testing.T, tool string, args map[string]any, a answer, code string) errorInfo {
	t.Helper()
	if !a.res.IsError {
		t.Fatalf("%s %v: succeeded, want %s:\n%s", tool, args, code, a.text)
	}
	var sc struct {
		Error *errorInfo `json:"error"`
	}
	if err := json.Unmarshal(a.structured, &sc); err != nil || sc.Error == nil {
		t.Fatalf("%s %v: isError without structuredContent.error (%v): %s", tool, args, err, a.structured)
	}
	if sc.Error.Code != code {
		t.Fatalf("%s %v: code %s, want %s: %s", tool, args, sc.Error.Code, code, sc.Error.Message)
	}
	if sc.Error.Message == "" {
		t.Errorf("%s %v: %s without a message", tool, args, code)
	}
	if !strings.Contains(a.text, code) {
		t.Errorf("%s %v: text does not name the code %s: %q", tool, args, code, a.text)
	}
	return *sc.Error
}

// list returns data[key] as a list of strings.
func (e errorInfo) list(key string) []string {
	list, _ := e.Data[key].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// The answers, as the tools document them. Only what the tests read is
// declared; unknown fields are ignored so that additions do not break
// the suite.

type envelope struct {
	SnapshotID    int64    `json:"snapshot_id"`
	SnapshotAgeMS int64    `json:"snapshot_age_ms"`
	Fresh         bool     `json:"fresh"`
	StaleReasons  []string `json:"stale_reasons"`
	Total         int      `json:"total"`
	Returned      int      `json:"returned"`
	Truncated     bool     `json:"truncated"`
	NextCursor    *string  `json:"next_cursor"`
}

type repoRow struct {
	Name        string   `json:"name"`
	Root        string   `json:"root"`
	Modules     []string `json:"modules"`
	SnapshotID  int64    `json:"snapshot_id"`
	Fresh       bool     `json:"fresh"`
	Packages    int      `json:"packages"`
	Files       int      `json:"files"`
	Symbols     int      `json:"symbols"`
	Diagnostics int      `json:"diagnostics"`
	Amended     []string `json:"amended"`
}

type listRepositoriesOut struct {
	envelope
	Results []repoRow `json:"results"`
}

type symbolRow struct {
	StableKey     string `json:"stable_key"`
	Repository    string `json:"repository"`
	Path          string `json:"path"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Kind          string `json:"kind"`
	Signature     string `json:"signature"`
	Exported      bool   `json:"exported"`
	StartLine     int    `json:"start_line"`
	EndLine       int    `json:"end_line"`
	PackagePath   string `json:"package_path"`
}

type findSymbolOut struct {
	envelope
	Results []symbolRow `json:"results"`
}

type memberRow struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature"`
	StableKey string `json:"stable_key"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
}

type symbolDetail struct {
	StableKey      string      `json:"stable_key"`
	Repository     string      `json:"repository"`
	RepositoryPath string      `json:"repository_path"`
	PackagePath    string      `json:"package_path"`
	PackageName    string      `json:"package_name"`
	ModulePath     string      `json:"module_path"`
	Path           string      `json:"path"`
	Name           string      `json:"name"`
	QualifiedName  string      `json:"qualified_name"`
	Kind           string      `json:"kind"`
	Signature      string      `json:"signature"`
	Doc            string      `json:"doc"`
	Receiver       string      `json:"receiver"`
	Exported       bool        `json:"exported"`
	StartLine      int         `json:"start_line"`
	EndLine        int         `json:"end_line"`
	Methods        []memberRow `json:"methods"`
	Fields         []memberRow `json:"fields"`
}

type getSymbolOut struct {
	envelope
	Results *symbolDetail `json:"results"`
}

type outlineMember struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

type outlineEntry struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Signature string          `json:"signature"`
	StartLine int             `json:"start_line"`
	EndLine   int             `json:"end_line"`
	Members   []outlineMember `json:"members"`
}

type outlineFile struct {
	Path        string         `json:"path"`
	Package     string         `json:"package"`
	Lines       int            `json:"lines"`
	ParseErrors []string       `json:"parse_errors"`
	Entries     []outlineEntry `json:"entries"`
}

type outlineOut struct {
	envelope
	Repository string        `json:"repository"`
	Results    []outlineFile `json:"results"`
}

// entry returns the outline entry called name, or nil.
func (f outlineFile) entry(name string) *outlineEntry {
	for i := range f.Entries {
		if f.Entries[i].Name == name {
			return &f.Entries[i]
		}
	}
	return nil
}

// member returns the member of e called name with kind, or nil.
func (e outlineEntry) member(name, kind string) *outlineMember {
	for i := range e.Members {
		if e.Members[i].Name == name && e.Members[i].Kind == kind {
			return &e.Members[i]
		}
	}
	return nil
}

// find returns the first row with this qualified name, or nil.
func find(rows []symbolRow, qualified string) *symbolRow {
	for i := range rows {
		if rows[i].QualifiedName == qualified {
			return &rows[i]
		}
	}
	return nil
}

// names lists the qualified names of rows, for failure messages.
func names(rows []symbolRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.QualifiedName
	}
	return out
}

// hasMember reports whether ms has a member called name.
func hasMember(ms []memberRow, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}
