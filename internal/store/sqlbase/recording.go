package sqlbase

import (
	"slices"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// RecordingRuns keeps the runs of each repository's test recording as
// last read, for the calls that follow (get_impact reads them on every
// call): every write of a recording moves its recorded_at forward, the
// stores making it strictly later than the one it replaces, so the runs
// read at one recorded_at are right for as long as it stands.
type RecordingRuns struct {
	mu sync.Mutex
	m  map[string]keptRuns // by repository
}

type keptRuns struct {
	at   time.Time
	runs []graph.TestRun
}

// get returns a copy of the runs kept for rec's repository at its
// recorded_at, and whether there are any.
func (c *RecordingRuns) get(rec graph.TestRecording) ([]graph.TestRun, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[rec.Repository]
	if !ok || !k.at.Equal(rec.RecordedAt) {
		return nil, false
	}
	return slices.Clone(k.runs), true
}

// put keeps runs, read at rec's recorded_at, in place of what was kept
// for its repository.
func (c *RecordingRuns) put(rec graph.TestRecording, runs []graph.TestRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]keptRuns{}
	}
	c.m[rec.Repository] = keptRuns{at: rec.RecordedAt, runs: slices.Clone(runs)}
}

// Read returns the runs kept for rec's repository at its recorded_at, or
// reads them with read and keeps them. The caller gets its own copy.
func (c *RecordingRuns) Read(rec graph.TestRecording, read func() ([]graph.TestRun, error)) ([]graph.TestRun, error) {
	if runs, ok := c.get(rec); ok {
		return runs, nil
	}
	runs, err := read()
	if err == nil {
		c.put(rec, runs)
	}
	return runs, err
}
