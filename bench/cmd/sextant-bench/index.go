package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// sextantRun is one measured `sextant index`.
type sextantRun struct {
	harness.IndexRun
	// Phases are the wall time of each indexing phase, from the moments
	// the progress lines on stderr arrived: startup (process start to the
	// load phase: opening the database, walking the root), load
	// (go/packages), extract (building records and writing them to the
	// database, one package at a time) and publish (committing the
	// snapshot, then exit).
	Phases map[string]time.Duration `json:"phases_ns"`
}

// contenders are the two programs measured side by side.
type contenders struct{ harness.Contenders }

// index runs `sextant index` into a fresh database named name, timing
// its phases by its progress lines.
func (c contenders) index(ctx context.Context, name string) (sextantRun, error) {
	clock := &phaseClock{first: map[string]time.Time{}}
	r, err := c.Index(ctx, name, clock)
	if err != nil {
		return sextantRun{}, err
	}
	return sextantRun{IndexRun: r, Phases: clock.phases(r.Start, r.Start.Add(r.Wall))}, nil
}

// phaseClock is the stderr of `sextant index`: it notes when the first
// progress line of each phase arrived. Lines look like "ROOT: PHASE" or
// "ROOT: PHASE DONE/TOTAL".
type phaseClock struct {
	mu      sync.Mutex
	partial []byte
	first   map[string]time.Time
}

func (p *phaseClock) Write(b []byte) (int, error) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := string(p.partial[:i])
		p.partial = p.partial[i+1:]
		if j := strings.LastIndex(line, ": "); j >= 0 {
			if f := strings.Fields(line[j+2:]); len(f) > 0 {
				if _, seen := p.first[f[0]]; !seen {
					p.first[f[0]] = now
				}
			}
		}
	}
	return len(b), nil
}

// phases turns the first-line times into phase durations between start
// and end. A phase whose line never came is left out.
func (p *phaseClock) phases(start, end time.Time) map[string]time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	marks := []struct{ name, line string }{{"startup", ""}, {"load", "load"}, {"extract", "extract"}, {"publish", "publish"}}
	out := map[string]time.Duration{}
	for i, m := range marks {
		from := start
		if m.line != "" {
			t, ok := p.first[m.line]
			if !ok {
				continue
			}
			from = t
		}
		to := end
		for _, next := range marks[i+1:] {
			if t, ok := p.first[next.line]; ok {
				to = t
				break
			}
		}
		out[m.name] = to.Sub(from)
	}
	return out
}
