package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// flight is one indexing run of a root; the calls that find the root
// unindexed or stale while it runs wait for it, each as long as its
// patience allows, and hear its progress.
type flight struct {
	done chan struct{}
	err  error
	t    *tracker
	// syntax and types are closed when the run has published that stage
	// (see WithStage), or has ended.
	syntax, types         chan struct{}
	syntaxOnce, typesOnce sync.Once
	// background is closed when the run reports graph.PhaseBackground:
	// what is left runs other languages' indexers, and the calls waiting
	// answer from the snapshot there, stale, instead of waiting on.
	background     chan struct{}
	backgroundOnce sync.Once
	watchOnce      sync.Once // see Session.watchBackground
}

func newFlight(now time.Time) *flight {
	return &flight{done: make(chan struct{}), syntax: make(chan struct{}), types: make(chan struct{}),
		background: make(chan struct{}), t: newTracker(now)}
}

// inBackground reports whether the run has reported graph.PhaseBackground
// and not yet ended, and what it said it was doing.
func (f *flight) inBackground() (string, bool) {
	select {
	case <-f.done:
		return "", false
	case <-f.background:
		p, _, _ := f.t.status(time.Now())
		return p.Message, true
	default:
		return "", false
	}
}

// failure is the run's error as a call reports it: coded, INDEXING_FAILED
// when the index said no code. The run must have ended.
func (f *flight) failure(root string) error {
	if f.err == nil {
		return nil
	}
	var ge *graph.Error
	if errors.As(f.err, &ge) {
		return ge
	}
	return graph.Wrap(graph.CodeIndexingFailed, f.err, "indexing "+root+" failed")
}

// backgroundRun is indexOnce's answer when the run it waited for went on
// in the background (see flight.background): the caller answers from
// the snapshot there, and learns how the run ended from f.
type backgroundRun struct{ f *flight }

func (b *backgroundRun) Error() string { return "indexing goes on in the background" }

// reached records that the run has published stage, and with it the
// stages before ("": every stage, the run has ended).
func (f *flight) reached(stage string) {
	f.syntaxOnce.Do(func() { close(f.syntax) })
	if stage != graph.StageSyntax {
		f.typesOnce.Do(func() { close(f.types) })
	}
}

// staged returns the channel closed once the run has published stage
// (nil for "": the run's end, f.done, is the only wait).
func (f *flight) staged(stage string) <-chan struct{} {
	switch stage {
	case graph.StageSyntax:
		return f.syntax
	case graph.StageTypes:
		return f.types
	}
	return nil
}

// refreshFailure is a refresh of a stale root that failed (a broken
// go.mod, say): the snapshot it started from keeps serving, marked stale
// with the error, and the refresh is tried again once a file changes.
type refreshFailure struct {
	snapshot int64     // the snapshot that kept serving
	at       time.Time // when the failed run started
	err      string
}

// failures are the last failed refresh of each root. It is safe for
// concurrent use.
type failures struct {
	mu   sync.Mutex
	last map[string]refreshFailure // root → the last refresh that failed
}

// record keeps how the refresh of rp's root that started at started went:
// err, or nil for a refresh that succeeded.
func (fs *failures) record(rp graph.RepositoryStatus, started time.Time, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if err == nil {
		delete(fs.last, rp.Root)
		return
	}
	if fs.last == nil {
		fs.last = map[string]refreshFailure{}
	}
	fs.last[rp.Root] = refreshFailure{snapshot: rp.Snapshot.ID, at: started, err: err.Error()}
}

// of returns the last failed refresh of root, if any.
func (fs *failures) of(root string) (refreshFailure, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.last[root]
	return f, ok
}

// watch records, once the run f that went on in the background ends, how
// it went, as Open records a refresh it waited for: a failure keeps rp's
// snapshot serving, stale, with the error, until a file changes again.
func (fs *failures) watch(f *flight, rp graph.RepositoryStatus) {
	f.watchOnce.Do(func() {
		go func() {
			<-f.done
			fs.record(rp, f.t.started, f.failure(rp.Root))
		}()
	})
}

// runs are the indexing runs of a session's roots: the one in flight for
// each root, which the calls that need it share, and when each root's last
// run ended.
type runs struct {
	index IndexFunc
	now   func() time.Time
	set   *Settings

	mu       sync.Mutex
	indexing map[string]*flight   // root → the indexing run in progress
	ended    map[string]time.Time // root → when its last indexing run ended
}

// running reports whether a run is indexing root.
func (s *runs) running(root string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.indexing[root]
	return ok
}

// indexOnce indexes root, or waits for the run already indexing it. A
// call waits as long as its patience (see WithPatience), hearing the run's
// progress at least every two seconds; when the run is not done by then it
// answers INDEX_NOT_READY with where the run is, and the run goes on.
//
// A run of root that ended after since (the time the caller read the
// store) is taken for the one the caller would start: the caller reads
// again instead (zero since: no such check).
func (s *runs) indexOnce(ctx context.Context, root string, since time.Time, progress func(Progress)) error {
	if s.index == nil {
		return graph.Errorf(graph.CodeIndexNotReady, "%s is not indexed yet; run `sextant index %s`", root, root)
	}
	s.mu.Lock()
	f, running := s.indexing[root]
	if !running && !since.IsZero() && s.ended[root].After(since) {
		s.mu.Unlock()
		return nil
	}
	if !running {
		f = newFlight(s.now())
		s.indexing[root] = f
		// The run belongs to no single caller: it goes on if the caller
		// that started it gives up, so the next call finds it further on
		// or done. Only the end of the session's lifetime cancels it.
		life := s.set.life
		if life == nil {
			life = context.Background()
		}
		run, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stopLife := context.AfterFunc(life, cancel)
		go func() {
			defer cancel()
			defer stopLife()
			f.err = s.index(run, root, func(p Progress) {
				f.t.report(s.now(), p)
				if (p.Phase == graph.StageSyntax || p.Phase == graph.StageTypes) && p.Total > 0 && p.Done == p.Total {
					f.reached(p.Phase)
				}
				if p.Phase == graph.PhaseBackground {
					f.backgroundOnce.Do(func() { close(f.background) })
				}
			})
			s.mu.Lock()
			delete(s.indexing, root)
			s.ended[root] = s.now()
			s.mu.Unlock()
			close(f.done)
			f.reached("")
		}()
	}
	s.mu.Unlock()
	stopListen := f.t.listen(progress)
	defer stopListen()
	stopBeat := make(chan struct{})
	defer close(stopBeat)
	go f.t.heartbeats(s.now, progress, stopBeat)
	var expired <-chan time.Time
	if d, bounded := s.set.patienceOf(ctx); bounded {
		timer := time.NewTimer(d)
		defer timer.Stop()
		expired = timer.C
	}
	staged := f.staged(s.set.stageOf(ctx))
	select {
	case <-f.done:
	case <-staged:
		select {
		case <-f.done: // the whole run is done: report how it went
		default:
			return nil // the stage answers this call
		}
	case <-f.background:
		select {
		case <-f.done:
		default:
			return &backgroundRun{f: f}
		}
	case <-expired:
		select {
		case <-f.done: // done at the same moment: answer
		default:
			return f.t.notReady(s.now(), root)
		}
	case <-ctx.Done():
		return graph.Wrap(graph.CodeIndexNotReady, ctx.Err(), root+" is still being indexed; call again shortly")
	}
	return f.failure(root)
}

// inBackground reports whether the run of root goes on in the background
// (see flight.background), and what it said it was doing.
func (s *runs) inBackground(root string) (string, bool) {
	s.mu.Lock()
	f := s.indexing[root]
	s.mu.Unlock()
	if f == nil {
		return "", false
	}
	return f.inBackground()
}
