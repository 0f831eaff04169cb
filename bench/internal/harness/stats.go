package harness

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Latency summarises a sample of durations. Percentiles use the
// nearest-rank method: P99 of 1,000 samples is the 990th smallest, so
// every figure is one that was actually observed.
type Latency struct {
	N    int           `json:"n"`
	Min  time.Duration `json:"min_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
	Mean time.Duration `json:"mean_ns"`
}

// Summarize returns the latency summary of ds. It does not modify ds.
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Latency{
		N:    len(s),
		Min:  s[0],
		P50:  Percentile(s, 50),
		P90:  Percentile(s, 90),
		P99:  Percentile(s, 99),
		Max:  s[len(s)-1],
		Mean: sum / time.Duration(len(s)),
	}
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method. sorted must be sorted ascending and non-empty.
func Percentile[T cmp.Ordered](sorted []T, p float64) T {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Median returns the median of xs (the lower middle value for an even
// count, so it is always an observed value), or the zero value when xs is
// empty. It does not modify xs.
func Median[T cmp.Ordered](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// Paired summarises calls timed in pairs, b[i] beside a[i] on the same
// input: the median of the differences b[i] − a[i] and of the ratios
// b[i] / a[i], each with a 95% confidence interval for that median (the
// distribution-free one of order statistics). Pairing takes out what
// varies between inputs, so a fixed cost of b shows where a ratio of
// two separate medians is lost in their spread.
type Paired struct {
	N          int           `json:"n"`
	DiffMedian time.Duration `json:"diff_median_ns"`
	DiffLow    time.Duration `json:"diff_ci95_low_ns"`
	DiffHigh   time.Duration `json:"diff_ci95_high_ns"`
	RatioMed   float64       `json:"ratio_median"`
	RatioLow   float64       `json:"ratio_ci95_low"`
	RatioHigh  float64       `json:"ratio_ci95_high"`
}

// SummarizePairs returns the Paired summary of b against a, which must
// be of the same length; pairs with a zero a count in the differences
// only.
func SummarizePairs(a, b []time.Duration) Paired {
	n := min(len(a), len(b))
	if n == 0 {
		return Paired{}
	}
	diffs := make([]time.Duration, n)
	var ratios []float64
	for i := range n {
		diffs[i] = b[i] - a[i]
		if a[i] > 0 {
			ratios = append(ratios, float64(b[i])/float64(a[i]))
		}
	}
	p := Paired{N: n}
	p.DiffLow, p.DiffMedian, p.DiffHigh = medianCI(diffs)
	if len(ratios) > 0 {
		p.RatioLow, p.RatioMed, p.RatioHigh = medianCI(ratios)
	}
	return p
}

// medianCI returns the median of xs with the order statistics that bound
// a 95% confidence interval for it: the j-th and k-th smallest, j and k
// n/2 ∓ 1.96·√n/2 (the normal approximation of the binomial, good from
// a few tens of samples). It sorts xs.
func medianCI[T cmp.Ordered](xs []T) (low, median, high T) {
	slices.Sort(xs)
	n := float64(len(xs))
	half := 1.96 * math.Sqrt(n) / 2
	j := max(int(math.Floor(n/2-half)), 0)
	k := min(int(math.Ceil(n/2+half)), len(xs)-1)
	return xs[j], xs[(len(xs)-1)/2], xs[k]
}
