package callwalk

import (
	"context"
	"maps"
	"slices"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// callerSpots: callers are missed when a function can be called without
// naming it (through a function value, reflection or an interface the
// graph could not resolve), from code outside the graph, or by the
// runtime, and where packages did not type-check.
func (w *walker) callerSpots(ctx context.Context, c *blind.Spots, facts *session.Facts) error {
	c.AddTypeErrors(facts, "calls")
	var dynamic, outside, runtime []string
	// Methods can always be called dynamically; only for plain
	// functions does it matter whether their value is taken somewhere.
	var funcs []string
	for _, s := range w.expanded {
		if s.Kind == graph.KindFunc {
			funcs = append(funcs, s.Key)
		}
	}
	taken := map[string]bool{} // functions whose value is taken somewhere
	if len(funcs) > 0 {
		if refs, _, err := w.v.Reader().Refs(ctx, graph.RefQuery{Targets: funcs, Kinds: []graph.RefKind{graph.RefRead}, IncludeTests: true}); err == nil {
			for _, r := range refs {
				taken[r.Target] = true
			}
		}
	}
	for _, s := range w.expanded {
		if s.Kind != graph.KindFunc || taken[s.Key] {
			dynamic = append(dynamic, s.QualifiedName)
		}
		if blind.VisibleOutside(s) || (s.Kind != graph.KindFunc && isExportedName(s.Name)) {
			outside = append(outside, s.QualifiedName)
		}
		if why := blind.RuntimeEntry(s); why != "" {
			runtime = append(runtime, why)
		}
	}
	if facts.Unresolved > 0 && len(dynamic) > 0 {
		c.Add(blind.Unresolved, "%d dynamic call site(s) in %s have no resolved callee and may call %s, which can be called as a value or method",
			facts.Unresolved, w.root.Repository, blind.ListSome(dynamic, 3))
	}
	var reflectors map[string]bool
	if len(dynamic) > 0 {
		var err error
		if reflectors, err = facts.Reflectors(ctx, func(ctx context.Context) (map[string]bool, error) {
			return blind.FindReflectors(ctx, w.v, w.root.Repository)
		}); err != nil {
			return err
		}
	}
	if len(reflectors) > 0 {
		c.Add(blind.Reflection, "%s call(s) through reflection (reflect.Value.Call, Method, MethodByName), which may reach %s",
			blind.ListSome(w.names(ctx, slices.Sorted(maps.Keys(reflectors))), 3), blind.ListSome(dynamic, 3))
	}
	if len(outside) > 0 {
		c.Add(blind.Outside, "code outside the indexed repositories may call %s: exported from an importable package, or a method an outside interface can reach", blind.ListSome(outside, 3))
	}
	if len(runtime) > 0 {
		c.Add(blind.Runtime, "%s", blind.ListSome(runtime, 2))
	}
	return nil
}

// calleeSpots: callees are missed behind dynamic calls with no candidate,
// reflection, callees outside the graph (not followed further) and
// packages that did not type-check.
func (w *walker) calleeSpots(c *blind.Spots, facts *session.Facts) {
	var errPkgs, reflecting []string
	bad := map[string]bool{}
	for _, p := range facts.ErrPackages {
		bad[p] = true
	}
	for _, s := range w.expanded {
		if bad[s.PackagePath] {
			errPkgs = append(errPkgs, s.PackagePath)
		}
		if w.reflecting[s.Key] {
			reflecting = append(reflecting, s.QualifiedName)
		}
	}
	if len(errPkgs) > 0 {
		c.Add(blind.TypeErrors, "package(s) %s failed to type-check, so calls in them may be missing", blind.ListSome(graph.Dedupe(errPkgs), 3))
	}
	if w.unresolved > 0 {
		c.Add(blind.Unresolved, "%d dynamic call site(s) reached have no resolved callee (listed as rows without a key)", w.unresolved)
	}
	if len(reflecting) > 0 {
		c.Add(blind.Reflection, "%s call(s) through reflection, whose callees are unknown", blind.ListSome(reflecting, 3))
	}
	if w.deepExt {
		c.Add(blind.External, "callees outside the graph (%s) are listed by name but their own callees are not followed", blind.ListSome(slices.Sorted(maps.Keys(w.externals)), 3))
	}
	if w.root.Kind == graph.KindInterfaceMethod {
		c.Add(blind.Outside, "%s has no body: its callees are the methods implementing it, and types outside the index may implement it too", w.root.QualifiedName)
	}
}
