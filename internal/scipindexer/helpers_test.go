package scipindexer_test

import (
	"errors"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// failure returns err's *scipindexer.Error, or fails.
func failure(t *testing.T, err error, want scipindexer.Reason) *scipindexer.Error {
	t.Helper()
	var e *scipindexer.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *scipindexer.Error with reason %s", err, err, want)
	}
	if e.Reason != want {
		t.Fatalf("reason %s, want %s: %v", e.Reason, want, err)
	}
	if c := graph.CodeOf(e.Coded()); c != graph.CodeIndexingFailed {
		t.Errorf("coded as %s, want INDEXING_FAILED", c)
	}
	if e.Coded().Data["reason"] != string(want) {
		t.Errorf("coded data %v, want reason %s", e.Coded().Data, want)
	}
	return e
}
