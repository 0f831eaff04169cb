package query

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/srcfile"
)

// Bounds of read_source.
const (
	defaultSourceBudget = 2000
	maxSourceBudget     = 8000
	minSourceBudget     = 150
	maxContextLines     = 50
	maxSourceDepth      = 3
	maxRangeLines       = 400
	maxCalleeBlocks     = 200 // callees considered at any depth
	maxWithheldNames    = 10
)

// ReadSourceInput is the input of read_source. Exactly one of stable_key,
// qualified_name, ref and continuation is given.
type ReadSourceInput struct {
	SymbolID
	// Path narrows qualified_name; a file is named by ref instead.
	Path         string `json:"path,omitempty" jsonschema:"path prefix to narrow by"`
	Ref          string `json:"ref,omitempty" jsonschema:"path::Name or path:START-END"`
	Continuation string `json:"continuation,omitempty" jsonschema:"continuation of a cut answer; alone"`
	ContextLines int    `json:"context_lines,omitempty" jsonschema:"lines around the symbol, 0-50"`
	Depth        int    `json:"depth,omitempty" jsonschema:"0-3: add callee bodies to this depth"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens 150-8000 (default 2000)"`
	Wait         Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// SourceBlock is the source of one declaration or range, as on disk.
type SourceBlock struct {
	QualifiedName string `json:"qualified_name,omitempty" jsonschema:"the declaration, when the block is one"`
	StableKey     string `json:"stable_key,omitempty" jsonschema:"its durable key, when the snapshot has it"`
	Kind          string `json:"kind,omitempty" jsonschema:"its kind"`
	Path          string `json:"path" jsonschema:"repo-relative file"`
	StartLine     int    `json:"start_line" jsonschema:"1-based first line shown"`
	EndLine       int    `json:"end_line" jsonschema:"1-based last line shown"`
	Depth         int    `json:"depth" jsonschema:"0 for what was asked; 1-3 for callees"`
	Coverage      string `json:"coverage,omitempty" jsonschema:"for a callee: exact or candidate"`
	Source        string `json:"source" jsonschema:"the lines, read from disk now"`
	Note          string `json:"note,omitempty" jsonschema:"how the file differs from the snapshot, if it does"`
	StartByte     int    `json:"start_byte,omitempty" jsonschema:"the first line shown starts at this byte of it, continuing a line cut for the budget"`
	EndByte       int    `json:"end_byte,omitempty" jsonschema:"the last line shown is cut before this byte of it, for the budget; the continuation resumes there"`
}

// ReadSourceOutput is the answer of read_source.
type ReadSourceOutput struct {
	Envelope
	Repository   string        `json:"repository" jsonschema:"repository name"`
	Verified     bool          `json:"verified" jsonschema:"true: every block was read from disk now and located in the current file"`
	Budget       int           `json:"budget" jsonschema:"token budget applied"`
	Results      []SourceBlock `json:"results" jsonschema:"the symbol or range, then callees"`
	Withheld     []string      `json:"withheld,omitempty" jsonschema:"callees (or lines) left out for the budget"`
	Continuation string        `json:"continuation,omitempty" jsonschema:"pass back as continuation for the rest"`
}

// readCont is what a read_source continuation carries: the request it
// continues (a symbol's key or a file range), the snapshot it was computed
// on, and where the next answer starts.
type readCont struct {
	V     int    `json:"v"`
	Repo  string `json:"r"`
	Snap  int64  `json:"s"`
	Key   string `json:"k,omitempty"`
	Path  string `json:"p,omitempty"`
	From  int    `json:"a,omitempty"`
	To    int    `json:"b,omitempty"`
	Hash  string `json:"h,omitempty"` // first 16 hex digits of the range file's hash
	Depth int    `json:"d,omitempty"`
	Ctx   int    `json:"c,omitempty"`
	Block int    `json:"i,omitempty"` // next block to serve
	Line  int    `json:"l,omitempty"` // first line of that block to serve; 0 from its start
	Off   int    `json:"o,omitempty"` // byte of that line to serve from, when a line was cut
}

// plannedBlock is a block to be served: a symbol (verified when read) or a
// file range.
type plannedBlock struct {
	sym      *graph.Symbol
	depth    int
	coverage string
	rng      *rangeSpec
}

type rangeSpec struct {
	file     *srcfile.File
	from, to int
	name     string // declaration name for a path::Name ref
	kind     graph.Kind
	note     string
}

func (p plannedBlock) name() string {
	if p.sym != nil {
		return p.sym.QualifiedName
	}
	if p.rng.name != "" {
		return p.rng.name
	}
	return fmt.Sprintf("%s:%d-%d", p.rng.file.Rel, p.rng.from, p.rng.to)
}

// ReadSource returns verified, line-numbered source.
func ReadSource(ctx context.Context, s *Service, in ReadSourceInput, progress func(Progress)) (*ReadSourceOutput, error) {
	if err := checkSelectors("stable_key", in.StableKey, "qualified_name", in.QualifiedName, "repository", in.Repository,
		"path", in.Path, "ref", in.Ref, "continuation", in.Continuation); err != nil {
		return nil, err
	}
	given := 0
	for _, v := range []string{in.StableKey, in.QualifiedName, in.Ref, in.Continuation} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return nil, invalid("stable_key", "give exactly one of stable_key, qualified_name, ref or continuation")
	}
	if in.Path != "" && in.QualifiedName == "" {
		return nil, invalid("path", "narrows only qualified_name; put a file in ref as path::Name or path:START-END")
	}
	if in.ContextLines < 0 || in.ContextLines > maxContextLines {
		return nil, invalid("context_lines", "must be from 0 to %d (got %d)", maxContextLines, in.ContextLines)
	}
	if in.Depth < 0 || in.Depth > maxSourceDepth {
		return nil, invalid("depth", "must be from 0 to %d (got %d)", maxSourceDepth, in.Depth)
	}
	budget, err := budgetIn(in.Budget, defaultSourceBudget, minSourceBudget, maxSourceBudget)
	if err != nil {
		return nil, err
	}
	if in.Depth == 0 && in.Continuation == "" {
		ctx = session.WithSyntax(ctx) // a declaration's lines need no types; callee bodies need the call graph
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()

	var c readCont
	if in.Continuation != "" {
		if in.ContextLines != 0 || in.Depth != 0 {
			return nil, invalid("continuation", "carries its own context_lines and depth; send it with budget alone")
		}
		if c, err = decodeReadCont(v, in.Continuation, in.Repository); err != nil {
			return nil, err
		}
	} else {
		c = readCont{Depth: in.Depth, Ctx: in.ContextLines}
	}

	var plan []plannedBlock
	var repo graph.RepositoryStatus
	switch {
	case in.Ref != "" || c.Path != "":
		var rs *rangeSpec
		var sym *graph.Symbol
		if c.Path != "" {
			repo, _ = v.Repo(c.Repo)
			rs, err = contRange(v, s.files, c, repo)
		} else {
			repo, rs, sym, err = parseRef(ctx, v, s.files, in.Ref, in.Repository)
		}
		if err != nil {
			return nil, err
		}
		if sym != nil {
			plan = []plannedBlock{{sym: sym}}
		} else {
			plan = []plannedBlock{{rng: rs}}
		}
	default:
		var sym graph.Symbol
		if c.Key != "" {
			sym, err = resolve(ctx, v, selector{StableKey: c.Key})
		} else {
			sel := selector{StableKey: in.StableKey, QualifiedName: in.QualifiedName, Repository: in.Repository, Path: in.Path}
			if err = sel.validate(); err == nil {
				sym, err = resolve(ctx, v, sel)
			}
		}
		if err != nil {
			return nil, err
		}
		if repo, err = v.Repo(sym.Repository); err != nil {
			return nil, err
		}
		plan = []plannedBlock{{sym: &sym}}
	}
	v.Use(repo.Name)
	if c.Depth > 0 && plan[0].sym != nil && plan[0].sym.Kind.IsFunction() {
		callees, err := calleePlan(ctx, v, *plan[0].sym, c.Depth)
		if err != nil {
			return nil, err
		}
		plan = append(plan, callees...)
	}
	if c.Block >= len(plan) {
		return nil, graph.Errorf(graph.CodeCursorInvalid, "continuation points past the end of the answer; call again without it")
	}

	out := &ReadSourceOutput{Repository: repo.Name, Verified: true, Budget: budget}
	out.Envelope = v.Envelope()
	// The first planned block is verified even when a continuation starts
	// later: a symbol deleted since is an error, not an empty answer.
	if c.Block > 0 {
		if _, err := materialize(ctx, v, s.files, repo, plan[0], c.Ctx); err != nil {
			return nil, err
		}
	}
	limit := budget * 4
	next := readCont{V: 1, Repo: repo.Name, Snap: repo.Snapshot.ID, Depth: c.Depth, Ctx: c.Ctx}
	if plan[0].sym != nil {
		next.Key = plan[0].sym.Key
	} else {
		next.Path, next.From, next.To, next.Hash = plan[0].rng.file.Rel, plan[0].rng.from, plan[0].rng.to, plan[0].rng.file.Hash[:16]
	}
	// finish sets the truncation footer for an answer that stops at block
	// cut (from line cutLine of it when > 0, and from byte cutByte of that
	// line when > 0), or clears it when cut is the end.
	finish := func(cut, cutLine, cutByte int) {
		out.Truncated, out.Withheld, out.Continuation = false, nil, ""
		if cut >= len(plan) {
			return
		}
		next.Block, next.Line, next.Off = cut, cutLine, cutByte
		out.Continuation = encodeReadCont(next)
		out.Truncated = true
		if cutByte > 0 {
			out.Withheld = append(out.Withheld, fmt.Sprintf("%s from line %d byte %d", plan[cut].name(), cutLine, cutByte))
			cut++
		} else if cutLine > 0 {
			out.Withheld = append(out.Withheld, fmt.Sprintf("%s from line %d", plan[cut].name(), cutLine))
			cut++
		}
		for i := cut; i < len(plan); i++ {
			if len(out.Withheld) == maxWithheldNames {
				out.Withheld = append(out.Withheld, fmt.Sprintf("and %d more", len(plan)-i))
				break
			}
			out.Withheld = append(out.Withheld, plan[i].name())
		}
	}
	for i := c.Block; i < len(plan); i++ {
		blk, err := materialize(ctx, v, s.files, repo, plan[i], c.Ctx)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			continue // a callee that moved away is skipped, not fatal
		}
		if i == c.Block && c.Line > 0 {
			if c.Line > blk.EndLine {
				return nil, graph.Errorf(graph.CodeCursorInvalid, "continuation points past the end of %s; call again without it", plan[i].name())
			}
			blk = sliceBlock(blk, c.Line, blk.EndLine)
			if c.Off > 0 {
				if blk, err = fromByte(blk, c.Off); err != nil {
					return nil, err
				}
			}
		}
		out.Results = append(out.Results, blk)
		finish(i+1, 0, 0)
		if len(out.Text()) <= limit {
			continue
		}
		// Over budget: the first block served is cut to fit (at least one
		// line, so that continuations make progress); a later one is
		// withheld whole.
		out.Results = out.Results[:len(out.Results)-1]
		if len(out.Results) > 0 {
			finish(i, 0, 0)
			break
		}
		fit := fitLines(blk, func(b SourceBlock) bool {
			out.Results = []SourceBlock{b}
			finish(i, b.EndLine+1, 0)
			return len(out.Text()) <= limit
		})
		if fit < blk.StartLine {
			// Not even its first line fits (generated code, embedded
			// data): cut inside the line, at least one character, so
			// that continuations make progress.
			line := sliceBlock(blk, blk.StartLine, blk.StartLine)
			cut := fitBytes(line, func(b SourceBlock) bool {
				out.Results = []SourceBlock{b}
				finish(i, b.StartLine, b.EndByte)
				return len(out.Text()) <= limit
			})
			if cut.EndByte > 0 {
				out.Results = []SourceBlock{cut}
				finish(i, cut.StartLine, cut.EndByte)
				break
			}
			fit = blk.StartLine // a line of one character: whole
		}
		out.Results = []SourceBlock{sliceBlock(blk, blk.StartLine, fit)}
		if fit < blk.EndLine {
			finish(i, fit+1, 0)
		} else {
			finish(i+1, 0, 0)
		}
		break
	}
	out.Total, out.Returned = len(plan)-c.Block, len(out.Results)
	return out, nil
}

// fitLines returns the last line of blk such that the block cut there still
// fits, or blk.StartLine-1 when not even one line does.
func fitLines(blk SourceBlock, fits func(SourceBlock) bool) int {
	lo, hi := blk.StartLine, blk.EndLine
	best := blk.StartLine - 1
	for lo <= hi {
		mid := (lo + hi) / 2
		if fits(sliceBlock(blk, blk.StartLine, mid)) {
			best = mid
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// sliceBlock keeps lines from..to of a block. A cut first or last line
// stays cut only when it is kept.
func sliceBlock(b SourceBlock, from, to int) SourceBlock {
	lines := strings.Split(b.Source, "\n")
	lo, hi := from-b.StartLine, to-b.StartLine+1
	lo = max(0, min(lo, len(lines)))
	hi = max(lo, min(hi, len(lines)))
	b.Source = strings.Join(lines[lo:hi], "\n")
	if from != b.StartLine {
		b.StartByte = 0
	}
	if to != b.EndLine {
		b.EndByte = 0
	}
	b.StartLine, b.EndLine = from, to
	return b
}

// materialize reads a planned block from disk.
func materialize(ctx context.Context, v *session.View, files *srcfile.Cache, repo graph.RepositoryStatus, p plannedBlock, ctxLines int) (SourceBlock, error) {
	if p.rng != nil {
		r := p.rng
		from, to := max(1, r.from-ctxLines), min(r.file.LineCount(), r.to+ctxLines)
		return SourceBlock{QualifiedName: r.name, Kind: string(r.kind), Path: r.file.Rel, StartLine: from, EndLine: to,
			Source: r.file.Text(from, to), Note: r.note}, nil
	}
	vs, err := srcfile.Verify(ctx, v, files, *p.sym)
	if err != nil {
		return SourceBlock{}, err
	}
	from, to := max(1, vs.From-ctxLines), min(vs.File.LineCount(), vs.To+ctxLines)
	if p.depth > 0 {
		from, to = vs.From, vs.To
	}
	return SourceBlock{QualifiedName: p.sym.QualifiedName, StableKey: p.sym.Key, Kind: string(p.sym.Kind),
		Path: p.sym.Path, StartLine: from, EndLine: to, Depth: p.depth, Coverage: p.coverage,
		Source: vs.File.Text(from, to), Note: vs.Note}, nil
}

// splitRef splits a ref into a path and either a declaration name
// (path::Name) or a line range (path:START-END). It checks only the form;
// parseRef checks the path and the range against the file.
func splitRef(ref string) (p, name string, from, to int, err error) {
	if i := strings.Index(ref, "::"); i >= 0 {
		p, name = ref[:i], ref[i+2:]
		if name == "" || p == "" {
			return "", "", 0, 0, invalid("ref", "%q: give path::Name, e.g. internal/foo/bar.go::Server.Start", ref)
		}
		return p, name, 0, 0, nil
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 {
		return "", "", 0, 0, invalid("ref", "%q is neither path::Name nor path:START-END", ref)
	}
	p = ref[:i]
	a, b, ok := strings.Cut(ref[i+1:], "-")
	var err1, err2 error
	from, err1 = strconv.Atoi(a)
	to, err2 = strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || p == "" {
		return "", "", 0, 0, invalid("ref", "%q: a range is path:START-END with 1-based line numbers, e.g. main.go:10-40", ref)
	}
	return p, "", from, to, nil
}

// parseRef resolves a ref: path::Name, or path:START-END.
func parseRef(ctx context.Context, v *session.View, files *srcfile.Cache, ref, repository string) (graph.RepositoryStatus, *rangeSpec, *graph.Symbol, error) {
	p, name, from, to, err := splitRef(ref)
	if err != nil {
		return graph.RepositoryStatus{}, nil, nil, err
	}
	loc, err := v.Locate("ref", p, repository)
	if err != nil {
		return graph.RepositoryStatus{}, nil, nil, err
	}
	v.Use(loc.Repo.Name)
	f, err := files.Load(loc.Repo.Root, loc.Rel)
	if err != nil {
		if e, ok := asError(err); ok && e.Code == graph.CodeInvalidArgument {
			return graph.RepositoryStatus{}, nil, nil, invalid("ref", "%s is a directory, not a file; give a file, or use get_file_outline for a directory", loc.Rel)
		}
		return graph.RepositoryStatus{}, nil, nil, err
	}
	if name == "" {
		n := f.LineCount()
		switch {
		case from < 1 || to < from:
			return graph.RepositoryStatus{}, nil, nil, invalid("ref", "range %d-%d is empty or starts before line 1; lines are 1-based, START <= END", from, to)
		case to-from+1 > maxRangeLines:
			return graph.RepositoryStatus{}, nil, nil, invalid("ref", "range %d-%d is %d lines; ask for at most %d at a time (e.g. %s:%d-%d), or read a symbol by name", from, to, to-from+1, maxRangeLines, loc.Rel, from, from+maxRangeLines-1)
		case from > n || to > n:
			return graph.RepositoryStatus{}, nil, nil, invalid("ref", "range %d-%d is past the end of %s, which has %d lines; ask for at most %d-%d", from, to, loc.Rel, n, min(from, n), n)
		}
		return loc.Repo, &rangeSpec{file: f, from: from, to: to}, nil, nil
	}
	// A declaration in that file: the snapshot's symbol when it has one
	// (verified later), else the declaration as parsed from disk now.
	syms, err := v.Reader().LookupSymbols(ctx, graph.Lookup{QualifiedName: name, Repository: loc.Repo.Name, PathPrefix: loc.Rel})
	if err != nil {
		return graph.RepositoryStatus{}, nil, nil, graph.Wrap(graph.CodeInternal, err, "looking up "+name)
	}
	var inFile []graph.Symbol
	for _, s := range syms {
		if s.Path == loc.Rel {
			inFile = append(inFile, s)
		}
	}
	if len(inFile) == 1 {
		return loc.Repo, nil, &inFile[0], nil
	}
	if len(inFile) > 1 {
		return graph.RepositoryStatus{}, nil, nil, ambiguous(name, inFile, "ref")
	}
	ds := f.Find(name, "")
	if len(ds) == 0 {
		e := graph.Errorf(graph.CodeSymbolNotFound, "%s declares no %s now; its declarations nearest the top are in data.suggestions", loc.Rel, name)
		if sug := srcfile.NearbyDecls(f, 1, ""); len(sug) > 0 {
			e.WithData("suggestions", sug)
		}
		return graph.RepositoryStatus{}, nil, nil, e
	}
	d := ds[0]
	return loc.Repo, &rangeSpec{file: f, from: d.DocLine, to: d.EndLine, name: name, kind: d.Kind,
		note: fmt.Sprintf("not in snapshot %d (the file changed since); read from disk", loc.Repo.Snapshot.ID)}, nil, nil
}

// contRange re-reads the range a continuation names, refusing it when the
// file changed since the continuation was issued.
func contRange(v *session.View, files *srcfile.Cache, c readCont, repo graph.RepositoryStatus) (*rangeSpec, error) {
	f, err := files.Load(repo.Root, c.Path)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(f.Hash, c.Hash) || c.To > f.LineCount() {
		return nil, graph.Errorf(graph.CodeCursorInvalid, "%s changed since this continuation was issued; call read_source again with ref", c.Path).WithData("field", "continuation")
	}
	return &rangeSpec{file: f, from: c.From, to: c.To}, nil
}

// calleePlan lists the functions sym calls, breadth-first to depth, each
// once: at each depth exact edges first, then candidates; callees outside
// the graph and unresolved calls are not followed.
func calleePlan(ctx context.Context, v *session.View, sym graph.Symbol, depth int) ([]plannedBlock, error) {
	seen := map[string]bool{sym.Key: true}
	frontier := []string{sym.Key}
	var plan []plannedBlock
	for d := 1; d <= depth && len(frontier) > 0 && len(plan) < maxCalleeBlocks; d++ {
		edges, err := v.Reader().CallEdges(ctx, graph.EdgeQuery{Callers: frontier,
			Coverage: []graph.Coverage{graph.CoverageExact, graph.CoverageCandidate}})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading call edges")
		}
		// CallEdges orders by caller; keep that (the frontier's order is
		// not the keys' order) and put exact before candidate.
		order := map[string]int{}
		for i, k := range frontier {
			order[k] = i
		}
		sort.SliceStable(edges, func(i, j int) bool {
			a, b := edges[i], edges[j]
			if (a.Coverage == graph.CoverageExact) != (b.Coverage == graph.CoverageExact) {
				return a.Coverage == graph.CoverageExact
			}
			if order[a.Caller] != order[b.Caller] {
				return order[a.Caller] < order[b.Caller]
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
		var keys []string
		cov := map[string]string{}
		for _, e := range edges {
			if e.Callee == "" || seen[e.Callee] {
				continue
			}
			seen[e.Callee] = true
			keys = append(keys, e.Callee)
			cov[e.Callee] = string(e.Coverage)
			if len(plan)+len(keys) >= maxCalleeBlocks {
				break
			}
		}
		byKey, err := symbolsByKey(ctx, v, keys, "callees")
		if err != nil {
			return nil, err
		}
		frontier = nil
		for _, k := range keys {
			s, ok := byKey[k]
			if !ok {
				continue
			}
			plan = append(plan, plannedBlock{sym: &s, depth: d, coverage: cov[k]})
			frontier = append(frontier, k)
		}
	}
	return plan, nil
}

func encodeReadCont(c readCont) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeReadCont checks that a continuation is one this server issued, for
// the repository asked (if any) and its current snapshot.
func decodeReadCont(v *session.View, s, repository string) (readCont, error) {
	c, err := parseReadCont(s)
	if err != nil {
		return c, err
	}
	if repository != "" && repository != c.Repo {
		return c, graph.Errorf(graph.CodeCursorInvalid, "continuation belongs to repository %s, not %s; drop repository or the continuation", c.Repo, repository).WithData("field", "continuation")
	}
	repo, err := v.Repo(c.Repo)
	if err != nil {
		return c, graph.Errorf(graph.CodeCursorInvalid, "continuation belongs to repository %s, which is no longer indexed", c.Repo).WithData("field", "continuation")
	}
	if repo.Snapshot.ID != c.Snap {
		return c, graph.Errorf(graph.CodeCursorInvalid, "continuation was issued on snapshot %d of %s, which is now at snapshot %d; call read_source again with the selector", c.Snap, c.Repo, repo.Snapshot.ID).WithData("field", "continuation")
	}
	return c, nil
}

// parseReadCont decodes a continuation and checks its shape: what the
// caller sends back is outside input.
func parseReadCont(s string) (readCont, error) {
	var c readCont
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.V != 1 || c.Block < 0 || c.Line < 0 || (c.Key == "") == (c.Path == "") ||
		c.Depth < 0 || c.Depth > maxSourceDepth || c.Ctx < 0 || c.Ctx > maxContextLines || c.Off < 0 || c.Off > 0 && c.Line == 0 ||
		c.Path != "" && (!filepath.IsLocal(c.Path) || c.From < 1 || c.To < c.From || c.To-c.From >= maxRangeLines) {
		return readCont{}, graph.Errorf(graph.CodeCursorInvalid, "continuation is not one read_source issued; call again with a selector").WithData("field", "continuation")
	}
	return c, nil
}

// Text renders the blocks with line numbers, each path once.
func (o *ReadSourceOutput) Text() string {
	var b strings.Builder
	lastPath := ""
	for _, blk := range o.Results {
		where := fmt.Sprintf("%d-%d", blk.StartLine, blk.EndLine)
		if blk.Path != lastPath {
			where = blk.Path + ":" + where
			lastPath = blk.Path
		}
		b.WriteString("== ")
		if blk.Depth > 0 {
			fmt.Fprintf(&b, "callee d%d %s: ", blk.Depth, blk.Coverage)
		}
		if blk.QualifiedName != "" {
			fmt.Fprintf(&b, "%s (%s) ", blk.QualifiedName, blk.Kind)
		}
		b.WriteString(where)
		if blk.StartByte > 0 {
			fmt.Fprintf(&b, " (line %d from byte %d)", blk.StartLine, blk.StartByte)
		}
		b.WriteByte('\n')
		if blk.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", blk.Note)
		}
		for i, line := range strings.Split(blk.Source, "\n") {
			fmt.Fprintf(&b, "%d\t%s\n", blk.StartLine+i, quoteContent(line))
		}
		if blk.EndByte > 0 {
			fmt.Fprintf(&b, "(line %d cut at byte %d for the budget)\n", blk.EndLine, blk.EndByte)
		}
	}
	if o.Truncated {
		fmt.Fprintf(&b, "truncated at %d tokens; withheld: %s\ncontinuation: %s\n", o.Budget, strings.Join(o.Withheld, ", "), o.Continuation)
	}
	writeFreshness(&b, o.Envelope)
	return b.String()
}
