package session

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// heartbeat is the longest a waiting call goes without a progress report.
const heartbeat = 2 * time.Second

type patienceKey struct{}

type stageKey struct{}

// WithStage returns ctx for a call that a snapshot of stage answers
// exactly (graph.StageSyntax: where symbols are declared, outlines,
// source; graph.StageTypes: references and implementations too): it may
// read such a snapshot, which the first index of a root publishes before
// it completes, and waits only for that stage. Other calls wait for the
// complete snapshot.
func WithStage(ctx context.Context, stage string) context.Context {
	return context.WithValue(ctx, stageKey{}, stage)
}

// WithSyntax is WithStage for graph.StageSyntax.
func WithSyntax(ctx context.Context) context.Context {
	return WithStage(ctx, graph.StageSyntax)
}

// WithPatience returns ctx carrying how long a call waits for an indexing
// run before it answers INDEX_NOT_READY (0: not at all). Without it the
// session's default applies (see Settings.SetPatience).
func WithPatience(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, patienceKey{}, max(d, 0))
}

// Percent maps a progress report onto one increasing scale of 0 to 100:
// discover and load take the first half, extract and publish the second.
func (p Progress) Percent() float64 {
	val := 0.0
	switch p.Phase {
	case "syntax":
		val = 5
	case "types":
		val = 97
	case "load":
		val = 10
		if p.Total > 0 {
			val += 35 * float64(p.Done) / float64(p.Total)
		}
	case "extract":
		val = 50
		if p.Total > 0 {
			val += 45 * float64(p.Done) / float64(p.Total)
		}
	case "publish":
		val = 95
		if p.Total > 0 {
			val += 4 * float64(p.Done) / float64(p.Total)
		}
	case "done":
		val = 100
	}
	return val
}

// loadStart is where the load phase begins on the Percent scale: before
// the first load unit completes, nothing measured says how fast the run goes.
const loadStart = 10

// tracker is what a flight knows of its run's progress: the last report,
// when the run and its measured part began, and the waiting calls that
// hear each report.
type tracker struct {
	mu        sync.Mutex
	started   time.Time
	measured  time.Time // when the load phase began (zero before)
	last      Progress
	listeners map[int]func(Progress)
	next      int
}

func newTracker(now time.Time) *tracker {
	return &tracker{started: now, last: Progress{Phase: "discover"}, listeners: map[int]func(Progress){}}
}

// report records p and passes it on to every waiting call.
func (t *tracker) report(now time.Time, p Progress) {
	t.mu.Lock()
	t.last = p
	if p.Phase == "load" && t.measured.IsZero() {
		t.measured = now
	}
	ls := make([]func(Progress), 0, len(t.listeners))
	for _, l := range t.listeners {
		ls = append(ls, l)
	}
	t.mu.Unlock()
	for _, l := range ls {
		l(p)
	}
}

// listen passes every later report to progress until the returned
// function is called.
func (t *tracker) listen(progress func(Progress)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	t.mu.Lock()
	id := t.next
	t.next++
	t.listeners[id] = progress
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.listeners, id)
		t.mu.Unlock()
	}
}

// status is a snapshot of the run's progress: the last report, how long
// the run has gone and an estimate of the time left (negative: no
// estimate yet).
func (t *tracker) status(now time.Time) (p Progress, elapsed, left time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, elapsed, left = t.last, now.Sub(t.started), -1
	pct := p.Percent()
	if !t.measured.IsZero() && pct > loadStart && pct < 100 {
		// The rate of the part measured so far, applied to what is left.
		spent := now.Sub(t.measured).Seconds()
		left = time.Duration(spent * (100 - pct) / (pct - loadStart) * float64(time.Second))
	}
	return p, elapsed, left
}

// notReady is the answer of a call whose patience ran out before the
// indexing run of root ended: where the run is, how long it has gone,
// what is left, and to call again.
func (t *tracker) notReady(now time.Time, root string) error {
	p, elapsed, left := t.status(now)
	stage := p.Phase
	if stage == "" {
		stage = "discover"
	}
	so := stage
	if p.Total > 0 {
		so = fmt.Sprintf("%s %d of %d", stage, p.Done, p.Total)
	}
	est := "no estimate until the first package unit is loaded"
	if left >= 0 {
		est = fmt.Sprintf("about %s left", left.Round(time.Second))
	}
	e := graph.Errorf(graph.CodeIndexNotReady,
		"%s is still being indexed (%s, %.0f%%, %s so far; %s); indexing goes on in the background: call again, with wait to set how long a call waits",
		root, so, p.Percent(), elapsed.Round(time.Second), est).
		WithData("root", root).WithData("stage", stage).
		WithData("done", p.Done).WithData("total", p.Total).
		WithData("percent", math.Round(p.Percent()*10)/10).
		WithData("elapsed_seconds", math.Round(elapsed.Seconds()*10)/10)
	if left >= 0 {
		e = e.WithData("estimate_seconds", math.Round(left.Seconds()*10)/10)
	}
	return e
}

// heartbeats passes the run's last report to progress when the call
// starts waiting (it may join a run midway through a stage) and then every
// heartbeat until stop is closed, so a waiting call hears something at
// least that often while a stage runs long without a report.
func (t *tracker) heartbeats(now func() time.Time, progress func(Progress), stop <-chan struct{}) {
	if progress == nil {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		p, elapsed, _ := t.status(now())
		if p.Message == "" {
			p.Message = p.Phase
		}
		p.Message = fmt.Sprintf("%s (%s so far)", p.Message, elapsed.Round(time.Second))
		progress(p)
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
