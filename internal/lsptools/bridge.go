// Package lsptools holds the lsp_* tools: the language-server bridge as
// an agent calls it. They share nothing with the graph: each call locates
// its file under the roots, syncs it from disk to the server that serves
// it (internal/lsp starts, pools and restarts the servers) and converts
// positions between the agent's characters and the server's units.
package lsptools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/rootfs"
	"github.com/sextant-dev/sextant/internal/session"
)

// Bridge is the language-server bridge of one server process: the lsp_*
// tool handlers, over the servers it starts (see servers). It is safe for
// concurrent use.
type Bridge struct {
	srv *servers
}

// servers is what the handlers share and do not answer themselves: the
// roots the bridge may read, each root's configuration and the pool of
// server processes (made on first use, with the first root's pool
// settings), with the steps every call takes before it asks anything:
// locating its file under the roots, finding the server that serves it,
// acquiring that server and syncing the file.
type servers struct {
	roots []string // canonical, as the session holds them

	mu     sync.Mutex
	pool   *lsp.Pool
	closed bool
	cfgs   map[string]*lsp.Config // root → its configuration
}

// New returns a bridge that reads files under roots (canonical).
func New(roots []string) *Bridge { return &Bridge{srv: &servers{roots: roots}} }

// Close shuts down every language server the bridge started and waits
// until they are reaped. The bridge answers no LSP tool afterwards.
func (b *Bridge) Close() error {
	s := b.srv
	s.mu.Lock()
	pool := s.pool
	s.closed = true
	s.mu.Unlock()
	if pool != nil {
		pool.Close()
	}
	return nil
}

// config returns root's configuration, read once.
func (s *servers) config(root string) (*lsp.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cfgs[root]; c != nil {
		return c, nil
	}
	c, err := lsp.LoadConfig(root)
	if err != nil {
		// The file is read through os.Root (rootfs): one that leaves the
		// root is OUTSIDE_ROOTS, one that is no regular file READ_ERROR.
		code := graph.CodeInvalidArgument
		switch {
		case rootfs.Outside(err):
			code = graph.CodeOutsideRoots
		case errors.Is(err, rootfs.ErrNotRegular), errors.Is(err, rootfs.ErrIsDir), errors.Is(err, rootfs.ErrTooLarge):
			code = graph.CodeReadError
		}
		return nil, graph.Wrap(code, err, "the language-server configuration is broken: "+err.Error()).WithData("field", "config")
	}
	if s.cfgs == nil {
		s.cfgs = map[string]*lsp.Config{}
	}
	s.cfgs[root] = c
	return c, nil
}

// running returns the pool, made with the first root's settings.
func (s *servers) running() (*lsp.Pool, error) {
	var cfg lsp.PoolConfig
	if len(s.roots) > 0 {
		c, err := s.config(s.roots[0])
		if err != nil {
			return nil, err
		}
		cfg = c.Pool
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "the server is shutting down")
	}
	if s.pool == nil {
		s.pool = lsp.NewPool(cfg)
	}
	return s.pool, nil
}

// lspFile is a file resolved under a root, read from disk.
type lspFile struct {
	root, rel, abs string
	text           []byte
}

// locate resolves a file a caller names: relative to the only root (or
// the first root that has it), or absolute inside a root. Paths that
// leave the roots, lexically or through a symlink, are OUTSIDE_ROOTS.
func (s *servers) locate(field, p string) (lspFile, error) {
	if err := answer.CheckSelector(field, p); err != nil {
		return lspFile{}, err
	}
	if p == "" {
		return lspFile{}, answer.Invalid(field, "is required")
	}
	var candidates []lspFile
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		for _, r := range s.roots {
			if session.Within(r, clean) {
				rel, _ := filepath.Rel(r, clean)
				candidates = append(candidates, lspFile{root: r, rel: filepath.ToSlash(rel)})
			}
		}
		if len(candidates) == 0 {
			return lspFile{}, graph.Errorf(graph.CodeOutsideRoots, "%s is outside the roots this server may read (%s)", p, strings.Join(s.roots, ", ")).WithData("field", field)
		}
		// The deepest root holding it.
		sort.Slice(candidates, func(i, j int) bool { return len(candidates[i].root) > len(candidates[j].root) })
		candidates = candidates[:1]
	} else {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return lspFile{}, graph.Errorf(graph.CodeOutsideRoots, "%s leaves the root; give a path inside it", p).WithData("field", field)
		}
		for _, r := range s.roots {
			candidates = append(candidates, lspFile{root: r, rel: filepath.ToSlash(filepath.Clean(p))})
		}
	}
	var firstErr error
	for _, c := range candidates {
		text, err := session.ReadFile(c.root, c.rel)
		if err != nil {
			if firstErr == nil || graph.CodeOf(firstErr) == graph.CodeFileNotFound {
				firstErr = err
			}
			continue
		}
		c.abs = filepath.Join(c.root, filepath.FromSlash(c.rel))
		c.text = text
		return c, nil
	}
	if graph.CodeOf(firstErr) == graph.CodeFileNotFound {
		return lspFile{}, graph.Errorf(graph.CodeFileNotFound, "%s does not exist under %s", p, strings.Join(s.roots, ", ")).WithData("field", field)
	}
	if ge, ok := answer.AsError(firstErr); ok {
		ge.WithData("field", field)
	}
	return lspFile{}, firstErr
}

// checkURIs refuses lsp_request params that name a file: URI outside the
// roots, lexically or through a symlink: the server would read it. A URI
// of a file that does not exist yet inside a root is let through.
func (s *servers) checkURIs(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if err := s.checkURIs(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := s.checkURIs(e); err != nil {
				return err
			}
		}
	case string:
		if len(v) < 5 || !strings.EqualFold(v[:5], "file:") {
			return nil
		}
		p := lsp.URIPath(v)
		if p == "" || !filepath.IsAbs(p) {
			return graph.Errorf(graph.CodeOutsideRoots, "%s is not a file: URI of an absolute path inside the roots", v).WithData("field", "params")
		}
		p = filepath.Clean(p)
		for _, r := range s.roots {
			if !session.Within(r, p) {
				continue
			}
			rel, _ := filepath.Rel(r, p)
			root, err := os.OpenRoot(r)
			if err != nil {
				return graph.Wrap(graph.CodeReadError, err, "opening root "+r)
			}
			_, err = root.Stat(rel)
			root.Close()
			if rootfs.Outside(err) {
				return graph.Errorf(graph.CodeOutsideRoots, "%s resolves outside the root %s (through a symlink)", v, r).WithData("field", "params")
			}
			return nil
		}
		return graph.Errorf(graph.CodeOutsideRoots, "%s is outside the roots this server may read (%s)", v, strings.Join(s.roots, ", ")).WithData("field", "params")
	}
	return nil
}

// lspCall is one tool call's hold on a server, with the file it is about
// synced.
type lspCall struct {
	srv   *servers
	lease *lsp.Lease
	spec  lsp.ServerSpec
	file  lspFile
	uri   string
	texts map[string][]byte // other files read to convert positions
}

func (c *lspCall) release() { c.lease.Release() }

// open finds the server for file, acquires it and syncs the file from
// disk.
func (s *servers) open(ctx context.Context, field, file string) (*lspCall, error) {
	f, err := s.locate(field, file)
	if err != nil {
		return nil, err
	}
	cfg, err := s.config(f.root)
	if err != nil {
		return nil, err
	}
	spec, ok := cfg.ServerFor(f.rel)
	if !ok {
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "no language server serves %s; configure one in sextant.toml ([[lsp.server]] with globs), or use the Go tools for .go files", f.rel).WithData("servers", cfg.Names())
	}
	c, err := s.acquire(ctx, *spec, f.root)
	if err != nil {
		return nil, err
	}
	c.file = f
	c.uri, err = c.lease.Sync(f.abs, spec.LanguageIDFor(f.rel), f.text)
	if err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

func (s *servers) acquire(ctx context.Context, spec lsp.ServerSpec, root string) (*lspCall, error) {
	pool, err := s.running()
	if err != nil {
		return nil, err
	}
	l, err := pool.Acquire(ctx, spec, root)
	if err != nil {
		return nil, err
	}
	return &lspCall{srv: s, lease: l, spec: spec, texts: map[string][]byte{}}, nil
}

// serverByName resolves a server named by a caller, in the root given
// (a path inside it) or the first root.
func (s *servers) serverByName(name, file string) (lsp.ServerSpec, string, error) {
	if err := answer.CheckSelectors("server", name, "file", file); err != nil {
		return lsp.ServerSpec{}, "", err
	}
	root := ""
	if file != "" {
		f, err := s.locate("file", file)
		if err != nil {
			return lsp.ServerSpec{}, "", err
		}
		root = f.root
		if name == "" {
			cfg, err := s.config(root)
			if err != nil {
				return lsp.ServerSpec{}, "", err
			}
			spec, ok := cfg.ServerFor(f.rel)
			if !ok {
				return lsp.ServerSpec{}, "", graph.Errorf(graph.CodeLSPUnavailable, "no language server serves %s; configure one in sextant.toml", f.rel).WithData("servers", cfg.Names())
			}
			return *spec, root, nil
		}
	}
	if name == "" {
		return lsp.ServerSpec{}, "", answer.Invalid("server", "give server (a name such as gopls or pyright) or file")
	}
	if root == "" {
		if len(s.roots) == 0 {
			return lsp.ServerSpec{}, "", graph.Errorf(graph.CodeOutsideRoots, "this server has no roots")
		}
		root = s.roots[0]
	}
	cfg, err := s.config(root)
	if err != nil {
		return lsp.ServerSpec{}, "", err
	}
	spec, ok := cfg.Server(name)
	if !ok {
		return lsp.ServerSpec{}, "", answer.Invalid("server", "no server named %q (configured: %s)", name, strings.Join(cfg.Names(), ", ")).WithData("available", cfg.Names())
	}
	return *spec, root, nil
}

// Status says which server answered and what the agent must know about
// it: a restart and why, a server above its soft memory limit.
type Status struct {
	Server   string   `json:"server" jsonschema:"the language server that answered"`
	Pid      int      `json:"pid" jsonschema:"its process id"`
	Encoding string   `json:"position_encoding" jsonschema:"the position encoding negotiated with it (utf-8, or utf-16 converted by the bridge)"`
	Notices  []string `json:"notices,omitempty" jsonschema:"restarts with the tail of the dead server's stderr, SERVER LARGE memory reports"`
}

func (c *lspCall) status() Status {
	return Status{Server: c.spec.Name, Pid: c.lease.Pid(), Encoding: string(c.lease.Encoding()), Notices: c.lease.Notices}
}

// text renders the status lines that precede an answer.
func (st Status) text() string {
	var b strings.Builder
	for _, n := range st.Notices {
		b.WriteString("NOTICE: " + n + "\n")
	}
	return b.String()
}

// position converts the agent's line and column in the call's file.
func (c *lspCall) position(line, column int) (lsp.Position, error) {
	if line < 1 {
		return lsp.Position{}, answer.Invalid("line", "must be 1 or more (lines are 1-based)")
	}
	if column < 1 {
		return lsp.Position{}, answer.Invalid("column", "must be 1 or more (columns are 1-based, in characters)")
	}
	pos, ok := lsp.ToLSP(c.file.text, lsp.Point{Line: line, Column: column}, c.lease.Encoding())
	if !ok {
		return lsp.Position{}, answer.Invalid("line", "%s has no line %d", c.file.rel, line)
	}
	return pos, nil
}

func (c *lspCall) docPos(line, column int) (map[string]any, error) {
	pos, err := c.position(line, column)
	if err != nil {
		return nil, err
	}
	return map[string]any{"textDocument": map[string]any{"uri": c.uri}, "position": pos}, nil
}

// openAt opens the file of a position and returns the call with the
// textDocument/position params of that position; the caller releases the
// call.
func (s *servers) openAt(ctx context.Context, in PositionInput) (*lspCall, map[string]any, error) {
	c, err := s.open(ctx, "file", in.File)
	if err != nil {
		return nil, nil, err
	}
	params, err := c.docPos(in.Line, in.Column)
	if err != nil {
		c.release()
		return nil, nil, err
	}
	return c, params, nil
}

// unsupported reports whether the server lacks capability.
func (c *lspCall) unsupported(capability string) bool { return !c.lease.Has(capability) }

// Location is a place in a file, as an agent counts positions.
type Location struct {
	Path      string `json:"path" jsonschema:"root-relative path, or absolute when outside the roots (a library, the standard library: not read, so its column counts the server's position_encoding units)"`
	Line      int    `json:"line" jsonschema:"1-based line"`
	Column    int    `json:"column" jsonschema:"1-based column in Unicode characters"`
	EndLine   int    `json:"end_line" jsonschema:"1-based line where the range ends"`
	EndColumn int    `json:"end_column" jsonschema:"1-based column just past the range"`
	Text      string `json:"text,omitempty" jsonschema:"the source line, trimmed, for places inside the roots"`
}

// location converts a server's range in uri.
func (c *lspCall) location(uri string, r lsp.Range) Location {
	unconverted := Location{Path: uri, Line: r.Start.Line + 1, Column: r.Start.Character + 1, EndLine: r.End.Line + 1, EndColumn: r.End.Character + 1}
	abs := lsp.URIPath(uri)
	if abs == "" {
		return unconverted
	}
	abs = filepath.Clean(abs)
	text, inside, rel := c.textOf(abs)
	if text == nil {
		// Not read (outside the roots, or refused): the server's columns.
		unconverted.Path = abs
		return unconverted
	}
	start := lsp.FromLSP(text, r.Start, c.lease.Encoding())
	end := lsp.FromLSP(text, r.End, c.lease.Encoding())
	loc := Location{Path: abs, Line: start.Line, Column: start.Column, EndLine: end.Line, EndColumn: end.Column}
	if inside {
		loc.Path = rel
		if line, ok := lineOf(text, start.Line); ok {
			loc.Text = strings.TrimSpace(line)
			if len(loc.Text) > 200 {
				loc.Text = loc.Text[:200] + "…"
			}
		}
	}
	return loc
}

// textOf returns the text of a file a server pointed at, read once per
// call through os.Root, for files inside the roots. Files outside them
// (a library, the standard library) are not read: their text is nil, so
// their columns stay in the server's units.
func (c *lspCall) textOf(abs string) (text []byte, inside bool, rel string) {
	if abs == c.file.abs {
		return c.file.text, true, c.file.rel
	}
	for _, r := range c.srv.roots {
		if session.Within(r, abs) {
			rel, _ := filepath.Rel(r, abs)
			rel = filepath.ToSlash(rel)
			if t, ok := c.texts[abs]; ok {
				return t, t != nil, rel
			}
			t, err := session.ReadFile(r, rel)
			if err != nil {
				t = nil
			}
			c.texts[abs] = t
			return t, t != nil, rel
		}
	}
	return nil, false, ""
}

func lineOf(text []byte, line int) (string, bool) {
	lines := strings.SplitN(string(text), "\n", line+1)
	if line < 1 || line > len(lines) {
		return "", false
	}
	return strings.TrimRight(lines[line-1], "\r"), true
}

func (l Location) String() string {
	s := fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column)
	if l.Text != "" {
		s += "  " + l.Text
	}
	return s
}
