package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestParkedReaders checks what a closed reader leaves for the next: its
// connection, with its transaction open, which the next Read ends before
// it pins (so it sees what was published meanwhile); a parked connection
// the server ended is replaced; an unclaimed one is rolled back and
// returned; and closing the store ends them all.
func TestParkedReaders(t *testing.T) {
	ctx := context.Background()
	// An application name of its own, to find the store's sessions.
	dsn := pgtest.Schema(t) + "&application_name=sextant_parked"
	// Parked until claimed, for the first part.
	postgres.SetParkFor(t, time.Hour)
	s := open(t, dsn)
	publisher := open(t, dsn) // another process, in effect
	t.Cleanup(func() { publisher.Close() })
	closed := false
	t.Cleanup(func() {
		if !closed {
			s.Close()
		}
	})
	watch, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Close(ctx) })
	// inTx counts the store's sessions inside a transaction.
	inTx := func() int {
		t.Helper()
		var n int
		if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'sextant_parked' AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	dir := txtartest.Write(t, "../../index/testdata/xref/implements.txtar")
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	publish := func() {
		t.Helper()
		if _, err := index.Index(ctx, publisher, dir, index.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	publish()
	// snapshot pins a reader, returns the snapshot it sees and closes it.
	snapshot := func() int64 {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		list, err := r.Repositories(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("repositories: %v, %v", list, err)
		}
		return list[0].Snapshot.ID
	}

	first := snapshot()
	if n := inTx(); n != 1 {
		t.Errorf("a closed reader: %d sessions in a transaction, want 1 (parked)", n)
	}
	// A publish meanwhile: the next reader ends the parked transaction
	// before its own begins, and sees the new snapshot.
	if err := os.WriteFile(filepath.Join(dir, "a", "more.go"), []byte("package a\n\nvar S Stringer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	publish()
	second := snapshot()
	if second == first {
		t.Errorf("after a publish, the reader on the parked connection sees snapshot %d, the old one", second)
	}
	before := s.RoundTrips()
	snapshot()
	if trips := s.RoundTrips() - before; trips != 1 {
		t.Errorf("a reader on a parked connection: %d round trips, want 1 (the pinning batch)", trips)
	}

	// The server ends the parked session: the next Read pins on another.
	if _, err := watch.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'sextant_parked' AND state LIKE 'idle in transaction%'`); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(); got != second {
		t.Errorf("after the parked session ended: snapshot %d, want %d", got, second)
	}

	// Unclaimed, a parked transaction is ended when its time is up.
	postgres.SetParkFor(t, 10*time.Millisecond)
	snapshot()
	deadline := time.Now().Add(30 * time.Second)
	for inTx() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a parked transaction still open 30 s after its reader closed")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Closing the store ends the parked transactions, and returns.
	postgres.SetParkFor(t, time.Hour)
	r1, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r1.Close()
	r2.Close()
	if n := inTx(); n != 2 {
		t.Errorf("two closed readers: %d sessions in a transaction, want 2 (parked)", n)
	}
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
		closed = true
	case <-time.After(30 * time.Second):
		t.Fatal("closing the store with parked connections did not return in 30 s")
	}
	deadline = time.Now().Add(30 * time.Second)
	for inTx() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a parked transaction still open 30 s after the store closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
