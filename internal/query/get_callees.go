package query

import (
	"context"

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
func (w *walker) calleeSpots(c *completeness, facts *session.Facts) {
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
		c.add(BlindTypeErrors, "package(s) %s failed to type-check, so calls in them may be missing", listSome(dedupe(errPkgs), 3))
	}
	if w.unresolved > 0 {
		c.add(BlindUnresolved, "%d dynamic call site(s) reached have no resolved callee (listed as rows without a key)", w.unresolved)
	}
	if len(reflecting) > 0 {
		c.add(BlindReflection, "%s call(s) through reflection, whose callees are unknown", listSome(reflecting, 3))
	}
	if w.deepExt {
		c.add(BlindExternal, "callees outside the graph (%s) are listed by name but their own callees are not followed", listSome(sortedKeys(w.externals), 3))
	}
	if w.root.Kind == graph.KindInterfaceMethod {
		c.add(BlindOutside, "%s has no body: its callees are the methods implementing it, and types outside the index may implement it too", w.root.QualifiedName)
	}
}
