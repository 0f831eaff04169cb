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
	byID map[int64]int // the index in runs of each run's row id, when read
}

// get returns the runs kept for rec's repository at its recorded_at, and
// whether there are any. They are shared: never modified once kept.
func (c *RecordingRuns) get(rec graph.TestRecording) ([]graph.TestRun, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[rec.Repository]
	if !ok || !k.at.Equal(rec.RecordedAt) {
		return nil, false
	}
	return k.runs[:len(k.runs):len(k.runs)], true
}

// put keeps runs, read at recorded_at at with their row ids (or none),
// in place of what was kept for repo.
func (c *RecordingRuns) put(repo string, at time.Time, runs []graph.TestRun, ids []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]keptRuns{}
	}
	k := keptRuns{at: at, runs: slices.Clone(runs)}
	if len(ids) == len(runs) && ids != nil {
		k.byID = make(map[int64]int, len(ids))
		for i, id := range ids {
			k.byID[id] = i
		}
	}
	c.m[repo] = k
}

// Read returns the runs kept for rec's repository at its recorded_at, or
// reads them with read and keeps them. read returns the runs, their row
// ids (nil when the store does not read them) and the recorded_at it
// read them at, in the same statement: runs read at another recorded_at
// than rec's (a write came between), or none, are returned but not
// kept. The runs are shared with every caller, which must not modify
// them: get_impact reads them on every call, which need not copy them.
func (c *RecordingRuns) Read(rec graph.TestRecording, read func() ([]graph.TestRun, []int64, time.Time, error)) ([]graph.TestRun, error) {
	if runs, ok := c.get(rec); ok {
		return runs, nil
	}
	runs, ids, at, err := read()
	if err == nil && at.Equal(rec.RecordedAt) {
		c.put(rec.Repository, rec.RecordedAt, runs, ids)
	}
	return runs, err
}

// Cover fills in the package, directory and name of the covering runs
// of covers from their row ids, by the runs kept for repo at recorded_at
// at: the ids and at read in one statement. false, and covers left as
// they are, when the runs kept are of another recorded_at, were kept
// without ids or lack one of them: the caller reads the names itself.
func (c *RecordingRuns) Cover(repo string, at time.Time, covers []graph.TestCover, ids []int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[repo]
	if !ok || !k.at.Equal(at) || k.byID == nil {
		return false
	}
	for _, id := range ids {
		if _, ok := k.byID[id]; !ok {
			return false
		}
	}
	for i, id := range ids {
		r := &k.runs[k.byID[id]]
		covers[i].Package, covers[i].Dir, covers[i].Name = r.Package, r.Dir, r.Name
	}
	return true
}
