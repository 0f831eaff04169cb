package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testTestRuns checks a store's per-test coverage (graph.TestRecorder):
// none before a recording, the runs and covering tests after, a run
// recorded again replacing the old one with its coverage, and another
// repository's recording apart.
func testTestRuns(t *testing.T, s graph.Store) {
	tr, ok := s.(graph.TestRecorder)
	if !ok {
		t.Skip("the store keeps no test recordings")
	}
	ctx := context.Background()
	if _, _, err := tr.TestRecording(ctx, "m"); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("TestRecording before any = %v, want ErrNotFound", err)
	}
	at := time.UnixMilli(time.Now().UnixMilli()).UTC()
	rec := graph.TestRecording{Repository: "m", RecordedAt: at, VCSHead: "abc", GoVersion: "go1.26",
		Known: []graph.Covered{{Key: "K1", BodyHash: "h1"}, {Key: "K2", BodyHash: "h2"}, {Key: "K4", BodyHash: "h4"}}}
	runs := []graph.TestRun{
		{Package: "m/a", Dir: "a", Name: "TestA", Kind: "test", Status: graph.TestPassed, Binary: "b1", Duration: 3 * time.Millisecond,
			Covered: []graph.Covered{{Key: "K1", BodyHash: "h1"}, {Key: "K2", BodyHash: "h2"}}},
		{Package: "m/a", Dir: "a", Name: "TestB", Kind: "test", Status: graph.TestFailed, Binary: "b1",
			Covered: []graph.Covered{{Key: "K1", BodyHash: "h1"}}},
		{Package: "m/c", Dir: "c", Name: "TestHang", Kind: "test", Status: graph.TestTimedOut, Message: "killed"},
	}
	if err := tr.RecordTests(ctx, rec, runs); err != nil {
		t.Fatal(err)
	}
	if err := tr.RecordTests(ctx, graph.TestRecording{Repository: "other", RecordedAt: at},
		[]graph.TestRun{{Package: "o", Dir: ".", Name: "TestO", Kind: "test", Status: graph.TestPassed, Covered: []graph.Covered{{Key: "K1", BodyHash: "x"}}}}); err != nil {
		t.Fatal(err)
	}
	got, gotRuns, err := tr.TestRecording(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !got.RecordedAt.Equal(at) || got.VCSHead != "abc" || got.GoVersion != "go1.26" || len(gotRuns) != 3 {
		t.Fatalf("TestRecording = %+v, %d runs; want %+v, 3", got, len(gotRuns), rec)
	}
	if r := gotRuns[2]; r.Name != "TestHang" || r.Status != graph.TestTimedOut || r.Message != "killed" || r.Covered != nil {
		t.Errorf("run 3 = %+v", r)
	}
	if r := gotRuns[0]; r.Binary != "b1" || r.Duration != 3*time.Millisecond {
		t.Errorf("run 1 = %+v", r)
	}
	known, cov, err := tr.TestsCovering(ctx, "m", []string{"K1", "K3", "K4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 2 || known["K1"] != "h1" || known["K4"] != "h4" {
		t.Errorf("known = %v, want K1 and K4 (K3 is not known, K2 not asked)", known)
	}
	if len(cov) != 2 || cov[0].Name != "TestA" || cov[1].Name != "TestB" || cov[0].BodyHash != "h1" || cov[0].Dir != "a" {
		t.Fatalf("TestsCovering(K1) = %+v, want TestA and TestB", cov)
	}
	// TestA again, now failing and covering K3 only: its old coverage
	// goes. The write says the same recorded_at as the first, and the
	// store still makes it later, so that a reader that kept the runs
	// it read at the first sees the new ones.
	rec.Known = nil
	if err := tr.RecordTests(ctx, rec, []graph.TestRun{{Package: "m/a", Dir: "a", Name: "TestA", Kind: "test", Status: graph.TestFailed,
		Covered: []graph.Covered{{Key: "K3", BodyHash: "h3"}}}}); err != nil {
		t.Fatal(err)
	}
	// Asked before the recording is read again, then after: a store
	// that kept the runs it read at the first write must not name the
	// coverage of the second by them.
	want := "[K1 by TestB, K3 by TestA]"
	if got := coverNames(t, tr); got != want {
		t.Fatalf("after re-recording TestA, before reading the recording: %s, want %s", got, want)
	}
	again, againRuns, err := tr.TestRecording(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !again.RecordedAt.After(at) {
		t.Errorf("recorded_at after a second write at the same time = %v, want later than %v", again.RecordedAt, at)
	}
	if len(againRuns) != 3 || againRuns[0].Name != "TestA" || againRuns[0].Status != graph.TestFailed {
		t.Errorf("runs after re-recording TestA = %+v, want TestA failed first of 3", againRuns)
	}
	if got := coverNames(t, tr); got != want {
		t.Fatalf("after re-recording TestA: %s, want %s", got, want)
	}
}

// coverNames is what the recording of "m" says covered K1, K2 and K3:
// each key with the test that ran it, in order.
func coverNames(t *testing.T, tr graph.TestRecorder) string {
	t.Helper()
	_, cov, err := tr.TestsCovering(context.Background(), "m", []string{"K1", "K2", "K3"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cov {
		out = append(out, c.Key+" by "+c.Name)
	}
	return "[" + strings.Join(out, ", ") + "]"
}
