// Command search-fit fits the weights of search_code's ranking features
// (internal/rank's weights) on search-bench's tuning modules. It reads a
// search-bench result file and the trace a binary wrote while it
// answered the same questions (SEXTANT_RANK_TRACE), ranks each question's
// full-text hits again under other weights, and searches, one weight at a
// time, for those that rank the answers best, generated and written
// questions counting alike (the mean of their MRRs). It reports the
// weights given, those fitted, and each module ranked by the weights
// fitted on the others: what a fit is worth on a module it did not see.
//
//	rm -f /tmp/trace.jsonl
//	SEXTANT_RANK_TRACE=/tmp/trace.jsonl go run ./bench/cmd/search-bench -binaries new=BIN -set tuning -per-module 0 -out /tmp/tuning.json
//	go run ./bench/cmd/search-fit -results /tmp/tuning.json -trace /tmp/trace.jsonl
//
// -set measured reads the measured modules instead, to learn how far any
// weights of these features could take them; weights are never chosen
// there.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/rank"
)

// limit is search-bench's: a rank past it counts 0.
const limit = 20

// grid holds the values a weight is tried at.
var grid = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3}

// question is one question with its full-text hits: their features, and
// which of them are its answer.
type question struct {
	module   string
	kind     string // generated or written
	features [][]float64
	answer   []bool
	names    []string // each hit's package and qualified name
}

func main() {
	results := flag.String("results", "", "search-bench result file")
	tracePath := flag.String("trace", "", "trace written while the result's questions were asked")
	start := flag.String("weights", "", "start from internal/rank's weights with these changed (name=value,...)")
	fit := flag.Bool("fit", true, "fit the weights; false reports the start's figures alone")
	set := flag.String("set", "tuning", "the modules whose questions are read: tuning, or measured (never to choose weights)")
	flag.Parse()
	log.SetFlags(0)
	qs, err := load(*results, *tracePath, *set)
	if err != nil {
		log.Fatal(err)
	}
	names := rank.FeatureNames()
	w, err := weights(names, *start)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d questions of the %s modules\n", len(qs), *set)
	for _, kind := range []string{"generated", "written"} {
		n, found := recall(qs, kind)
		if n > 0 {
			// An answer the full-text search did not find shares no
			// searched word with its question: no weights rank it.
			fmt.Printf("%-9s answer among the full-text hits: %d of %d (%.1f%%)\n", kind, found, n, 100*float64(found)/float64(n))
		}
	}
	report("start", qs, func(int) []float64 { return w })
	if !*fit {
		return
	}
	held := heldOut(qs, names, w)
	report("held out", qs, func(i int) []float64 { return held[i] })
	w = fitWeights(qs, names, w)
	report("fitted", qs, func(int) []float64 { return w })
	for i, n := range names {
		fmt.Printf("  %-10s %.2f\n", n, w[i])
	}
}

// weights returns internal/rank's weights with those named in changes
// (name=value,...) changed.
func weights(names []string, changes string) ([]float64, error) {
	w := make([]float64, len(names))
	for i, n := range names {
		w[i] = rank.Weight(n)
	}
	for _, kv := range strings.Split(changes, ",") {
		if kv == "" {
			continue
		}
		n, v, _ := strings.Cut(kv, "=")
		i := slices.Index(names, n)
		if i < 0 {
			return nil, fmt.Errorf("-weights: no feature %q (features: %s)", n, strings.Join(names, ", "))
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("-weights: %s: %w", n, err)
		}
		w[i] = x
	}
	return w, nil
}

// recall returns how many questions of a kind there are, and for how
// many the full-text search found the answer.
func recall(qs []question, kind string) (n, found int) {
	for _, q := range qs {
		if q.kind == kind {
			n++
			if slices.Contains(q.answer, true) {
				found++
			}
		}
	}
	return n, found
}

// heldOut returns, for each question, the weights fitted on the other
// modules' questions.
func heldOut(qs []question, names []string, w []float64) [][]float64 {
	out := make([][]float64, len(qs))
	fitted := map[string][]float64{}
	for i, q := range qs {
		if fitted[q.module] == nil {
			var train []question
			for _, o := range qs {
				if o.module != q.module {
					train = append(train, o)
				}
			}
			fitted[q.module] = fitWeights(train, names, slices.Clone(w))
		}
		out[i] = fitted[q.module]
	}
	return out
}

// fitWeights returns the weights, from w, that coordinate ascent over
// grid finds best for qs. The text score's weight stays: the others are
// relative to it.
func fitWeights(qs []question, names []string, w []float64) []float64 {
	best := objective(qs, w)
	for pass := 0; pass < 4; pass++ {
		moved := false
		for i, n := range names {
			if n == "text" {
				continue
			}
			for _, x := range grid {
				old := w[i]
				w[i] = x
				if o := objective(qs, w); o > best+1e-9 {
					best, moved = o, true
				} else {
					w[i] = old
				}
			}
		}
		if !moved {
			break
		}
	}
	return w
}

// result is what search-fit reads of a search-bench result file.
type result struct {
	Modules []struct {
		Module    string `json:"module"`
		Set       string `json:"set"`
		Questions []struct {
			Kind     string   `json:"kind"`
			Question string   `json:"question"`
			Package  string   `json:"package"`
			Answer   string   `json:"answer"`
			Also     []string `json:"also"`
		} `json:"questions"`
	} `json:"modules"`
}

// load joins the questions of the set's modules to their trace lines:
// the trace of the run that wrote the result file, in a file of its own.
func load(results, tracePath, set string) ([]question, error) {
	data, err := os.ReadFile(results)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", results, err)
	}
	f, err := os.Open(tracePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A key may name several questions ("the TOML data in to the pointer
	// v" and "TOML data in to the pointer v" are alike without their stop
	// words), each asked with its own answer masked: the questions of a
	// key take its lines in the order search-bench asked them, which is
	// the result file's. Other lines (the warm-up question, -latency's)
	// are left over.
	lines := map[string][]rank.TraceLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l rank.TraceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", tracePath, err)
		}
		if !slices.Equal(l.Features, rank.FeatureNames()) {
			return nil, fmt.Errorf("%s: features %v, this build ranks by %v", tracePath, l.Features, rank.FeatureNames())
		}
		lines[l.Question] = append(lines[l.Question], l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var qs []question
	missing := 0
	for _, m := range r.Modules {
		for _, q := range m.Questions {
			key := rank.TraceKey(q.Question)
			if len(lines[key]) == 0 {
				if m.Set == set {
					missing++
				}
				continue
			}
			l := lines[key][0]
			lines[key] = lines[key][1:]
			if m.Set != set {
				continue
			}
			c := question{module: m.Module, kind: q.Kind}
			for _, h := range l.Hits {
				c.features = append(c.features, h.Features)
				c.names = append(c.names, h.Package+"\x00"+h.QualifiedName)
				c.answer = append(c.answer, harness.AnswerMatches(q.Package, q.Answer, q.Also, h.Package, h.QualifiedName))
			}
			qs = append(qs, c)
		}
	}
	if missing > 0 {
		return nil, fmt.Errorf("%d questions of %s are not in %s", missing, results, tracePath)
	}
	return qs, nil
}

// rankOf is the rank of q's answer among distinct names, its hits ranked
// as internal/rank ranks them under weights w (uses and deprecation
// weighed for the best rank.RefPool), 0 past limit.
func rankOf(q question, w []float64) int {
	names := rank.FeatureNames()
	uses, dep := slices.Index(names, "uses"), slices.Index(names, "deprecated")
	score := make([]float64, len(q.features))
	order := make([]int, len(q.features))
	for i, f := range q.features {
		order[i] = i
		for j, x := range f {
			if j != uses && j != dep {
				score[i] += w[j] * x
			}
		}
	}
	byScore := func(a, b int) bool { return score[order[a]] > score[order[b]] }
	sort.SliceStable(order, byScore)
	for _, i := range order[:min(len(order), rank.RefPool)] {
		score[i] += w[uses]*q.features[i][uses] + w[dep]*q.features[i][dep]
	}
	sort.SliceStable(order, byScore)
	seen := map[string]bool{}
	for _, i := range order {
		if seen[q.names[i]] {
			continue
		}
		seen[q.names[i]] = true
		if len(seen) > limit {
			return 0
		}
		if q.answer[i] {
			return len(seen)
		}
	}
	return 0
}

// objective is the mean of the generated and the written questions'
// MRRs (of those kinds qs has).
func objective(qs []question, w []float64) float64 {
	rr := map[string]float64{}
	n := map[string]int{}
	for _, q := range qs {
		if r := rankOf(q, w); r > 0 {
			rr[q.kind] += 1 / float64(r)
		}
		n[q.kind]++
	}
	o := 0.0
	for k := range n {
		o += rr[k] / float64(n[k]) / float64(len(n))
	}
	return o
}

// report prints top-1, top-5 and MRR of each kind, qs[i] ranked by
// weightsOf(i).
func report(label string, qs []question, weightsOf func(int) []float64) {
	for _, kind := range []string{"generated", "written"} {
		var n, top1, top5 int
		mrr := 0.0
		for i, q := range qs {
			if q.kind != kind {
				continue
			}
			n++
			switch r := rankOf(q, weightsOf(i)); {
			case r == 1:
				top1++
				fallthrough
			case r > 0 && r <= 5:
				top5++
				fallthrough
			case r > 0:
				mrr += 1 / float64(r)
			}
		}
		if n > 0 {
			fmt.Printf("%-8s %-9s %3d  top-1 %3d  top-5 %3d  MRR %.3f\n", label, kind, n, top1, top5, mrr/float64(n))
		}
	}
}
