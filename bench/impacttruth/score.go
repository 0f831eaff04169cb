package impacttruth

import (
	"fmt"
	"sort"
)

// Named is what a tool under test says of a body change to one function:
// the tests it names ("import/path.TestName", as in Truth.Funcs) and the
// blind spots it admits.
type Named struct {
	Tests      []string
	BlindSpots []string
}

// Miss is a function for which the tool left out tests that run it.
type Miss struct {
	Func       string
	Missing    []string
	Named      int
	Truth      int
	BlindSpots []string
}

// Score compares the tool's answers with the truth.
type Score struct {
	Functions        int     `json:"functions"`         // functions some test runs that were asked about
	Recalled         int     `json:"recalled"`          // of those, the ones whose answer names every test that runs them
	Recall           float64 `json:"recall"`            // Recalled / Functions
	Misses           []Miss  `json:"misses,omitempty"`  // the others
	MedianNamed      float64 `json:"median_named"`      // tests named per function
	MedianTruth      float64 `json:"median_truth"`      // tests that run it
	MedianDependents float64 `json:"median_dependents"` // tests of the packages importing its package, and its own
	// PrecisionOK: MedianNamed <= 3 x MedianTruth and 10 x MedianNamed <= MedianDependents.
	PrecisionOK bool `json:"precision_ok"`
}

// Dependents is the number of tests of the package and of every package
// of the module that imports it, directly or not: what running the tests
// of every dependent package runs.
func (t *Truth) Dependents(pkg string) int {
	seen := map[string]bool{pkg: true}
	for changed := true; changed; {
		changed = false
		for _, p := range t.Packages {
			if seen[p.Path] {
				continue
			}
			for _, imp := range p.Imports {
				if seen[imp] {
					seen[p.Path] = true
					changed = true
					break
				}
			}
		}
	}
	n := 0
	for p := range seen {
		if pk := t.Packages[p]; pk != nil {
			n += len(pk.Tests)
		}
	}
	return n
}

// ScoreAll scores answers, keyed by function as in Truth.Funcs; a
// function of funcs with no answer is skipped.
func (t *Truth) ScoreAll(funcs []string, answers map[string]Named) Score {
	var s Score
	var named, truth, deps []float64
	for _, f := range funcs {
		a, ok := answers[f]
		want := t.Funcs[f]
		if !ok || len(want) == 0 {
			continue
		}
		s.Functions++
		have := map[string]bool{}
		for _, x := range a.Tests {
			have[x] = true
		}
		var missing []string
		for _, x := range want {
			if !have[x] {
				missing = append(missing, x)
			}
		}
		if len(missing) == 0 {
			s.Recalled++
		} else {
			s.Misses = append(s.Misses, Miss{Func: f, Missing: missing, Named: len(a.Tests), Truth: len(want), BlindSpots: a.BlindSpots})
		}
		named = append(named, float64(len(a.Tests)))
		truth = append(truth, float64(len(want)))
		deps = append(deps, float64(t.Dependents(t.Decls[f].Package)))
	}
	if s.Functions > 0 {
		s.Recall = float64(s.Recalled) / float64(s.Functions)
	}
	s.MedianNamed, s.MedianTruth, s.MedianDependents = median(named), median(truth), median(deps)
	s.PrecisionOK = s.MedianNamed <= 3*s.MedianTruth && 10*s.MedianNamed <= s.MedianDependents
	sort.Slice(s.Misses, func(i, j int) bool { return s.Misses[i].Func < s.Misses[j].Func })
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// String summarises the score in one line.
func (s Score) String() string {
	return fmt.Sprintf("recall %d/%d (%.1f%%), median tests named %.1f, run %.1f, of dependent packages %.1f, precision ok %v",
		s.Recalled, s.Functions, 100*s.Recall, s.MedianNamed, s.MedianTruth, s.MedianDependents, s.PrecisionOK)
}
