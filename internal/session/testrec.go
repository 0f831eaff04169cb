package session

import "github.com/sextant-dev/sextant/internal/graph"

// Recorder returns the store's per-test coverage (graph.TestRecorder),
// nil when the store keeps none. It is read outside the view's pinned
// snapshots: a recording belongs to a repository, not to a snapshot, and
// says which body of each declaration it saw run.
func Recorder(v *View) graph.TestRecorder {
	tr, _ := v.s.store.(graph.TestRecorder)
	return tr
}
