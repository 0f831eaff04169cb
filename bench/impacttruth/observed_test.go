package impacttruth

import "testing"

func TestObservedBound(t *testing.T) {
	// p: run ← exec ← {TestA, TestB, TestC}; rare ← exec as well, but
	// only TestA's run reached it; helper ← TestB alone.
	tr := &Truth{
		Packages: map[string]*Package{
			"m/p": {Path: "m/p", Dir: "p", Tests: []string{"TestA", "TestB", "TestC"}},
			"m/q": {Path: "m/q", Dir: "q", Tests: []string{"TestQ"}, Imports: []string{"m/p"}},
		},
		Funcs: map[string][]string{
			"m/p.rare":   {"m/p.TestA"},
			"m/p.helper": {"m/p.TestB"},
			"m/p.T.run":  {"m/p.TestA", "m/p.TestB", "m/p.TestC"},
			// Run by TestQ in a run the observed calls did not see.
			"m/p.exec": {"m/p.TestA", "m/p.TestB", "m/p.TestC", "m/q.TestQ"},
		},
		Decls: map[string]Decl{
			"m/p.rare": {Package: "m/p"}, "m/p.helper": {Package: "m/p"},
			"m/p.T.run": {Package: "m/p"}, "m/p.exec": {Package: "m/p"},
		},
	}
	calls := []ObservedCall{
		{"p/p_test.go", "TestA", "p/p.go", "exec"},
		{"p/p_test.go", "TestB", "p/p.go", "exec"},
		{"p/p_test.go", "TestC", "p/p.go", "exec"},
		{"p/p.go", "exec", "p/p.go", "T.run"},
		{"p/p.go", "exec", "p/p.go", "rare"},
		{"p/p_test.go", "TestB", "p/p.go", "helper"},
		{"p/p.go", "rare", "p/p.go", "rare"},    // recursion adds nothing
		{"r/r.go", "outside", "p/p.go", "rare"}, // a directory the truth does not know
		// exec calls a literal TestB sets as a field: TestB is where
		// chains end, not a way to every test that reaches exec.
		{"p/p.go", "exec", "p/p_test.go", "TestB"},
	}
	b := tr.ObservedBound(calls, []string{"m/p.rare", "m/p.helper", "m/p.T.run", "m/p.exec", "m/p.unrun"})
	// Named: rare 3 (A, B, C through exec), helper 1, run 3, exec 4 (its
	// own truth kept); truth: 1, 1, 3, 4.
	if b.Functions != 4 || b.MedianNamed != 3 || b.MedianTruth != 2 || b.MedianDependents != 4 {
		t.Fatalf("bound = %+v, want 4 functions, medians named 3, truth 2, dependents 4", b)
	}
	if h := tr.ObservedBound(calls, []string{"m/p.helper"}); h.MedianNamed != 1 {
		t.Errorf("helper names %v tests, want 1 (TestB): a chain goes no further than a test", h.MedianNamed)
	}
	if b.Within || b.TruthWithin {
		t.Errorf("bound = %+v: neither should meet the 10x dependents target", b)
	}
}
