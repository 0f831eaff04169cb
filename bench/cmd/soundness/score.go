package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptest"
)

// keys maps the module's declarations to the stable keys of the index,
// and reads what the causes of a miss need from it.
type keys struct {
	byDecl map[int]string
	syms   map[string]graph.Symbol
	db     string
}

// symbolKeys reads the index's symbols from db and matches them to the
// declarations: same file, same qualified name, the declaring line inside
// the symbol's lines.
func symbolKeys(ctx context.Context, db string, p *program) (*keys, error) {
	syms, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return nil, err
	}
	byName := map[[2]string][]graph.Symbol{}
	k := &keys{byDecl: map[int]string{}, syms: map[string]graph.Symbol{}, db: db}
	for _, s := range syms {
		if s.Kind.IsFunction() || s.Kind == graph.KindVar {
			// A package's second and later func init are init#2, init#3…
			// in the index; the lines tell them apart.
			name := s.QualifiedName
			if base, _, ok := strings.Cut(name, "#"); ok && base == "init" {
				name = base
			}
			byName[[2]string{s.Path, name}] = append(byName[[2]string{s.Path, name}], s)
			k.syms[s.Key] = s
		}
	}
	for i, d := range p.Decls {
		for _, s := range byName[[2]string{d.Path, d.Name}] {
			if s.StartLine <= d.Line && d.Line <= s.EndLine {
				k.byDecl[i] = s.Key
			}
		}
	}
	return k, nil
}

// edgesAt returns the index's edges out of caller made on line of path.
func (k *keys) edgesAt(ctx context.Context, caller string, s site) ([]graph.CallEdge, error) {
	var out []graph.CallEdge
	err := harness.WithReader(ctx, k.db, func(r graph.Reader) error {
		all, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: []string{caller}})
		for _, e := range all {
			if e.Path == s.Path && e.Line == s.Line {
				out = append(out, e)
			}
		}
		return err
	})
	return out, err
}

// callerSets is what one tool answered: for each callee declaration
// asked, the caller declarations it listed, or why it could not answer.
type callerSets struct {
	callers map[int]map[int]bool
	failed  map[int]string
	extra   map[int]int // listed callers that are no declaration of the table (their keys unmatched)
	elapsed time.Duration
}

// sextantCallers asks get_callers of every callee over MCP, through
// `sextant serve` (the built binary, stdio), with the defaults an agent
// sends (depth 1) but limit 500, following next_cursor to the end.
func sextantCallers(ctx context.Context, bin, db, root string, p *program, k *keys, callees []int) (*callerSets, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "soundness", Version: "0.1.0"}, nil)
	cmd := exec.Command(bin, "serve", "--db", db, root)
	cmd.Stderr = os.Stderr
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting sextant serve: %w", err)
	}
	defer sess.Close()
	declOf := map[string]int{}
	for d, key := range k.byDecl {
		declOf[key] = d
	}
	out := &callerSets{callers: map[int]map[int]bool{}, failed: map[int]string{}, extra: map[int]int{}}
	start := time.Now()
	for _, c := range callees {
		key, ok := k.byDecl[c]
		if !ok {
			out.failed[c] = "the callee is no function of the index"
			continue
		}
		set := map[int]bool{}
		cursor := ""
		for {
			args := map[string]any{"stable_key": key, "limit": 500}
			if cursor != "" {
				args["cursor"] = cursor
			}
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_callers", Arguments: args})
			if err != nil {
				return nil, fmt.Errorf("get_callers %s: %w", p.Decls[c], err)
			}
			var ans struct {
				Results []struct {
					Depth     int    `json:"depth"`
					StableKey string `json:"stable_key"`
				} `json:"results"`
				NextCursor *string `json:"next_cursor"`
				Error      *struct {
					Code, Message string
				} `json:"error"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &ans); err != nil {
				return nil, fmt.Errorf("get_callers %s: reading the answer: %w", p.Decls[c], err)
			}
			if res.IsError || ans.Error != nil {
				msg := "error"
				if ans.Error != nil {
					msg = ans.Error.Code + ": " + ans.Error.Message
				}
				out.failed[c] = msg
				break
			}
			for _, r := range ans.Results {
				if r.Depth != 1 || r.StableKey == "" {
					continue
				}
				if d, ok := declOf[r.StableKey]; ok {
					set[d] = true
				} else {
					out.extra[c]++
				}
			}
			if ans.NextCursor == nil {
				break
			}
			cursor = *ans.NextCursor
		}
		out.callers[c] = set
	}
	out.elapsed = time.Since(start)
	return out, nil
}

// goplsCallers asks gopls's call hierarchy (prepareCallHierarchy at the
// declaring identifier, then incomingCalls) of every callee, and maps
// each call range it returns to the declaration containing it.
func goplsCallers(ctx context.Context, bin, root string, p *program, callees []int) (*callerSets, error) {
	c, err := lsptest.Start(bin, root, "serve")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	lines := map[string][]string{}
	lineOf := func(path string, n int) string {
		l, ok := lines[path]
		if !ok {
			b, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			l = strings.Split(string(b), "\n")
			lines[path] = l
		}
		if n-1 < len(l) {
			return l[n-1]
		}
		return ""
	}
	out := &callerSets{callers: map[int]map[int]bool{}, failed: map[int]string{}, extra: map[int]int{}}
	start := time.Now()
	for i, ci := range callees {
		if i > 0 && i%100 == 0 {
			harness.Logf("gopls: %d of %d callees, %.0f s", i, len(callees), time.Since(start).Seconds())
		}
		d := p.Decls[ci]
		text := lineOf(d.Path, d.Line)
		col := d.Col
		if col-1 <= len(text) {
			col = utf8.RuneCountInString(text[:col-1]) + 1
		}
		pos := map[string]any{
			"textDocument": map[string]any{"uri": lsptest.FileURI(filepath.Join(root, filepath.FromSlash(d.Path)))},
			"position":     map[string]any{"line": d.Line - 1, "character": lsptest.UTF16Column(text, col)},
		}
		var items []json.RawMessage
		if err := c.Call("textDocument/prepareCallHierarchy", pos, &items); err != nil || len(items) == 0 {
			out.failed[ci] = fmt.Sprintf("prepareCallHierarchy: %v (%d items)", err, len(items))
			continue
		}
		var calls []struct {
			From struct {
				URI string `json:"uri"`
			} `json:"from"`
			FromRanges []struct {
				Start lsptest.Position `json:"start"`
			} `json:"fromRanges"`
		}
		if err := c.Call("callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
			out.failed[ci] = fmt.Sprintf("incomingCalls: %v", err)
			continue
		}
		set := map[int]bool{}
		for _, call := range calls {
			path, err := lsptest.URIPath(call.From.URI)
			if err != nil {
				continue
			}
			rel, err := filepath.Rel(root, path)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			for _, r := range call.FromRanges {
				if di := p.at(rel, r.Start.Line+1); di >= 0 {
					set[di] = true
				} else {
					out.extra[ci]++
				}
			}
		}
		out.callers[ci] = set
	}
	out.elapsed = time.Since(start)
	return out, nil
}

// toolScore is one tool's figures.
type toolScore struct {
	Tool      string  `json:"tool"`
	How       string  `json:"how"`
	Observed  int     `json:"observed"`
	Found     int     `json:"found"`
	Soundness float64 `json:"soundness"`
	// Returned counts the distinct callers listed for the callees asked,
	// Precision is Returned per observed caller.
	Returned  int     `json:"returned"`
	Precision float64 `json:"callers_per_observed"`
	// The same for the callers declared in the packages whose tests ran:
	// with a subset of a module's tests, callers elsewhere are never
	// exercised, so they are no measure of precision.
	ReturnedTested  int     `json:"returned_in_tested_packages"`
	PrecisionTested float64 `json:"callers_per_observed_in_tested_packages"`
	// The same for the callers that ran during the tests (their body or
	// a literal in it), the figure the precision target is judged on: a
	// caller that never ran could make no observed call, right or wrong.
	// Listed callers that are no declaration of the table are counted
	// in, as if they ran.
	ReturnedRan  int     `json:"returned_that_ran"`
	PrecisionRan float64 `json:"callers_per_observed_that_ran"`
	// UnobservedRan splits the listed callers that ran but whose call
	// of the callee was never observed by the best edge the index has
	// between them: "exact static" (a call on a path the tests did not
	// take) or "candidate interface" / "candidate func_value" (a dynamic
	// call that reached other callees in the tests, or none), and so on.
	// Only for get_callers.
	UnobservedRan map[string]int `json:"unobserved_that_ran,omitempty"`
	// UnobservedCandidates lists the callers of UnobservedRan that have
	// only candidate edges to the callee, the over-approximation of
	// the resolution of dynamic calls the run could see.
	UnobservedCandidates []string       `json:"unobserved_candidates,omitempty"`
	Failed               int            `json:"callees_failed"`
	Seconds              float64        `json:"seconds"`
	ByClass              map[string]cls `json:"by_dispatch"`
	Misses               []miss         `json:"misses"`
}

type cls struct {
	Observed int `json:"observed"`
	Found    int `json:"found"`
}

// miss is an observed pair a tool did not list, with why.
type miss struct {
	Callee   string `json:"callee"`
	Caller   string `json:"caller"`
	Dispatch string `json:"dispatch"`
	Sites    []site `json:"sites"`
	Cause    string `json:"cause"`
}

// score compares what a tool listed with the observed pairs. cause, when
// set, explains a miss.
func score(name, how string, p *program, o *observation, got *callerSets, tested map[string]bool, cause func(*pair) string) toolScore {
	ts := toolScore{Tool: name, How: how, ByClass: map[string]cls{}, Seconds: got.elapsed.Seconds(), Failed: len(got.failed)}
	for _, pr := range o.pairs {
		c := ts.ByClass[pr.Dispatch]
		c.Observed++
		ts.Observed++
		if got.callers[pr.Callee][pr.Caller] {
			c.Found++
			ts.Found++
		} else {
			m := miss{Callee: p.Decls[pr.Callee].String(), Caller: p.Decls[pr.Caller].String(), Dispatch: pr.Dispatch, Sites: pr.Sites}
			if why, ok := got.failed[pr.Callee]; ok {
				m.Cause = "no answer for the callee: " + why
			} else if cause != nil {
				m.Cause = cause(pr)
			}
			ts.Misses = append(ts.Misses, m)
		}
		ts.ByClass[pr.Dispatch] = c
	}
	asked := map[int]bool{}
	for _, pr := range o.pairs {
		asked[pr.Callee] = true
	}
	for ci, set := range got.callers {
		if !asked[ci] {
			continue // a callee outside the sample scored
		}
		ts.Returned += len(set) + got.extra[ci]
		ts.ReturnedTested += got.extra[ci]
		ts.ReturnedRan += got.extra[ci]
		for d := range set {
			if tested[path.Dir(p.Decls[d].Path)] {
				ts.ReturnedTested++
			}
			if o.ran[d] {
				ts.ReturnedRan++
			}
		}
	}
	if ts.Observed > 0 {
		ts.Soundness = float64(ts.Found) / float64(ts.Observed)
		ts.Precision = float64(ts.Returned) / float64(ts.Observed)
		ts.PrecisionTested = float64(ts.ReturnedTested) / float64(ts.Observed)
		ts.PrecisionRan = float64(ts.ReturnedRan) / float64(ts.Observed)
	}
	sort.Slice(ts.Misses, func(i, j int) bool {
		return ts.Misses[i].Callee+ts.Misses[i].Caller < ts.Misses[j].Callee+ts.Misses[j].Caller
	})
	return ts
}

// sextantCause explains why get_callers left out an observed pair, from
// the index's edges at the observed call sites.
func sextantCause(ctx context.Context, p *program, k *keys) func(*pair) string {
	return func(pr *pair) string {
		callee, ok := k.byDecl[pr.Callee]
		if !ok {
			return "the callee is no function of the index"
		}
		caller, ok := k.byDecl[pr.Caller]
		if !ok {
			return "the caller is no symbol of the index (" + p.Decls[pr.Caller].Kind + ")"
		}
		var notes []string
		for _, s := range pr.Sites {
			edges, err := k.edgesAt(ctx, caller, s)
			if err != nil {
				return "reading edges: " + err.Error()
			}
			var cands, static []string
			unresolved := false
			for _, e := range edges {
				if e.Callee == callee {
					return fmt.Sprintf("the index has the edge (%s %s at %s) but get_callers did not list it", e.Coverage, e.Via, s)
				}
				name := e.CalleeName
				if sy, ok := k.syms[e.Callee]; ok {
					name = sy.QualifiedName
				}
				switch {
				case e.Coverage == graph.CoverageUnresolved:
					unresolved = true
				case e.Via == graph.ViaStatic || e.Via == "":
					static = append(static, name)
				default:
					cands = append(cands, string(e.Via)+" "+name)
				}
			}
			switch {
			case unresolved:
				notes = append(notes, fmt.Sprintf("%s: a dynamic call the index resolved to no candidate", s))
			case len(cands) > 0:
				notes = append(notes, fmt.Sprintf("%s: the candidates found (%s) leave it out", s, listSome(cands, 3)))
			case slices.Contains(static, p.Decls[pr.Callee].Name):
				notes = append(notes, fmt.Sprintf("%s: the call names another declaration of %s (a go:linkname stand-in, say), which the runtime runs as this one", s, p.Decls[pr.Callee].Name))
			case len(static) > 0:
				notes = append(notes, fmt.Sprintf("%s: only static calls recorded there (%s)", s, listSome(static, 3)))
			default:
				notes = append(notes, fmt.Sprintf("%s: no call recorded on that line", s))
			}
		}
		return strings.Join(notes, "; ")
	}
}

// unobservedRan fills ts.UnobservedRan and ts.UnobservedCandidates:
// the callers got lists that ran but were never seen calling the callee,
// by the best edge between the two in the index.
func unobservedRan(ctx context.Context, ts *toolScore, p *program, o *observation, got *callerSets, k *keys) error {
	observed := map[[2]int]bool{}
	for _, pr := range o.pairs {
		observed[[2]int{pr.Callee, pr.Caller}] = true
	}
	ts.UnobservedRan = map[string]int{}
	callees := make([]int, 0, len(got.callers))
	for c := range got.callers {
		callees = append(callees, c)
	}
	sort.Ints(callees)
	return harness.WithReader(ctx, k.db, func(r graph.Reader) error {
		for _, c := range callees {
			var todo []int
			for d := range got.callers[c] {
				if o.ran[d] && !observed[[2]int{c, d}] {
					todo = append(todo, d)
				}
			}
			if len(todo) == 0 {
				continue
			}
			sort.Ints(todo)
			edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: []string{k.byDecl[c]}})
			if err != nil {
				return err
			}
			for _, d := range todo {
				best := "no edge"
				for _, e := range edges {
					if e.Caller != k.byDecl[d] {
						continue
					}
					class := string(e.Coverage) + " " + string(e.Via)
					if e.Coverage == graph.CoverageExact || best == "no edge" {
						best = class
					}
				}
				ts.UnobservedRan[best]++
				if strings.HasPrefix(best, string(graph.CoverageCandidate)) {
					ts.UnobservedCandidates = append(ts.UnobservedCandidates, fmt.Sprintf("%s ← %s: %s", p.Decls[c], p.Decls[d], best))
				}
			}
		}
		return nil
	})
}

func listSome(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:n], ", ") + fmt.Sprintf(" and %d more", len(list)-n)
}
