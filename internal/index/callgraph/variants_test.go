package callgraph

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestCHAAcrossTestVariants checks that CHA, which builds the test
// variant "p [p.test]" in place of "p", still finds p's methods for an
// interface call made in another package against "p": the method's
// signature names p's types, which are other objects in the two variants.
func TestCHAAcrossTestVariants(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/variants.txtar.in")
	found := false
	for _, pkgs := range loadUnits(t, dir) {
		res, err := Build(context.Background(), pkgs, Options{InRepo: under(dir), MaxVTACalls: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Edges {
			if strings.HasSuffix(e.Caller.Name, "q.Walk") && strings.HasSuffix(e.Callee.Name, "p.walker.Visit") {
				found = true
			}
			t.Logf("%s -> %s %s %s at %s", e.Caller.Name, e.Callee.Name, e.Coverage, e.Via, filepath.Base(e.Site.Filename))
		}
	}
	if !found {
		t.Error("CHA: no edge q.Walk -> p.walker.Visit")
	}
}
