package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/proctree"
)

// Server is one running language server for one workspace root: its
// process, its connection, the capabilities and encoding it negotiated,
// the documents it has open and what it has published about them.
type Server struct {
	Name string
	Root string
	spec ServerSpec
	cfg  PoolConfig
	proc *process
	conn *Conn
	enc  Encoding
	caps map[string]json.RawMessage
	info string // serverInfo name and version

	syncMu   sync.Mutex // serialises document notifications
	mu       sync.Mutex
	docs     map[string]*document // by URI
	progress map[string]string    // work-done tokens in progress → title
	event    time.Time            // last diagnostics or progress news
	changed  chan struct{}        // closed and replaced on every news
	foot     Footprint
	footAt   time.Time
}

// document is a file the server has open.
type document struct {
	uri, languageID string
	version         int
	hash            [32]byte
	text            []byte
	synced          time.Time // when the current text was sent
	used            time.Time
	diags           []Diagnostic
	diagAt          time.Time // when diagnostics last came
	diagVersion     int       // the version they describe, -1 when the server does not say
	settled         int       // the version whose diagnostics were found settled, 0 none
	settledAt       time.Time
}

// Diagnostic is an LSP diagnostic in the server's encoding.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// startServer starts spec's process in root and runs the initialize
// handshake within ctx.
func startServer(ctx context.Context, spec ServerSpec, root string, cfg PoolConfig, capMB int) (*Server, error) {
	if err := spec.Available(); err != nil {
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "%s: %v; install it or configure another server in sextant.toml", spec.Name, err)
	}
	proc, err := startProcess(&spec, root, capMB)
	if err != nil {
		return nil, graph.Wrap(graph.CodeLSPUnavailable, err, "starting "+spec.Name)
	}
	s := &Server{Name: spec.Name, Root: root, spec: spec, cfg: cfg, proc: proc,
		docs: map[string]*document{}, progress: map[string]string{}, changed: make(chan struct{}), enc: UTF16}
	var r io.Reader = proc.stdout
	var w io.Writer = deadlineWriter{proc.stdin}
	if trace := os.Getenv("SEXTANT_LSP_TRACE"); trace != "" {
		// Debugging aid: both directions appended to one file.
		if f, err := os.OpenFile(trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			r = io.TeeReader(r, f)
			w = io.MultiWriter(w, f)
		}
	}
	s.conn = NewConn(r, w, Handler{Notify: s.notified, Request: s.requested})
	go s.conn.Run()
	// Starting is bounded by start_timeout and by the deadline of the
	// call that starts the server (its request timeout): a server that
	// never answers initialize must not hold that call longer than any
	// other request would.
	limit := cfg.StartTimeout.Duration
	if t := s.timeout(); t > 0 && t < limit {
		limit = t
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	uri := FileURI(root)
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]any{"name": "sextant"},
		"rootUri":               uri,
		"rootPath":              root,
		"workspaceFolders":      []any{map[string]any{"uri": uri, "name": filepath.Base(root)}},
		"initializationOptions": spec.InitOptions,
		"capabilities":          clientCapabilities,
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := s.conn.Call(ctx, "initialize", params, &res); err != nil {
		var ce *CancelledError
		if errors.As(err, &ce) && errors.Is(err, context.DeadlineExceeded) {
			s.kill()
			msg := fmt.Sprintf("%s did not answer initialize within %s (the sooner of start_timeout %s and the request timeout %s); it was stopped and the next call starts it again",
				spec.Name, limit.Round(time.Millisecond), cfg.StartTimeout.Duration, s.timeout())
			if t := s.StderrTail(2000); t != "" {
				msg += "\nstderr tail:\n" + t
			}
			return nil, &graph.Error{Code: graph.CodeLSPTimeout, Message: msg, Err: err,
				Data: map[string]any{"server": spec.Name, "method": "initialize", "timeout_ms": limit.Milliseconds()}}
		}
		err = s.failure("initialize", err)
		s.kill()
		return nil, err
	}
	s.caps = res.Capabilities
	var enc string
	_ = json.Unmarshal(res.Capabilities["positionEncoding"], &enc)
	switch Encoding(enc) {
	case UTF8, UTF32:
		s.enc = Encoding(enc)
	}
	if res.ServerInfo != nil {
		s.info = strings.TrimSpace(res.ServerInfo.Name + " " + res.ServerInfo.Version)
	}
	if err := s.conn.Notify("initialized", map[string]any{}); err != nil {
		s.kill()
		return nil, s.failure("initialized", err)
	}
	// Some servers (pyright) read no settings, and so answer nothing,
	// until told the configuration changed; the settings themselves are
	// pulled with workspace/configuration.
	settings := any(s.spec.Settings)
	if s.spec.Settings == nil {
		settings = map[string]any{}
	}
	_ = s.conn.Notify("workspace/didChangeConfiguration", map[string]any{"settings": settings})
	return s, nil
}

// clientCapabilities is what the bridge tells servers it understands.
var clientCapabilities = map[string]any{
	"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
	"window":  map[string]any{"workDoneProgress": true},
	"workspace": map[string]any{
		"configuration": true, "workspaceFolders": true,
		"symbol": map[string]any{"dynamicRegistration": false},
	},
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"dynamicRegistration": false, "didSave": false},
		"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
		"definition":         map[string]any{"linkSupport": true},
		"references":         map[string]any{},
		"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"completion":         map[string]any{"completionItem": map[string]any{"snippetSupport": false}},
		"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
	},
}

// deadlineWriter bounds each write to a server's stdin, so that a server
// that stopped reading cannot block a call forever.
type deadlineWriter struct{ f *os.File }

func (w deadlineWriter) Write(b []byte) (int, error) {
	_ = w.f.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.f.Write(b)
}

// Encoding is the position encoding the server agreed to.
func (s *Server) Encoding() Encoding { return s.enc }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.proc.pid }

// Info is the name and version the server gave, if any.
func (s *Server) Info() string { return s.info }

// MemoryCapMB is the address-space cap in force, 0 for none.
func (s *Server) MemoryCapMB() int { return s.proc.capMB }

// CustomMethods are the configured methods beyond LSP.
func (s *Server) CustomMethods() []string { return s.spec.CustomMethods }

// Alive reports whether the process runs and its stream is open.
func (s *Server) Alive() bool {
	select {
	case <-s.proc.exited:
		return false
	case <-s.conn.Done():
		return false
	default:
	}
	// Killed but not yet reaped (or its pipes not yet drained): the
	// kernel already says so.
	return proctree.Running(s.proc.pid)
}

// Has reports whether the server announced capability (a key of
// ServerCapabilities such as "hoverProvider").
func (s *Server) Has(capability string) bool {
	raw, ok := s.caps[capability]
	if !ok {
		return false
	}
	v := strings.TrimSpace(string(raw))
	return v != "false" && v != "null"
}

// StderrTail is the last lines the server wrote to stderr.
func (s *Server) StderrTail(max int) string { return s.proc.stderr.String(max) }

// Footprint measures the server's memory, at most every two seconds.
func (s *Server) Footprint() Footprint {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.footAt) > 2*time.Second {
		s.foot = s.proc.footprint()
		s.footAt = time.Now()
	}
	return s.foot
}

func (s *Server) timeout() time.Duration {
	if s.spec.Timeout.Duration > 0 {
		return s.spec.Timeout.Duration
	}
	return s.cfg.RequestTimeout.Duration
}

// Call sends a request with the server's deadline (or ctx's, if sooner).
// A request that outlives its deadline is cancelled and fails with
// LSP_TIMEOUT; a server that dies fails it with LSP_UNAVAILABLE, its exit
// status and stderr tail in the error's data.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	raw, err := s.CallRaw(ctx, method, params, 0)
	return decodeResult(s.Name, method, raw, err, result)
}

// decodeResult decodes the answer raw of a call that failed with err
// (nil when it succeeded) into result, unless nil.
func decodeResult(server, method string, raw json.RawMessage, err error, result any) error {
	if err != nil || result == nil || len(raw) == 0 {
		return err
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return graph.Wrap(graph.CodeLSPUnavailable, err, fmt.Sprintf("%s answered %s with an unexpected shape", server, method))
	}
	return nil
}

// CallRaw is Call with the result undecoded and an optional deadline
// (0: the configured one).
func (s *Server) CallRaw(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	if timeout <= 0 {
		timeout = s.timeout()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := s.conn.CallRaw(ctx, method, params)
	if err != nil {
		var ce *CancelledError
		if errors.As(err, &ce) && errors.Is(err, context.DeadlineExceeded) {
			return nil, graph.Errorf(graph.CodeLSPTimeout, "%s did not answer %s within %s; the request was cancelled ($/cancelRequest) and the server is still running: call again, or with a longer timeout", s.Name, method, timeout.Round(time.Millisecond)).
				WithData("server", s.Name).WithData("method", method).WithData("timeout_ms", timeout.Milliseconds())
		}
		return nil, s.failure(method, err)
	}
	return raw, nil
}

// errDied marks the failures of a call whose server died before it was
// answered (see Lease.CallRaw).
var errDied = errors.New("the server died")

// failure turns a connection error into a coded one.
func (s *Server) failure(method string, err error) error {
	var rpc *RPCError
	if errors.As(err, &rpc) && rpc.Code == CodeMethodNotFound {
		return &graph.Error{Code: graph.CodeLSPUnavailable, Message: fmt.Sprintf("%s is unsupported by this server (%s: %s)", method, s.Name, rpc.Message), Err: err,
			Data: map[string]any{"server": s.Name, "lsp_code": rpc.Code}}
	}
	if errors.As(err, &rpc) {
		return &graph.Error{Code: graph.CodeLSPUnavailable, Message: fmt.Sprintf("%s answered %s with error %d: %s", s.Name, method, rpc.Code, rpc.Message), Err: err,
			Data: map[string]any{"server": s.Name, "lsp_code": rpc.Code}}
	}
	var ce *CancelledError
	if errors.As(err, &ce) {
		return graph.Wrap(graph.CodeLSPTimeout, err, fmt.Sprintf("%s: %s was cancelled before the server answered", s.Name, method))
	}
	if !s.Alive() || errors.Is(err, ErrClosed) || errors.Is(err, ErrFraming) {
		// Give the reaper a moment so the exit status can be told.
		select {
		case <-s.proc.exited:
		case <-time.After(time.Second):
		}
		status := s.proc.exitStatus()
		if status == "" {
			status = "closed its output"
		}
		msg := fmt.Sprintf("%s (pid %d) died during %s (%s); the next call restarts it", s.Name, s.proc.pid, method, status)
		if t := s.StderrTail(2000); t != "" {
			msg += "\nstderr tail:\n" + t
		}
		return &graph.Error{Code: graph.CodeLSPUnavailable, Message: msg, Err: fmt.Errorf("%w: %w", errDied, err),
			Data: map[string]any{"server": s.Name, "exit": status, "stderr_tail": s.StderrTail(2000)}}
	}
	return graph.Wrap(graph.CodeLSPUnavailable, err, fmt.Sprintf("%s: %s failed", s.Name, method))
}

// notified receives the server's notifications (on the reading goroutine).
func (s *Server) notified(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Version     *int         `json:"version"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		s.mu.Lock()
		if d := s.docs[p.URI]; d != nil {
			d.diags = p.Diagnostics
			d.diagAt = time.Now()
			d.diagVersion = -1
			if p.Version != nil {
				d.diagVersion = *p.Version
			}
		}
		s.newsLocked()
		s.mu.Unlock()
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind  string `json:"kind"`
				Title string `json:"title"`
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		s.mu.Lock()
		switch p.Value.Kind {
		case "begin":
			s.progress[string(p.Token)] = p.Value.Title
		case "end":
			delete(s.progress, string(p.Token))
		}
		s.newsLocked()
		s.mu.Unlock()
	}
}

func (s *Server) newsLocked() {
	s.event = time.Now()
	close(s.changed)
	s.changed = make(chan struct{})
}

// requested answers the server's requests of its client.
func (s *Server) requested(method string, params json.RawMessage) (any, *RPCError) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = section(s.spec.Settings, it.Section)
		}
		return out, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		return []any{map[string]any{"uri": FileURI(s.Root), "name": filepath.Base(s.Root)}}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "sextant applies no edits"}, nil
	}
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "sextant does not handle " + method}
}

// section looks a dotted section ("python.analysis") up in settings: a
// key of that name, or a path through nested tables; nil when absent.
func section(settings map[string]any, name string) any {
	if name == "" {
		return settings
	}
	if v, ok := settings[name]; ok {
		return v
	}
	var cur any = settings
	for _, part := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

// Sync makes the server's copy of the file at abs equal text: didOpen the
// first time, a full-text didChange when it changed, nothing otherwise.
// Beyond the open-file bound, the least recently used file is closed.
func (s *Server) Sync(abs, languageID string, text []byte) (string, error) {
	uri := FileURI(abs)
	sum := sha256.Sum256(text)
	// syncMu keeps each document's notifications in version order; s.mu
	// is held only for the state, never while writing to the server, so
	// that the reading goroutine (which takes s.mu for diagnostics) never
	// waits on a server that waits on it.
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	type note struct {
		method string
		params any
	}
	var notes []note
	s.mu.Lock()
	now := time.Now()
	d := s.docs[uri]
	opened := false
	switch {
	case d == nil:
		d = &document{uri: uri, languageID: languageID, version: 1, hash: sum, text: text, synced: now, diagVersion: -1}
		s.docs[uri] = d
		opened = true
		notes = append(notes, note{"textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID, "version": d.version, "text": string(text)}}})
	case d.hash != sum:
		d.version++
		d.hash, d.text, d.synced = sum, text, now
		notes = append(notes, note{"textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": d.version},
			"contentChanges": []any{map[string]any{"text": string(text)}}}})
	}
	d.used = now
	for _, old := range s.extraLocked() {
		delete(s.docs, old)
		notes = append(notes, note{"textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": old}}})
	}
	s.mu.Unlock()
	for _, n := range notes {
		if err := s.conn.Notify(n.method, n.params); err != nil {
			if opened {
				s.mu.Lock()
				delete(s.docs, uri)
				s.mu.Unlock()
			}
			return uri, s.failure(n.method, err)
		}
	}
	return uri, nil
}

// extraLocked returns the least recently used files beyond the bound.
func (s *Server) extraLocked() []string {
	n := len(s.docs) - s.cfg.MaxOpenFiles
	if n <= 0 {
		return nil
	}
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].used.Before(docs[j].used) })
	out := make([]string, n)
	for i := range out {
		out[i] = docs[i].uri
	}
	return out
}

// CloseFile tells the server the file at abs is no longer needed (it was
// deleted, say).
func (s *Server) CloseFile(abs string) {
	uri := FileURI(abs)
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	_, open := s.docs[uri]
	delete(s.docs, uri)
	s.mu.Unlock()
	if open {
		_ = s.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
}

// Text returns the text last synced for uri, if it is open.
func (s *Server) Text(uri string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[uri]; d != nil {
		return d.text, true
	}
	return nil, false
}

// DiagnosticsResult is what Diagnostics found: the diagnostics of the
// current text, and whether they are settled or what is still pending.
type DiagnosticsResult struct {
	Diagnostics []Diagnostic
	Complete    bool
	Pending     []string
	Waited      time.Duration
}

// Diagnostics waits until the server has published diagnostics for the
// current text of uri and been quiet for the quiet period, or until wait
// has passed; then it answers with what it has and, if incomplete, what
// is pending. Nothing is cancelled: a later call goes on from there. An
// unchanged file whose diagnostics were settled answers at once.
func (s *Server) Diagnostics(ctx context.Context, uri string, wait time.Duration) DiagnosticsResult {
	start := time.Now()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	quiet := s.cfg.QuietPeriod.Duration
	for {
		s.mu.Lock()
		d := s.docs[uri]
		if d == nil {
			s.mu.Unlock()
			return DiagnosticsResult{Pending: []string{"the file is not open on the server"}, Waited: time.Since(start)}
		}
		var pending []string
		current := d.diagVersion == d.version || (d.diagVersion < 0 && !d.diagAt.Before(d.synced) && !d.diagAt.IsZero())
		if !current {
			pending = append(pending, fmt.Sprintf("no diagnostics published yet for version %d of the file", d.version))
		}
		if len(s.progress) > 0 {
			titles := make([]string, 0, len(s.progress))
			for _, t := range s.progress {
				titles = append(titles, t)
			}
			sort.Strings(titles)
			pending = append(pending, "server busy: "+strings.Join(titles, ", "))
		}
		settledBefore := d.settled == d.version && !d.diagAt.After(d.settledAt)
		sinceNews := time.Since(s.event)
		if len(pending) == 0 && (settledBefore || sinceNews >= quiet) {
			d.settled, d.settledAt = d.version, time.Now()
			res := DiagnosticsResult{Diagnostics: d.diags, Complete: true, Waited: time.Since(start)}
			s.mu.Unlock()
			return res
		}
		if len(pending) == 0 {
			pending = append(pending, fmt.Sprintf("the server was last heard from %s ago; waiting for %s of quiet", sinceNews.Round(10*time.Millisecond), quiet))
		}
		changed := s.changed
		diags := d.diags
		s.mu.Unlock()
		wake := quiet - sinceNews
		if wake <= 0 {
			wake = quiet
		}
		tick := time.NewTimer(wake)
		select {
		case <-changed:
		case <-tick.C:
		case <-s.conn.Done():
			return DiagnosticsResult{Diagnostics: diags, Pending: []string{"the server exited"}, Waited: time.Since(start)}
		case <-deadline.C:
			return DiagnosticsResult{Diagnostics: diags, Pending: pending, Waited: time.Since(start)}
		case <-ctx.Done():
			return DiagnosticsResult{Diagnostics: diags, Pending: pending, Waited: time.Since(start)}
		}
		tick.Stop()
	}
}

// shutdown asks the server to exit, then ends its process group whatever
// it did.
func (s *Server) shutdown() {
	if s.Alive() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if s.conn.Call(ctx, "shutdown", nil, nil) == nil {
			_ = s.conn.Notify("exit", nil)
		}
		cancel()
		_ = s.proc.stdin.Close()
		select {
		case <-s.proc.exited:
		case <-time.After(2 * time.Second):
		}
	}
	s.kill()
}

// kill ends the process group now.
func (s *Server) kill() { s.proc.kill() }
