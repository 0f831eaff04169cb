package rank

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// A trace of the ranking: with SEXTANT_RANK_TRACE naming a file, every
// ranking appends to it one JSON line of the question's words and each
// hit's features (all of them, uses and deprecation too), which is what
// bench/cmd/search-fit fits the weights on.
var traceFile = sync.OnceValue(func() *os.File {
	path := os.Getenv("SEXTANT_RANK_TRACE")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sextant: SEXTANT_RANK_TRACE: %v; not tracing\n", err)
		return nil
	}
	return f
})

var traceMu sync.Mutex

func tracing() bool { return traceFile() != nil }

// TraceLine is one ranking in a trace.
type TraceLine struct {
	Question string     `json:"question"` // TraceKey of its concepts
	Features []string   `json:"features"`
	Hits     []TraceHit `json:"hits"` // every hit, uses and deprecation weighed for all
}

// TraceHit is one hit of a TraceLine.
type TraceHit struct {
	Package       string    `json:"package"`
	QualifiedName string    `json:"qualified_name"`
	Features      []float64 `json:"f"`
}

// TraceKey is how a trace names a question: its concepts' words.
func TraceKey(q string) string {
	_, concepts := Question(q)
	return conceptKey(concepts)
}

func conceptKey(concepts []Concept) string {
	words := make([]string, len(concepts))
	for i, c := range concepts {
		words[i] = c.forms[0]
	}
	return strings.Join(words, " ")
}

// trace appends a ranking's line to the trace file, if there is one.
func trace(concepts []Concept, hits []scored) {
	f := traceFile()
	if f == nil {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	if err := writeTrace(f, concepts, hits); err != nil {
		fmt.Fprintf(os.Stderr, "sextant: SEXTANT_RANK_TRACE: %v\n", err)
	}
}

// writeTrace writes a ranking's TraceLine to w, one line of JSON.
func writeTrace(w io.Writer, concepts []Concept, hits []scored) error {
	line := TraceLine{Question: conceptKey(concepts), Features: FeatureNames(), Hits: make([]TraceHit, len(hits))}
	for i, h := range hits {
		line.Hits[i] = TraceHit{Package: h.hit.Symbol.PackagePath, QualifiedName: h.hit.Symbol.QualifiedName, Features: slices.Clone(h.f[:])}
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// FeatureNames returns the names of the ranking's features, in a trace's
// order.
func FeatureNames() []string { return featureNames[:] }

// Weight returns the weight of the feature named n, 0 for an unknown name.
func Weight(n string) float64 {
	for i, name := range featureNames {
		if name == n {
			return weights[i]
		}
	}
	return 0
}
