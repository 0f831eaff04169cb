// Package proctree starts a process inside a tree that ends with it and
// with Sextant: every process the child starts is ended when Sextant ends
// the child, when the child exits, and when Sextant exits or is killed
// without a word. Language servers (internal/lsp) and the SCIP indexers
// (internal/scipindexer) run this way, so that none outlives its call or
// Sextant.
//
// One implementation per mechanism: a process group with the parent-death
// signal (Linux), a process group with a reaper process watching a pipe
// (macOS, and Linux with SEXTANT_LSP_GUARD=reaper), a job object killed on
// close (Windows).
package proctree

// GuardEnv names the lifecycle mechanism on Linux: "reaper" selects the
// macOS one (the pipe reaper and the polled memory cap) instead of the
// parent-death signal and RLIMIT_AS, so that the macOS code runs and is
// tested where the tests run.
const GuardEnv = "SEXTANT_LSP_GUARD"

// Footprint is a tree's memory as the platform counts it, summed over the
// process and the processes it started: on Linux resident plus swapped
// out (VmRSS, VmSwap), on macOS the resident size, on Windows the working
// set.
type Footprint struct {
	RSSBytes  int64
	SwapBytes int64
	Processes int
}

// Total is resident plus swap.
func (f Footprint) Total() int64 { return f.RSSBytes + f.SwapBytes }
