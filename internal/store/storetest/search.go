package storetest

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
)

// testSearchText holds SearchText to its contract: identifiers match by
// their words, word forms are folded, doc, body text (its identifiers
// split too) and paths are
// searched, a name match outranks a body match, filters and the limit
// apply, and only the pinned current snapshots are searched.
func testSearchText(t *testing.T, s graph.Store) {
	ctx := context.Background()
	gamma := ensure(t, s, "gamma")
	delta := ensure(t, s, "delta")
	const pkg = "example.com/gamma/config"
	parse := sym("gamma", pkg, "config", "config/load.go", "ParseConfigFile", graph.KindFunc, 10, func(s *graph.Symbol) {
		s.Doc = "ParseConfigFile reads the settings from disk."
		s.Text = "open %s: no such file\n"
	})
	retry := sym("gamma", pkg, "config", "config/net.go", "sendAgain", graph.KindFunc, 30, func(s *graph.Symbol) {
		s.Doc = "sendAgain retries a request after a failure."
		s.Text = "too many attempts\nSleep MaxBytesReader "
	})
	server := sym("gamma", pkg, "config", "config/net.go", "Server", graph.KindType, 50)
	start := sym("gamma", pkg, "config", "config/net.go", "Server.Start", graph.KindMethod, 60, child(server, "*Server"))
	startFn := sym("gamma", pkg, "config", "config/net.go", "StartAll", graph.KindFunc, 70)
	tokenFn := sym("gamma", pkg, "config", "internal/auth/token.go", "Mint", graph.KindFunc, 5)
	mentions := sym("gamma", pkg, "config", "config/other.go", "Helper", graph.KindFunc, 5, func(s *graph.Symbol) {
		s.Doc = "Helper is used by the parser."
		s.Text = "config\n"
	})
	write := func(repo graph.Repository, pkgPath string, syms ...graph.Symbol) {
		t.Helper()
		w := begin(t, s, repo)
		defer w.Abort()
		files := map[string]bool{}
		var fs []graph.File
		for _, sy := range syms {
			if !files[sy.Path] {
				files[sy.Path] = true
				fs = append(fs, graph.File{Path: sy.Path, Package: pkgPath})
			}
		}
		if err := w.AddPackage(ctx, graph.Package{Path: pkgPath, Name: "config", ModulePath: pkgPath, Dir: "config"}, fs, syms, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(gamma, pkg, parse, retry, server, start, startFn, tokenFn, mentions)
	other := sym("delta", "example.com/delta", "delta", "d.go", "ParseConfig", graph.KindFunc, 3)
	write(delta, "example.com/delta", other)

	search := func(q graph.TextQuery) []string {
		t.Helper()
		r := read(t, s)
		defer r.Close()
		hits, err := r.SearchText(ctx, q)
		if err != nil {
			t.Fatalf("SearchText(%+v): %v", q, err)
		}
		var out []string
		for i, h := range hits {
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("SearchText(%+v): hits not ordered by score: %v after %v", q, h.Score, hits[i-1].Score)
			}
			out = append(out, h.Symbol.QualifiedName+"@"+h.Symbol.Repository)
		}
		return out
	}
	first := func(name string, q graph.TextQuery, want string) {
		t.Helper()
		got := search(q)
		if len(got) == 0 || got[0] != want {
			t.Errorf("%s: SearchText(%v) = %v, want %s first", name, q.Words, got, want)
		}
	}
	has := func(got []string, want string) bool {
		for _, g := range got {
			if g == want {
				return true
			}
		}
		return false
	}
	first("identifier words", graph.TextQuery{Words: []string{"parse", "config", "file"}, Repositories: []string{"gamma"}}, "ParseConfigFile@gamma")
	first("name outranks body", graph.TextQuery{Words: []string{"config"}, Repositories: []string{"gamma"}}, "ParseConfigFile@gamma")
	first("word forms folded", graph.TextQuery{Words: []string{"retry"}}, "sendAgain@gamma")
	first("body text", graph.TextQuery{Words: []string{"attempts"}}, "sendAgain@gamma")
	// The names of other packages a body uses (see index.bodyText), split
	// as identifiers are.
	first("body names", graph.TextQuery{Words: []string{"sleep"}}, "sendAgain@gamma")
	first("body name words", graph.TextQuery{Words: []string{"bytes", "reader"}}, "sendAgain@gamma")
	first("doc", graph.TextQuery{Words: []string{"settings"}}, "ParseConfigFile@gamma")
	first("path", graph.TextQuery{Words: []string{"auth"}}, "Mint@gamma")
	first("joined identifier", graph.TextQuery{Words: []string{"parseconfigfile"}}, "ParseConfigFile@gamma")

	// Both stores score alike: BM25 over the columns the writer stores
	// (sqlbase.SearchColumns), as textindex computes it.
	index := func(syms ...graph.Symbol) *textindex.Index {
		bd := textindex.NewBuilder()
		for i := range syms {
			name, doc, sig, body, path := sqlbase.SearchColumns(&syms[i])
			bd.Add(textindex.Row{ID: int64(i), Kind: syms[i].Kind, Path: syms[i].Path, Line: syms[i].StartLine,
				Fields: [textindex.Fields]string{name, doc, sig, body, path}})
		}
		return bd.Index()
	}
	words := []string{"parse", "config", "server", "retry"}
	want := textindex.Search([]*textindex.Index{index(other), index(parse, retry, server, start, startFn, tokenFn, mentions)}, words, nil, 10)
	r := read(t, s)
	hits, err := r.SearchText(ctx, graph.TextQuery{Words: words})
	r.Close()
	if err != nil || len(hits) != len(want) {
		t.Fatalf("SearchText(%q) = %d hits, %v; textindex gives %d", words, len(hits), err, len(want))
	}
	for i, h := range hits {
		if wantRepo := []string{"delta", "gamma"}[want[i].Index]; h.Symbol.Repository != wantRepo || h.Score != want[i].Score {
			t.Errorf("SearchText(%q) hit %d: %s@%s scoring %v; textindex gives a row of %s scoring %v",
				words, i, h.Symbol.QualifiedName, h.Symbol.Repository, h.Score, wantRepo, want[i].Score)
		}
	}

	if got := search(graph.TextQuery{Words: []string{"start"}, Kinds: []graph.Kind{graph.KindMethod}}); len(got) != 1 || got[0] != "Server.Start@gamma" {
		t.Errorf("kind filter: got %v, want only Server.Start@gamma", got)
	}
	if got := search(graph.TextQuery{Words: []string{"parse", "config"}, Repositories: []string{"delta"}}); len(got) != 1 || got[0] != "ParseConfig@delta" {
		t.Errorf("repository filter: got %v, want only ParseConfig@delta", got)
	}
	if got := search(graph.TextQuery{Words: []string{"parse", "config"}}); !has(got, "ParseConfig@delta") || !has(got, "ParseConfigFile@gamma") {
		t.Errorf("all repositories: got %v, want both ParseConfig symbols", got)
	}
	if got := search(graph.TextQuery{Words: []string{"config"}, Limit: 1}); len(got) != 1 {
		t.Errorf("limit 1: got %d hits", len(got))
	}
	if got := search(graph.TextQuery{Words: []string{"zebra"}}); len(got) != 0 {
		t.Errorf("no match: got %v", got)
	}
	if got := search(graph.TextQuery{}); len(got) != 0 {
		t.Errorf("no words: got %v", got)
	}
	// Words with FTS syntax in them are words, not operators.
	if got := search(graph.TextQuery{Words: []string{`"parse`, "config*", "OR", "NEAR("}}); !has(got, "ParseConfigFile@gamma") {
		t.Errorf("syntax characters: got %v", got)
	}

	// A reader pinned before a new snapshot keeps searching the old one;
	// a new reader searches only the new one.
	old := read(t, s)
	defer old.Close()
	write(gamma, pkg, retry)
	if got := search(graph.TextQuery{Words: []string{"settings"}, Repositories: []string{"gamma"}}); len(got) != 0 {
		t.Errorf("after republishing without ParseConfigFile: got %v", got)
	}
	hits, err = old.SearchText(ctx, graph.TextQuery{Words: []string{"settings"}})
	if err != nil || len(hits) != 1 || hits[0].Symbol.QualifiedName != "ParseConfigFile" {
		t.Errorf("pinned reader after republish: %v, %v; want ParseConfigFile", hits, err)
	}
}
