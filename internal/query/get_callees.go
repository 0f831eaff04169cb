package query

import (
	"context"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// GetCallees walks the call graph towards the callees of a function.
func GetCallees(ctx context.Context, s *Service, in CallGraphInput, progress func(Progress)) (*CallGraphOutput, error) {
	return callGraph(ctx, s, in, progress, false)
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
		c.Add(blind.TypeErrors, "package(s) %s failed to type-check, so calls in them may be missing", blind.ListSome(dedupe(errPkgs), 3))
	}
	if w.unresolved > 0 {
		c.Add(blind.Unresolved, "%d dynamic call site(s) reached have no resolved callee (listed as rows without a key)", w.unresolved)
	}
	if len(reflecting) > 0 {
		c.Add(blind.Reflection, "%s call(s) through reflection, whose callees are unknown", blind.ListSome(reflecting, 3))
	}
	if w.deepExt {
		c.Add(blind.External, "callees outside the graph (%s) are listed by name but their own callees are not followed", blind.ListSome(sortedKeys(w.externals), 3))
	}
	if w.root.Kind == graph.KindInterfaceMethod {
		c.Add(blind.Outside, "%s has no body: its callees are the methods implementing it, and types outside the index may implement it too", w.root.QualifiedName)
	}
}
