// Package harness holds the parts of Sextant's benchmark that are worth
// testing on their own: measuring a child process (wall time, CPU, peak
// RSS of the process and of its process tree), summarising latencies into
// percentiles, building a reproducible query set from an index, and
// judging figures against targets.
//
// The benchmark itself is bench/cmd/sextant-bench; see bench/README.md for
// what each figure means and how to reproduce them.
package harness
