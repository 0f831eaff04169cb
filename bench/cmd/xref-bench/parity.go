package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// parityQuota is how many symbols of each kind part (a) picks: 46 in all,
// every kind represented, spread evenly over the root module's files.
var parityQuota = map[string]int{
	"func": 8, "method": 8, "type": 6, "interface": 4, "field": 5,
	"var": 4, "const": 4, "interface_method": 4, "package": 3,
}

// parityResult is part (a).
type parityResult struct {
	Symbols   []benchSymbol  `json:"symbols"`
	Kinds     map[string]int `json:"kinds"`
	Refs      parityCount    `json:"references"`
	Impls     parityCount    `json:"implementations"`
	GoplsLoad time.Duration  `json:"gopls_first_call_ns"`
}

// parityCount counts the comparisons of one tool: queries whose answers
// are the same set, positions gopls and sextant report, and every
// difference ("+" only gopls, "-" only sextant).
type parityCount struct {
	Queries      int      `json:"queries"`
	Matched      int      `json:"queries_matched"`
	Gopls        int      `json:"gopls_positions"`
	Sextant      int      `json:"sextant_positions"`
	Common       int      `json:"common_positions"`
	GoplsOutside int      `json:"gopls_outside_root"`
	Differences  []string `json:"differences"`
	// Explained are the differences goplsKnownDifferences lists, each
	// with its reason; a query whose differences are all explained
	// counts as matched.
	Explained []string `json:"explained_differences,omitempty"`
}

// goplsKnownDifferences lists the positions of golang.org/x/tools@v0.52.0
// where gopls v0.23.0 answers differently from find_references, each
// with the reason gopls's answer is not the one to match. A position is
// spelled "QualifiedName path:line:column"; the sign is in the value's
// first character ("+" only gopls, "-" only sextant).
var goplsKnownDifferences = map[string]string{
	// The four uses of netPiper.Close through io.Closer and
	// io.ReadWriteCloser in its own package that were listed here are
	// now found: see graph.Ref.Implicit.
}

func parity(ctx context.Context, gopls, db, corpus string) (*parityResult, error) {
	all, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return nil, err
	}
	module := harness.RootModule(corpus)
	byKind := map[string][]benchSymbol{}
	for _, s := range all {
		if eligible(s, module) {
			byKind[string(s.Kind)] = append(byKind[string(s.Kind)], toBench(s))
		}
	}
	var picked []benchSymbol
	kinds := sortedKeys(parityQuota)
	for _, kind := range kinds {
		cands := byKind[kind]
		sortSymbols(cands)
		n := min(parityQuota[kind], len(cands))
		for i := range n {
			picked = append(picked, cands[i*len(cands)/n])
		}
	}
	sortSymbols(picked)
	picked = locate(corpus, picked)
	res := &parityResult{Symbols: picked, Kinds: map[string]int{}}
	for _, s := range picked {
		res.Kinds[s.Kind]++
	}
	logf("parity: %d symbols %v", len(picked), res.Kinds)

	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	svc, err := query.New(st, []string{corpus}, nil)
	if err != nil {
		return nil, err
	}
	logf("parity: starting gopls in %s", corpus)
	lc, err := lsptest.Start(gopls, corpus, "serve")
	if err != nil {
		return nil, err
	}
	defer lc.Close()
	watchdog := time.AfterFunc(15*time.Minute, func() { _ = lc.Cmd.Process.Kill() })
	defer watchdog.Stop()
	files := newFileCache(corpus)

	for i, s := range picked {
		uri := lsptest.FileURI(filepath.Join(corpus, filepath.FromSlash(s.Path)))
		pos := lsptest.Position{Line: s.Line - 1, Character: lsptest.UTF16Column(files.line(s.Path, s.Line), s.Col)}
		start := time.Now()
		var locs []lsptest.Location
		if err := lc.Call("textDocument/references", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     pos,
			"context":      map[string]any{"includeDeclaration": false},
		}, &locs); err != nil {
			return nil, fmt.Errorf("gopls references of %s (%s:%d:%d): %v", s.Qualified, s.Path, s.Line, s.Col, err)
		}
		if i == 0 {
			res.GoplsLoad = time.Since(start)
		}
		want := map[string]bool{}
		for _, l := range locs {
			if p, ok := files.position(l); ok {
				want[p] = true
			} else {
				res.Refs.GoplsOutside++
			}
		}
		got := map[string]bool{}
		refs, err := sextantRefs(ctx, svc, s.Key)
		if err != nil {
			return nil, fmt.Errorf("find_references %s: %v", s.Qualified, err)
		}
		for _, p := range refs {
			got[p] = true
		}
		label := fmt.Sprintf("find_references %s (%s %s:%d:%d)", s.Qualified, s.Kind, s.Path, s.Line, s.Col)
		res.Refs.add(label, s.Qualified, want, got, files)

		if s.Kind != "interface" && s.Kind != "interface_method" {
			continue
		}
		var impls []lsptest.Location
		if err := lc.Call("textDocument/implementation", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     pos,
		}, &impls); err != nil {
			return nil, fmt.Errorf("gopls implementation of %s: %v", s.Qualified, err)
		}
		wantImpl := map[string]bool{}
		for _, l := range impls {
			// Only what the index can hold: declarations under the root.
			if p, ok := files.position(l); ok {
				wantImpl[p[:strings.LastIndex(p, ":")]] = true
			} else {
				res.Impls.GoplsOutside++
			}
		}
		gotImpl := map[string]bool{}
		rows, err := sextantImpls(ctx, svc, s.Key)
		if err != nil {
			return nil, fmt.Errorf("find_implementations %s: %v", s.Qualified, err)
		}
		for _, p := range rows {
			gotImpl[p] = true
		}
		res.Impls.add(fmt.Sprintf("find_implementations %s (%s %s:%d)", s.Qualified, s.Kind, s.Path, s.Line), "", wantImpl, gotImpl, files)
	}
	logf("parity: references %d/%d queries identical (%d gopls positions, %d common, %d only sextant's); implementations %d/%d",
		res.Refs.Matched, res.Refs.Queries, res.Refs.Gopls, res.Refs.Common, res.Refs.Sextant-res.Refs.Common, res.Impls.Matched, res.Impls.Queries)
	return res, nil
}

// add compares one query's answers. qualified names the symbol for
// goplsKnownDifferences ("" for none).
func (c *parityCount) add(label, qualified string, want, got map[string]bool, files *fileCache) {
	c.Queries++
	c.Gopls += len(want)
	c.Sextant += len(got)
	same := true
	differ := func(sign, p, who string) {
		if why, ok := goplsKnownDifferences[qualified+" "+p]; ok && qualified != "" && strings.HasPrefix(why, sign) {
			c.Explained = append(c.Explained, fmt.Sprintf("%s: %s%s (%s)  %s: %s", label, sign, p, who, files.text(p), why[1:]))
			return
		}
		same = false
		c.Differences = append(c.Differences, fmt.Sprintf("%s: %s%s (%s)  %s", label, sign, p, who, files.text(p)))
	}
	for _, p := range sortedKeys(want) {
		if got[p] {
			c.Common++
			continue
		}
		differ("+", p, "only gopls")
	}
	for _, p := range sortedKeys(got) {
		if !want[p] {
			differ("-", p, "only sextant")
		}
	}
	if same {
		c.Matched++
	}
}

// sextantRefs pages through find_references of key, in-process, and
// returns the uses as "path:line:column".
func sextantRefs(ctx context.Context, svc *query.Service, key string) ([]string, error) {
	in := query.FindReferencesInput{SymbolID: query.SymbolID{StableKey: key}, Limit: 500}
	var out []string
	for {
		page, err := query.FindReferences(ctx, svc, in, nil)
		if err != nil {
			return nil, err
		}
		for _, f := range page.Results {
			for _, r := range f.References {
				out = append(out, fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column))
			}
		}
		if page.NextCursor == nil {
			return out, nil
		}
		in.Cursor = *page.NextCursor
	}
}

// sextantImpls pages through find_implementations of key, in-process, and
// returns the results as "path:line".
func sextantImpls(ctx context.Context, svc *query.Service, key string) ([]string, error) {
	in := query.FindImplementationsInput{SymbolSelector: query.SymbolSelector{SymbolID: query.SymbolID{StableKey: key}}, Limit: 500}
	var out []string
	for {
		page, err := query.FindImplementations(ctx, svc, in, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Results {
			out = append(out, fmt.Sprintf("%s:%d", r.Path, r.Line))
		}
		if page.NextCursor == nil {
			return out, nil
		}
		in.Cursor = *page.NextCursor
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
