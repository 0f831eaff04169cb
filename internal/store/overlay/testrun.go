package overlay

import (
	"context"
	"errors"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
)

var _ graph.TestRecorder = (*Store)(nil)

// RecordTests implements graph.TestRecorder on the local store, which
// the working copy writes; the shared graph is written by publishing
// into it directly.
func (s *Store) RecordTests(ctx context.Context, rec graph.TestRecording, runs []graph.TestRun) error {
	tr, ok := s.local.(graph.TestRecorder)
	if !ok {
		return fmt.Errorf("the local store keeps no test recordings: %w", errors.ErrUnsupported)
	}
	return tr.RecordTests(ctx, rec, runs)
}

// TestRecording implements graph.TestRecorder: the working copy's own
// recording, else the one the team's CI recorded into the shared graph.
// Each store is asked once.
func (s *Store) TestRecording(ctx context.Context, repo string) (graph.TestRecording, []graph.TestRun, error) {
	for _, tr := range s.recorders() {
		rec, runs, err := tr.TestRecording(ctx, repo)
		if !errors.Is(err, graph.ErrNotFound) {
			return rec, runs, err
		}
	}
	return graph.TestRecording{Repository: repo}, nil, fmt.Errorf("test recording of %s: %w", repo, graph.ErrNotFound)
}

// TestsCovering implements graph.TestRecorder from the recording
// TestRecording reads: the local store's when it has one, else the
// shared graph's. Only the local store is asked whether it has one; the
// shared graph is asked for the covering tests alone, which are none
// when it has no recording either. (A shared graph is a round trip
// away, and get_impact asks both questions on every call.)
func (s *Store) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	trs := s.recorders()
	for i, tr := range trs {
		if i < len(trs)-1 {
			_, _, err := tr.TestRecording(ctx, repo)
			if errors.Is(err, graph.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
		}
		return tr.TestsCovering(ctx, repo, keys)
	}
	return map[string]string{}, nil, nil
}

// recorders are the stores that keep test recordings, the local one
// first: its recording, when it has one, is the one read.
func (s *Store) recorders() []graph.TestRecorder {
	var out []graph.TestRecorder
	for _, st := range []graph.Store{s.local, s.shared} {
		if tr, ok := st.(graph.TestRecorder); ok {
			out = append(out, tr)
		}
	}
	return out
}
