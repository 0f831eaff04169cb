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
func (s *Store) TestRecording(ctx context.Context, repo string) (graph.TestRecording, []graph.TestRun, error) {
	tr, err := s.recorder(ctx, repo)
	if err != nil {
		return graph.TestRecording{Repository: repo}, nil, err
	}
	return tr.TestRecording(ctx, repo)
}

// TestsCovering implements graph.TestRecorder from the recording
// TestRecording reads.
func (s *Store) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	tr, err := s.recorder(ctx, repo)
	if err != nil {
		if errors.Is(err, graph.ErrNotFound) {
			return map[string]string{}, nil, nil
		}
		return nil, nil, err
	}
	return tr.TestsCovering(ctx, repo, keys)
}

// recorder is the store whose recording of repo is read: the local
// one's when it has one, else the shared graph's.
func (s *Store) recorder(ctx context.Context, repo string) (graph.TestRecorder, error) {
	for _, st := range []graph.Store{s.local, s.shared} {
		tr, ok := st.(graph.TestRecorder)
		if !ok {
			continue
		}
		_, _, err := tr.TestRecording(ctx, repo)
		if err == nil {
			return tr, nil
		}
		if !errors.Is(err, graph.ErrNotFound) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("test recording of %s: %w", repo, graph.ErrNotFound)
}
