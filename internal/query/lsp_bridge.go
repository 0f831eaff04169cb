package query

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// GroupLSP is the tool group of the language-server bridge.
const GroupLSP = "lsp"

// lspBridge is the Service's share of the language-server bridge: the
// pool of servers (made on first use, with the first root's pool
// settings) and each root's configuration.
type lspBridge struct {
	mu     sync.Mutex
	pool   *lsp.Pool
	closed bool
	cfgs   map[string]*lsp.Config // root → its configuration
}

// Close shuts down every language server the service started and waits
// until they are reaped, and ends its directory watches. The service
// answers no LSP tool afterwards.
func (s *Service) Close() error {
	s.closeWatches()
	s.lsp.mu.Lock()
	pool := s.lsp.pool
	s.lsp.closed = true
	s.lsp.mu.Unlock()
	if pool != nil {
		pool.Close()
	}
	return nil
}

// lspConfig returns root's configuration, read once.
func (s *Service) lspConfig(root string) (*lsp.Config, error) {
	s.lsp.mu.Lock()
	defer s.lsp.mu.Unlock()
	if c := s.lsp.cfgs[root]; c != nil {
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
	if s.lsp.cfgs == nil {
		s.lsp.cfgs = map[string]*lsp.Config{}
	}
	s.lsp.cfgs[root] = c
	return c, nil
}

// lspPool returns the pool, made with the first root's settings.
func (s *Service) lspPool() (*lsp.Pool, error) {
	var cfg lsp.PoolConfig
	if len(s.roots) > 0 {
		c, err := s.lspConfig(s.roots[0])
		if err != nil {
			return nil, err
		}
		cfg = c.Pool
	}
	s.lsp.mu.Lock()
	defer s.lsp.mu.Unlock()
	if s.lsp.closed {
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "the server is shutting down")
	}
	if s.lsp.pool == nil {
		s.lsp.pool = lsp.NewPool(cfg)
	}
	return s.lsp.pool, nil
}

// lspFile is a file resolved under a root, read from disk.
type lspFile struct {
	root, rel, abs string
	text           []byte
}

// lspLocate resolves a file a caller names: relative to the only root (or
// the first root that has it), or absolute inside a root. Paths that
// leave the roots, lexically or through a symlink, are OUTSIDE_ROOTS.
func (s *Service) lspLocate(field, p string) (lspFile, error) {
	if err := checkSelector(field, p); err != nil {
		return lspFile{}, err
	}
	if p == "" {
		return lspFile{}, invalid(field, "is required")
	}
	var candidates []lspFile
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		for _, r := range s.roots {
			if within(r, clean) {
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
		text, err := readFile(c.root, c.rel)
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
	if ge, ok := asError(firstErr); ok {
		ge.WithData("field", field)
	}
	return lspFile{}, firstErr
}

// checkURIs refuses lsp_request params that name a file: URI outside the
// roots, lexically or through a symlink: the server would read it. A URI
// of a file that does not exist yet inside a root is let through.
func (s *Service) checkURIs(v any) error {
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
			if !within(r, p) {
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
	s     *Service
	lease *lsp.Lease
	spec  lsp.ServerSpec
	file  lspFile
	uri   string
	texts map[string][]byte // other files read to convert positions
}

func (c *lspCall) release() { c.lease.Release() }

// lspOpen finds the server for file, acquires it and syncs the file from
// disk.
func (s *Service) lspOpen(ctx context.Context, field, file string) (*lspCall, error) {
	f, err := s.lspLocate(field, file)
	if err != nil {
		return nil, err
	}
	cfg, err := s.lspConfig(f.root)
	if err != nil {
		return nil, err
	}
	spec, ok := cfg.ServerFor(f.rel)
	if !ok {
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "no language server serves %s; configure one in sextant.toml ([[lsp.server]] with globs), or use the Go tools for .go files", f.rel).WithData("servers", cfg.Names())
	}
	c, err := s.lspAcquire(ctx, *spec, f.root)
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

func (s *Service) lspAcquire(ctx context.Context, spec lsp.ServerSpec, root string) (*lspCall, error) {
	pool, err := s.lspPool()
	if err != nil {
		return nil, err
	}
	l, err := pool.Acquire(ctx, spec, root)
	if err != nil {
		return nil, err
	}
	return &lspCall{s: s, lease: l, spec: spec, texts: map[string][]byte{}}, nil
}

// lspServerByName resolves a server named by a caller, in the root given
// (a path inside it) or the first root.
func (s *Service) lspServerByName(name, file string) (lsp.ServerSpec, string, error) {
	if err := checkSelectors("server", name, "file", file); err != nil {
		return lsp.ServerSpec{}, "", err
	}
	root := ""
	if file != "" {
		f, err := s.lspLocate("file", file)
		if err != nil {
			return lsp.ServerSpec{}, "", err
		}
		root = f.root
		if name == "" {
			cfg, err := s.lspConfig(root)
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
		return lsp.ServerSpec{}, "", invalid("server", "give server (a name such as gopls or pyright) or file")
	}
	if root == "" {
		if len(s.roots) == 0 {
			return lsp.ServerSpec{}, "", graph.Errorf(graph.CodeOutsideRoots, "this server has no roots")
		}
		root = s.roots[0]
	}
	cfg, err := s.lspConfig(root)
	if err != nil {
		return lsp.ServerSpec{}, "", err
	}
	spec, ok := cfg.Server(name)
	if !ok {
		return lsp.ServerSpec{}, "", invalid("server", "no server named %q (configured: %s)", name, strings.Join(cfg.Names(), ", ")).WithData("available", cfg.Names())
	}
	return *spec, root, nil
}

// LSPStatus says which server answered and what the agent must know about
// it: a restart and why, a server above its soft memory limit.
type LSPStatus struct {
	Server   string   `json:"server" jsonschema:"the language server that answered"`
	Pid      int      `json:"pid" jsonschema:"its process id"`
	Encoding string   `json:"position_encoding" jsonschema:"the position encoding negotiated with it (utf-8, or utf-16 converted by the bridge)"`
	Notices  []string `json:"notices,omitempty" jsonschema:"restarts with the tail of the dead server's stderr, SERVER LARGE memory reports"`
}

func (c *lspCall) status() LSPStatus {
	return LSPStatus{Server: c.spec.Name, Pid: c.lease.Pid(), Encoding: string(c.lease.Encoding()), Notices: c.lease.Notices}
}

// text renders the status lines that precede an answer.
func (st LSPStatus) text() string {
	var b strings.Builder
	for _, n := range st.Notices {
		b.WriteString("NOTICE: " + n + "\n")
	}
	return b.String()
}

// position converts the agent's line and column in the call's file.
func (c *lspCall) position(line, column int) (lsp.Position, error) {
	if line < 1 {
		return lsp.Position{}, invalid("line", "must be 1 or more (lines are 1-based)")
	}
	if column < 1 {
		return lsp.Position{}, invalid("column", "must be 1 or more (columns are 1-based, in characters)")
	}
	pos, ok := lsp.ToLSP(c.file.text, lsp.Point{Line: line, Column: column}, c.lease.Encoding())
	if !ok {
		return lsp.Position{}, invalid("line", "%s has no line %d", c.file.rel, line)
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

// unsupported reports whether the server lacks capability.
func (c *lspCall) unsupported(capability string) bool { return !c.lease.Has(capability) }

// LSPLocation is a place in a file, as an agent counts positions.
type LSPLocation struct {
	Path      string `json:"path" jsonschema:"root-relative path, or absolute when outside the roots (a library, the standard library: not read, so its column counts the server's position_encoding units)"`
	Line      int    `json:"line" jsonschema:"1-based line"`
	Column    int    `json:"column" jsonschema:"1-based column in Unicode characters"`
	EndLine   int    `json:"end_line" jsonschema:"1-based line where the range ends"`
	EndColumn int    `json:"end_column" jsonschema:"1-based column just past the range"`
	Text      string `json:"text,omitempty" jsonschema:"the source line, trimmed, for places inside the roots"`
}

// location converts a server's range in uri.
func (c *lspCall) location(uri string, r lsp.Range) LSPLocation {
	unconverted := LSPLocation{Path: uri, Line: r.Start.Line + 1, Column: r.Start.Character + 1, EndLine: r.End.Line + 1, EndColumn: r.End.Character + 1}
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
	loc := LSPLocation{Path: abs, Line: start.Line, Column: start.Column, EndLine: end.Line, EndColumn: end.Column}
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
	for _, r := range c.s.roots {
		if within(r, abs) {
			rel, _ := filepath.Rel(r, abs)
			rel = filepath.ToSlash(rel)
			if t, ok := c.texts[abs]; ok {
				return t, t != nil, rel
			}
			t, err := readFile(r, rel)
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

func (l LSPLocation) String() string {
	s := fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column)
	if l.Text != "" {
		s += "  " + l.Text
	}
	return s
}

// pageOf pages n results with limit and cursor; the cursor is bound to
// the query's parts.
func pageOf(env *Envelope, n, limit int, cur string, query ...any) (int, int, error) {
	limit, err := pageLimit(limit)
	if err != nil {
		return 0, 0, err
	}
	q := fingerprint(query...)
	off, err := decodeCursor(cur, q, "lsp")
	if err != nil {
		return 0, 0, err
	}
	if off > n {
		off = n
	}
	end := min(off+limit, n)
	env.Fresh = true
	env.page(n, off, end-off, q, "lsp")
	return off, end, nil
}
