package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// xrefs are the cross-reference records of one fixture repository, in the
// order they are written (deliberately not the order they are read back).
type xrefs struct {
	refs  []graph.Ref
	edges []graph.CallEdge
	impls []graph.Implements
}

// add writes x to w, in two batches each, to check that the Add methods
// can be called more than once.
func (x xrefs) add(ctx context.Context, w graph.SnapshotWriter) error {
	half := func(n int) int { return n / 2 }
	if err := w.AddRefs(ctx, x.refs[:half(len(x.refs))]); err != nil {
		return err
	}
	if err := w.AddRefs(ctx, x.refs[half(len(x.refs)):]); err != nil {
		return err
	}
	if err := w.AddCallEdges(ctx, x.edges[:half(len(x.edges))]); err != nil {
		return err
	}
	if err := w.AddCallEdges(ctx, x.edges[half(len(x.edges)):]); err != nil {
		return err
	}
	if err := w.AddImplements(ctx, x.impls[:half(len(x.impls))]); err != nil {
		return err
	}
	return w.AddImplements(ctx, x.impls[half(len(x.impls)):])
}

// Keys of the fixture's cross-references that are not symbols of the
// fixture: stores do not require a key to name a stored symbol.
var (
	handlerKey = graph.StableKey(graph.Identity{Language: "go", Repository: alpha,
		PackagePath: "example.com/alpha/server", QualifiedName: "Handler", Kind: graph.KindInterface})
	stringerKey = graph.StableKey(graph.Identity{Language: "go", Repository: alpha,
		PackagePath: "example.com/alpha/server", QualifiedName: "Stringer", Kind: graph.KindInterface})
	initKey = graph.StableKey(graph.Identity{Language: "go", Repository: alpha,
		PackagePath: "example.com/alpha/server", QualifiedName: "init", Kind: graph.KindFunc})
)

// fixtureXrefs returns the cross-references of the fixture, given the
// keys of its symbols by qualified name + "@" + repository.
func fixtureXrefs(keys map[string]string) map[string]xrefs {
	k := func(id string) string {
		if keys[id] == "" {
			panic("no fixture symbol " + id)
		}
		return keys[id]
	}
	nm, mux, mu := k("NewServeMux@alpha"), k("ServeMux@alpha"), k("ServeMux.mu@alpha")
	serve, serverServe, clientServe := k("serve@alpha"), k("Server.Serve@alpha"), k("Client.Serve@alpha")
	newServer, handle, testServer := k("newServer@alpha"), k("ServeMux.Handle@alpha"), k("TestServer@alpha")
	betaServe := k("Serve@beta")
	ref := func(target, path string, line, col, endCol int, encl string, kind graph.RefKind) graph.Ref {
		return graph.Ref{Target: target, Path: path, Line: line, Col: col, EndCol: endCol, Enclosing: encl, Kind: kind,
			TestOnly: strings.HasSuffix(path, "_test.go")}
	}
	edge := func(caller, callee, path string, line, col int, cov graph.Coverage, via graph.Via) graph.CallEdge {
		e := graph.CallEdge{Caller: caller, Callee: callee, Path: path, Line: line, Col: col, Coverage: cov, Via: via}
		if strings.Contains(callee, ".") { // a name outside the graph, not a key
			e.Callee, e.CalleeName = "", callee
		}
		return e
	}
	goEdge := edge(testServer, newServer, "server/server_test.go", 8, 5, graph.CoverageExact, graph.ViaStatic)
	goEdge.Go = true
	deferEdge := edge(newServer, handle, "server/server.go", 23, 8, graph.CoverageExact, graph.ViaStatic)
	deferEdge.Defer = true
	return map[string]xrefs{
		alpha: {
			refs: []graph.Ref{
				ref(nm, "server/server.go", 22, 9, 20, newServer, graph.RefCall),
				ref(mux, "server/server.go", 31, 2, 10, k("HTTPServer@alpha"), graph.RefEmbed),
				ref(nm, "client/client.go", 12, 5, 16, serve, graph.RefCall),
				ref(mu, "server/mux.go", 31, 3, 5, k("ServeMux.ServeHTTP@alpha"), graph.RefRead),
				ref(nm, "server/server_test.go", 7, 3, 14, testServer, graph.RefCall),
				ref(mux, "server/mux.go", 41, 20, 28, nm, graph.RefType),
				ref(nm, "server/mux.go", 50, 10, 21, "", graph.RefRead),
				ref(mux, "client/client.go", 4, 9, 17, "", graph.RefType),
				ref(mu, "server/mux.go", 21, 3, 5, handle, graph.RefWrite),
			},
			edges: []graph.CallEdge{
				edge(serverServe, "", "server/server.go", 12, 3, graph.CoverageUnresolved, graph.ViaFuncValue),
				edge(serve, serverServe, "client/client.go", 13, 2, graph.CoverageCandidate, graph.ViaInterface),
				edge(newServer, nm, "server/server.go", 22, 9, graph.CoverageExact, graph.ViaStatic),
				deferEdge,
				edge(serve, clientServe, "client/client.go", 13, 2, graph.CoverageCandidate, graph.ViaInterface),
				edge(initKey, nm, "server/mux.go", 50, 10, graph.CoveragePackageLevel, graph.ViaStatic),
				edge(serve, nm, "client/client.go", 12, 5, graph.CoverageExact, graph.ViaStatic),
				edge(serverServe, "net/http.ListenAndServe", "server/server.go", 11, 9, graph.CoverageExact, graph.ViaStatic),
				goEdge,
			},
			impls: []graph.Implements{
				{Type: mux, Interface: handlerKey, Pointer: true},
				{Type: k("Server@alpha"), Interface: handlerKey, Pointer: true},
				{Type: k("HTTPServer@alpha"), Interface: handlerKey},
				{Type: mux, Interface: stringerKey},
				{Type: mux, Interface: handlerKey}, // a repeat: ignored
			},
		},
		beta: {
			refs: []graph.Ref{
				ref(betaServe, "beta.go", 12, 2, 7, k("ServeMux@beta"), graph.RefCall),
				ref(nm, "beta.go", 5, 2, 13, betaServe, graph.RefCall), // a use of another repository's symbol
			},
			edges: []graph.CallEdge{
				edge(betaServe, "", "beta.go", 6, 2, graph.CoverageUnresolved, graph.ViaFuncValue),
				edge(betaServe, nm, "beta.go", 5, 2, graph.CoverageExact, graph.ViaStatic),
				edge(betaServe, "", "beta.go", 4, 2, graph.CoverageUnresolved, graph.ViaInterface),
			},
			impls: []graph.Implements{
				{Type: k("ServeMux@beta"), Interface: handlerKey},
			},
		},
	}
}

// refAt finds the fixture reference of repo at path:line:col.
func (fx *fixture) refAt(repo, pos string) graph.Ref {
	for _, r := range fx.xrefs[repo].refs {
		if fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Col) == pos {
			r.Repository = repo // readers say whose use it is
			return r
		}
	}
	panic("no fixture reference at " + pos)
}

// edgeAt finds the fixture edge of repo at path:line:col with the given
// callee key or name.
func (fx *fixture) edgeAt(repo, pos, callee string) graph.CallEdge {
	for _, e := range fx.xrefs[repo].edges {
		if fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Col) == pos && (e.Callee == callee || e.CalleeName == callee) {
			e.Repository = repo // readers say whose call site it is
			return e
		}
	}
	panic("no fixture edge at " + pos)
}

// fakeKeys returns n keys that name nothing, to make key lists longer
// than any one IN list of a store.
func fakeKeys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = graph.StableKey(graph.Identity{Language: "go", Repository: "nowhere", PackagePath: "p",
			QualifiedName: fmt.Sprint("F", i), Kind: graph.KindFunc})
	}
	return out
}

func testSymbolsByKeys(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	nm, betaServe := fx.symbols["NewServeMux@alpha"], fx.symbols["Serve@beta"]
	var all []string
	var allWant []graph.Symbol
	for _, sy := range fx.symbols {
		all = append(all, sy.Key)
		allWant = append(allWant, sy)
	}
	tests := []struct {
		name string
		keys []string
		want []graph.Symbol
	}{
		{"none", nil, nil},
		{"two repositories, duplicates and unknown keys", []string{nm.Key, betaServe.Key, strings.Repeat("A", 32),
			nm.Key}, []graph.Symbol{nm, betaServe}},
		{"more keys than one IN list", append(fakeKeys(1200), all...), allWant},
	}
	byKey := func(a, b graph.Symbol) int { return strings.Compare(a.Key, b.Key) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.SymbolsByKeys(ctx, tt.keys)
			if err != nil {
				t.Fatalf("SymbolsByKeys: %v", err)
			}
			slices.SortFunc(got, byKey)
			want := slices.SortedFunc(slices.Values(tt.want), byKey)
			if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
				t.Errorf("SymbolsByKeys\n got %v\nwant %v", ids(got), ids(want))
			}
			if qn, ok := r.Symbols.(graph.QualifiedNamer); ok {
				names, err := qn.QualifiedNames(ctx, tt.keys)
				if err != nil {
					t.Fatalf("QualifiedNames: %v", err)
				}
				wantNames := map[string]string{}
				for _, s := range want {
					wantNames[s.Key] = s.QualifiedName
				}
				if !reflect.DeepEqual(names, wantNames) {
					t.Errorf("QualifiedNames\n got %v\nwant %v", names, wantNames)
				}
			}
		})
	}
}

// refPositions renders references as path:line:col.
func refPositions(refs []graph.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Col)
	}
	return out
}

func testRefs(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	nm, mux := fx.symbols["NewServeMux@alpha"].Key, fx.symbols["ServeMux@alpha"].Key
	nmAll := []string{"beta.go:5:2", "client/client.go:12:5", "server/mux.go:50:10", "server/server.go:22:9"}
	both := []string{"beta.go:5:2", "client/client.go:4:9", "client/client.go:12:5", "server/mux.go:41:20",
		"server/mux.go:50:10", "server/server.go:22:9", "server/server.go:31:2"}
	tests := []struct {
		name  string
		q     graph.RefQuery
		want  []string // positions of the page
		total int
	}{
		{"no targets", graph.RefQuery{}, nil, 0},
		{"unknown target", graph.RefQuery{Targets: []string{strings.Repeat("A", 32)}}, nil, 0},
		{"one target across repositories", graph.RefQuery{Targets: []string{nm}}, nmAll, 4},
		{"with tests", graph.RefQuery{Targets: []string{nm}, IncludeTests: true},
			[]string{"beta.go:5:2", "client/client.go:12:5", "server/mux.go:50:10", "server/server.go:22:9",
				"server/server_test.go:7:3"}, 5},
		{"kind", graph.RefQuery{Targets: []string{nm}, Kinds: []graph.RefKind{graph.RefCall}},
			[]string{"beta.go:5:2", "client/client.go:12:5", "server/server.go:22:9"}, 3},
		{"kinds", graph.RefQuery{Targets: []string{mux}, Kinds: []graph.RefKind{graph.RefEmbed, graph.RefRead}},
			[]string{"server/server.go:31:2"}, 1},
		{"path prefix", graph.RefQuery{Targets: []string{nm}, PathPrefix: "server/"},
			[]string{"server/mux.go:50:10", "server/server.go:22:9"}, 2},
		{"path prefix is a string prefix", graph.RefQuery{Targets: []string{nm}, PathPrefix: "server/server",
			IncludeTests: true}, []string{"server/server.go:22:9", "server/server_test.go:7:3"}, 2},
		{"page", graph.RefQuery{Targets: []string{nm}, Offset: 1, Limit: 2}, nmAll[1:3], 4},
		{"last page", graph.RefQuery{Targets: []string{nm}, Offset: 3, Limit: 2}, nmAll[3:], 4},
		{"page ending at the last", graph.RefQuery{Targets: []string{nm}, Offset: 2, Limit: 2}, nmAll[2:], 4},
		{"first page of everything", graph.RefQuery{Targets: []string{nm}, Limit: 4}, nmAll, 4},
		{"past the end", graph.RefQuery{Targets: []string{nm}, Offset: 10, Limit: 2}, nil, 4},
		{"past the end filtered", graph.RefQuery{Targets: []string{nm}, Offset: 10, Kinds: []graph.RefKind{graph.RefRead}},
			nil, 1},
		{"two targets", graph.RefQuery{Targets: []string{mux, nm, mux}}, both, 7},
		{"more targets than one IN list", graph.RefQuery{Targets: append(fakeKeys(700), mux, nm)}, both, 7},
		{"more targets than one IN list, paged", graph.RefQuery{Targets: append(fakeKeys(700), mux, nm),
			Offset: 2, Limit: 3}, both[2:5], 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := r.Refs(ctx, tt.q)
			if err != nil {
				t.Fatalf("Refs: %v", err)
			}
			if !equalStrings(refPositions(got), tt.want) || total != tt.total {
				t.Errorf("Refs\n got %v (total %d)\nwant %v (total %d)", refPositions(got), total, tt.want, tt.total)
			}
		})
	}

	// Every field reads back as written.
	got, _, err := r.Refs(ctx, graph.RefQuery{Targets: []string{nm, mux, fx.symbols["ServeMux.mu@alpha"].Key},
		IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range got {
		repo := alpha
		if ref.Path == "beta.go" {
			repo = beta
		}
		if want := fx.refAt(repo, fmt.Sprintf("%s:%d:%d", ref.Path, ref.Line, ref.Col)); ref != want {
			t.Errorf("Refs: got %+v, wrote %+v", ref, want)
		}
	}
	if len(got) != 10 {
		t.Errorf("Refs of three targets with tests: %d, want 10", len(got))
	}
}

func testRefsInvalid(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	for _, targets := range [][]string{nil, {fx.symbols["NewServeMux@alpha"].Key}} {
		q := graph.RefQuery{Targets: targets, Kinds: []graph.RefKind{graph.RefCall, "borrow"}}
		if _, _, err := r.Refs(ctx, q); graph.CodeOf(err) != graph.CodeInvalidArgument {
			t.Errorf("Refs(%+v) err = %v, want INVALID_ARGUMENT", q, err)
		}
	}
}

// edgeIDs renders edges as caller>callee@path:line:col, with the fixture's
// qualified names in place of keys.
func edgeIDs(fx *fixture, edges []graph.CallEdge) []string {
	names := map[string]string{initKey: "init"}
	for id, sy := range fx.symbols {
		names[sy.Key] = strings.TrimSuffix(strings.TrimSuffix(id, "@"+alpha), "@"+beta)
	}
	out := make([]string, len(edges))
	for i, e := range edges {
		callee := cmp.Or(names[e.Callee], e.CalleeName, "?")
		out[i] = fmt.Sprintf("%s>%s@%s:%d:%d", names[e.Caller], callee, e.Path, e.Line, e.Col)
	}
	return out
}

func testCallEdges(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	key := func(id string) string { return fx.symbols[id].Key }
	nm, serve, serverServe := key("NewServeMux@alpha"), key("serve@alpha"), key("Server.Serve@alpha")
	serveOut := []string{"serve>NewServeMux@client/client.go:12:5", "serve>Server.Serve@client/client.go:13:2",
		"serve>Client.Serve@client/client.go:13:2"}
	serverServeOut := []string{"Server.Serve>net/http.ListenAndServe@server/server.go:11:9",
		"Server.Serve>?@server/server.go:12:3"}
	twoCallers := append(slices.Clone(serveOut), serverServeOut...)
	if serverServe < serve {
		twoCallers = append(slices.Clone(serverServeOut), serveOut...)
	}
	tests := []struct {
		name string
		q    graph.EdgeQuery
		want []string
	}{
		{"neither list", graph.EdgeQuery{}, nil},
		{"unknown key", graph.EdgeQuery{Callers: []string{strings.Repeat("A", 32)}}, nil},
		{"callees across repositories", graph.EdgeQuery{Callees: []string{nm}},
			[]string{"Serve>NewServeMux@beta.go:5:2", "serve>NewServeMux@client/client.go:12:5",
				"init>NewServeMux@server/mux.go:50:10", "newServer>NewServeMux@server/server.go:22:9"}},
		{"callees by coverage", graph.EdgeQuery{Callees: []string{nm}, Coverage: []graph.Coverage{graph.CoverageExact}},
			[]string{"Serve>NewServeMux@beta.go:5:2", "serve>NewServeMux@client/client.go:12:5",
				"newServer>NewServeMux@server/server.go:22:9"}},
		{"callees by coverages", graph.EdgeQuery{Callees: []string{nm, serverServe},
			Coverage: []graph.Coverage{graph.CoveragePackageLevel, graph.CoverageCandidate}},
			sortedBy(map[string][]string{
				nm:          {"init>NewServeMux@server/mux.go:50:10"},
				serverServe: {"serve>Server.Serve@client/client.go:13:2"}})},
		{"a callee name is not a key", graph.EdgeQuery{Callees: []string{"net/http.ListenAndServe"}}, nil},
		{"callers, same site in write order", graph.EdgeQuery{Callers: []string{serve}}, serveOut},
		{"callers with external and unresolved callees", graph.EdgeQuery{Callers: []string{serverServe}}, serverServeOut},
		{"callers by coverage", graph.EdgeQuery{Callers: []string{serve},
			Coverage: []graph.Coverage{graph.CoverageCandidate}}, serveOut[1:]},
		{"two callers, by key", graph.EdgeQuery{Callers: []string{serverServe, serve}}, twoCallers},
		{"more callers than one IN list", graph.EdgeQuery{Callers: append(fakeKeys(700), serverServe, serve)},
			twoCallers},
		{"beta callers", graph.EdgeQuery{Callers: []string{key("Serve@beta")}},
			[]string{"Serve>?@beta.go:4:2", "Serve>NewServeMux@beta.go:5:2", "Serve>?@beta.go:6:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.CallEdges(ctx, tt.q)
			if err != nil {
				t.Fatalf("CallEdges: %v", err)
			}
			if !equalStrings(edgeIDs(fx, got), tt.want) {
				t.Errorf("CallEdges\n got %v\nwant %v", edgeIDs(fx, got), tt.want)
			}
		})
	}

	// Every field reads back as written, go and defer included.
	for _, c := range []struct {
		q           graph.EdgeQuery
		pos, callee string
	}{
		{graph.EdgeQuery{Callees: []string{key("newServer@alpha")}}, "server/server_test.go:8:5", key("newServer@alpha")},
		{graph.EdgeQuery{Callers: []string{key("newServer@alpha")}, Coverage: []graph.Coverage{graph.CoverageExact}},
			"server/server.go:22:9", nm},
		{graph.EdgeQuery{Callees: []string{key("ServeMux.Handle@alpha")}}, "server/server.go:23:8",
			key("ServeMux.Handle@alpha")},
		{graph.EdgeQuery{Callers: []string{serverServe}}, "server/server.go:11:9", "net/http.ListenAndServe"},
		{graph.EdgeQuery{Callers: []string{serverServe}}, "server/server.go:12:3", ""},
	} {
		got, err := r.CallEdges(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		want := fx.edgeAt(alpha, c.pos, c.callee)
		if !slices.Contains(got, want) {
			t.Errorf("CallEdges(%+v) = %+v, want it to hold %+v", c.q, got, want)
		}
	}
}

// sortedBy concatenates the lists in the order of their keys.
func sortedBy(m map[string][]string) []string {
	var out []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, m[k]...)
	}
	return out
}

func testCallEdgesInvalid(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	k := fx.symbols["serve@alpha"].Key
	for _, q := range []graph.EdgeQuery{
		{Callers: []string{k}, Callees: []string{k}},
		{Callers: []string{k}, Coverage: []graph.Coverage{"likely"}},
	} {
		if _, err := r.CallEdges(ctx, q); graph.CodeOf(err) != graph.CodeInvalidArgument {
			t.Errorf("CallEdges(%+v) err = %v, want INVALID_ARGUMENT", q, err)
		}
	}
}

func testUnresolvedCalls(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := read(t, s)
	for repo, want := range map[string]int{alpha: 1, beta: 2} {
		if n, err := r.UnresolvedCalls(ctx, repo); err != nil || n != want {
			t.Errorf("UnresolvedCalls(%s) = %d, %v; want %d", repo, n, err, want)
		}
	}
	if _, err := r.UnresolvedCalls(ctx, "nope"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("UnresolvedCalls(nope) err = %v, want one wrapping graph.ErrNotFound", err)
	}
}

func testImplementations(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	key := func(id string) string { return fx.symbols[id].Key }
	mux := key("ServeMux@alpha")
	byType := func(a, b graph.Implements) int { return strings.Compare(a.Type, b.Type) }
	byIface := func(a, b graph.Implements) int { return strings.Compare(a.Interface, b.Interface) }
	tests := []struct {
		name        string
		key         string
		byInterface bool
		want        []graph.Implements
	}{
		{"types of an interface across repositories, a repeat ignored", handlerKey, true,
			slices.SortedFunc(slices.Values([]graph.Implements{
				{Type: mux, Interface: handlerKey, Pointer: true},
				{Type: key("Server@alpha"), Interface: handlerKey, Pointer: true},
				{Type: key("HTTPServer@alpha"), Interface: handlerKey},
				{Type: key("ServeMux@beta"), Interface: handlerKey},
			}), byType)},
		{"interfaces of a type", mux, false, slices.SortedFunc(slices.Values([]graph.Implements{
			{Type: mux, Interface: handlerKey, Pointer: true},
			{Type: mux, Interface: stringerKey},
		}), byIface)},
		{"an interface is no type", handlerKey, false, nil},
		{"a type is no interface", mux, true, nil},
		{"unknown key", strings.Repeat("A", 32), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Implementations(ctx, tt.key, tt.byInterface)
			if err != nil {
				t.Fatalf("Implementations: %v", err)
			}
			if len(got) != len(tt.want) || len(got) > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Implementations\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// xrefView is what a reader shows of the cross-references that
// testXrefVisibility writes.
type xrefView struct {
	refs, edges, impls, unresolved int
	err                            error // of UnresolvedCalls
}

func viewXrefs(t *testing.T, r graph.Reader, keys ...string) xrefView {
	t.Helper()
	ctx := context.Background()
	var v xrefView
	refs, total, err := r.Refs(ctx, graph.RefQuery{Targets: keys})
	if err != nil || total != len(refs) {
		t.Fatalf("Refs = %d of %d, %v", len(refs), total, err)
	}
	v.refs = total
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: keys})
	if err != nil {
		t.Fatalf("CallEdges: %v", err)
	}
	v.edges = len(edges)
	for _, k := range keys {
		impls, err := r.Implementations(ctx, k, false)
		if err != nil {
			t.Fatalf("Implementations: %v", err)
		}
		v.impls += len(impls)
	}
	v.unresolved, v.err = r.UnresolvedCalls(ctx, "xv")
	return v
}

// writeXrefs adds one reference to, one call out of and one implementation
// by each of the keys, and one unresolved call.
func writeXrefs(t *testing.T, w graph.SnapshotWriter, keys ...string) {
	t.Helper()
	ctx := context.Background()
	for i, k := range keys {
		if err := w.AddRefs(ctx, []graph.Ref{{Target: k, Path: "p.go", Line: i + 1, Col: 1, EndCol: 3,
			Kind: graph.RefCall}}); err != nil {
			t.Fatalf("AddRefs: %v", err)
		}
		if err := w.AddCallEdges(ctx, []graph.CallEdge{{Caller: k, CalleeName: "fmt.Println", Path: "p.go",
			Line: i + 1, Col: 1, Coverage: graph.CoverageExact, Via: graph.ViaStatic}}); err != nil {
			t.Fatalf("AddCallEdges: %v", err)
		}
		if err := w.AddImplements(ctx, []graph.Implements{{Type: k, Interface: handlerKey}}); err != nil {
			t.Fatalf("AddImplements: %v", err)
		}
	}
	if err := w.AddCallEdges(ctx, []graph.CallEdge{{Caller: keys[0], Path: "p.go", Line: 99, Col: 1,
		Coverage: graph.CoverageUnresolved, Via: graph.ViaInterface}}); err != nil {
		t.Fatalf("AddCallEdges: %v", err)
	}
}

func testXrefVisibility(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "xv")
	key := func(name string) string {
		return sym("xv", "example.com/xv", "p", "p.go", name, graph.KindFunc, 0).Key
	}
	one, two, three := key("One"), key("Two"), key("Three")
	nothing := xrefView{err: graph.ErrNotFound}
	check := func(name string, r graph.Reader, want xrefView, keys ...string) {
		t.Helper()
		got := viewXrefs(t, r, keys...)
		if got.refs != want.refs || got.edges != want.edges || got.impls != want.impls ||
			got.unresolved != want.unresolved || !errors.Is(got.err, want.err) || (got.err == nil) != (want.err == nil) {
			t.Errorf("%s: sees %+v, want %+v", name, got, want)
		}
	}

	w := begin(t, s, repo)
	defer w.Abort()
	addNames(t, w, repo, "One", "Two")
	writeXrefs(t, w, one, two)
	during := read(t, s)
	check("reader opened before Publish", during, nothing, one, two)
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	check("reader opened before Publish, after it", during, nothing, one, two)
	first := xrefView{refs: 2, edges: 3, impls: 2, unresolved: 1}
	v1 := read(t, s)
	check("after Publish", v1, first, one, two)

	// A second snapshot replaces the first; the pinned reader keeps it.
	w = begin(t, s, repo)
	defer w.Abort()
	addNames(t, w, repo, "Three")
	writeXrefs(t, w, three)
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	second := xrefView{refs: 1, edges: 2, impls: 1, unresolved: 1}
	v2 := read(t, s)
	check("pinned reader after second Publish", v1, first, one, two)
	check("after second Publish, old keys", v2, xrefView{unresolved: 1}, one, two)
	check("after second Publish", v2, second, three)

	// An aborted snapshot leaves nothing behind.
	w = begin(t, s, repo)
	addNames(t, w, repo, "One")
	writeXrefs(t, w, one, three, three)
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	v3 := read(t, s)
	check("after Abort", v3, second, three)
	check("after Abort, old keys", v3, xrefView{unresolved: 1}, one, two)
}

func testXrefWriteErrors(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "xe")
	k := strings.Repeat("K", 32)
	calls := map[string]func(w graph.SnapshotWriter) error{
		"ref kind": func(w graph.SnapshotWriter) error {
			return w.AddRefs(ctx, []graph.Ref{{Target: k, Path: "p.go", Line: 1, Col: 1, Kind: "borrow"}})
		},
		"edge coverage": func(w graph.SnapshotWriter) error {
			return w.AddCallEdges(ctx, []graph.CallEdge{{Caller: k, Path: "p.go", Line: 1, Col: 1, Coverage: "likely",
				Via: graph.ViaStatic}})
		},
		"edge via": func(w graph.SnapshotWriter) error {
			return w.AddCallEdges(ctx, []graph.CallEdge{{Caller: k, Path: "p.go", Line: 1, Col: 1,
				Coverage: graph.CoverageExact, Via: "teleport"}})
		},
	}
	for name, call := range calls {
		w := begin(t, s, repo)
		if err := call(w); err == nil {
			t.Errorf("%s: unknown value accepted", name)
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
	}
	// Empty batches and an empty Via are fine.
	w := begin(t, s, repo)
	defer w.Abort()
	if err := errors.Join(w.AddRefs(ctx, nil), w.AddCallEdges(ctx, nil), w.AddImplements(ctx, nil),
		w.AddCallEdges(ctx, []graph.CallEdge{{Caller: k, Path: "p.go", Line: 1, Col: 1,
			Coverage: graph.CoverageExact}})); err != nil {
		t.Fatalf("empty batches: %v", err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	edges, err := read(t, s).CallEdges(ctx, graph.EdgeQuery{Callers: []string{k}})
	if err != nil || len(edges) != 1 || edges[0].Via != "" {
		t.Errorf("CallEdges of an edge without Via = %+v, %v", edges, err)
	}
}
