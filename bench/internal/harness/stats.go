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
