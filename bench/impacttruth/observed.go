package impacttruth

import (
	"cmp"
	pathpkg "path"
	"slices"
	"strings"
)

// ObservedCall is one call between two declarations of the module seen
// while its tests ran (bench/cmd/soundness records them), each declaration
// named by its file (relative to the module directory, forward slashes)
// and its qualified name (Name or Type.Method), function literals folded
// into the declaration that contains them.
type ObservedCall struct {
	CallerPath string `json:"caller_path"`
	Caller     string `json:"caller"`
	CalleePath string `json:"callee_path"`
	Callee     string `json:"callee"`
}

// Bound is what answering by reachability over the observed calls would
// name: the tests from which some chain of observed calls reaches the
// changed function, and the tests that run it (so that recall stays whole
// where the observed run and the coverage run differ). Every call graph
// sound for these tests has every observed call, so an answer that names
// the tests reaching a function along the edges of one graph of
// declarations for all calling contexts (function literals folded into
// their declaration: Sextant's, and CHA, RTA or VTA read that way) names
// at least these, however exact its graph: Bound is the floor of precision for
// that way of answering, not a figure of any tool. (An analysis that
// tells contexts apart, say which Run field each test's command holds,
// could name fewer; no branch taken on a test's data can be told apart
// without running it.)
type Bound struct {
	Functions   int     `json:"functions"`
	MedianNamed float64 `json:"median_named"`
	MedianTruth float64 `json:"median_truth"`
	// MedianDependents counts the tests of the packages importing the
	// function's package, and its own (Truth.Dependents).
	MedianDependents float64 `json:"median_dependents"`
	// Within is whether MedianNamed meets the precision target
	// (≤ 3× MedianTruth, ≥ 10× fewer than MedianDependents).
	Within bool `json:"within_target"`
	// TruthWithin is whether the truth itself, named exactly, would meet
	// the dependents' half of the target: when it does not, no answer
	// that names every test running the function can.
	TruthWithin bool `json:"truth_within_dependents_target"`
}

// ObservedBound computes the Bound of funcs (keys of Funcs) over calls.
func (t *Truth) ObservedBound(calls []ObservedCall, funcs []string) Bound {
	pkgOf := map[string]string{} // directory → import path
	tests := map[string]bool{}
	for _, p := range t.Packages {
		pkgOf[p.Dir] = p.Path
		for _, name := range p.Tests {
			tests[p.Path+"."+name] = true
		}
	}
	key := func(file, name string) string {
		dir := pathpkg.Dir(file)
		p, ok := pkgOf[dir]
		if !ok {
			return ""
		}
		return p + "." + name
	}
	callers := map[string][]string{}
	for _, c := range calls {
		from, to := key(c.CallerPath, c.Caller), key(c.CalleePath, c.Callee)
		if from != "" && to != "" && from != to {
			callers[to] = append(callers[to], from)
		}
	}
	var b Bound
	var named, truth, deps []float64
	for _, f := range funcs {
		want := t.Funcs[f]
		if len(want) == 0 {
			continue
		}
		reached := map[string]bool{}
		for _, x := range want {
			reached[x] = true
		}
		seen := map[string]bool{f: true}
		stack := []string{f}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range callers[x] {
				if seen[c] {
					continue
				}
				seen[c] = true
				if tests[c] {
					// A test is where a chain ends: what "calls" it is
					// code calling a literal written in it (a Run field a
					// test sets), which that literal's own calls stand for.
					reached[c] = true
					continue
				}
				stack = append(stack, c)
			}
		}
		b.Functions++
		named = append(named, float64(len(reached)))
		truth = append(truth, float64(len(want)))
		deps = append(deps, float64(t.Dependents(t.Decls[f].Package)))
	}
	b.MedianNamed, b.MedianTruth, b.MedianDependents = median(named), median(truth), median(deps)
	b.Within = b.MedianNamed <= 3*b.MedianTruth && 10*b.MedianNamed <= b.MedianDependents
	b.TruthWithin = 10*b.MedianTruth <= b.MedianDependents
	return b
}

// SortCalls orders calls by callee, then caller, for a stable file.
func SortCalls(calls []ObservedCall) {
	slices.SortFunc(calls, func(a, b ObservedCall) int {
		return cmp.Or(strings.Compare(a.CalleePath, b.CalleePath), strings.Compare(a.Callee, b.Callee),
			strings.Compare(a.CallerPath, b.CallerPath), strings.Compare(a.Caller, b.Caller))
	})
}
