package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// roundTrips is the floor under every PostgreSQL call: one statement that
// does nothing (SELECT $1::int) on one connection, timed back to back and
// right after the connection has been idle for idleGap, the calls of the
// two kinds alternated so that the machine's load hits both alike. A
// store call waits for at least one round trip after an idle gap, since
// a request's own work (and, in timeCalls, the SQLite call beside it)
// comes between two of them; the second figure is what that costs here.
type roundTrips struct {
	BackToBack harness.Latency `json:"back_to_back"`
	AfterIdle  harness.Latency `json:"after_idle"`
	IdleGap    time.Duration   `json:"idle_gap_ns"`
}

// idleGap is about what a find_references call over SQLite takes, the
// time a PostgreSQL backend sits idle between two calls of timeCalls.
const idleGap = 500 * time.Microsecond

// timeRoundTrips measures roundTrips with n statements of each kind.
func timeRoundTrips(ctx context.Context, dsn string, n int) (roundTrips, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return roundTrips{}, fmt.Errorf("round trips: %w", err)
	}
	defer conn.Close(ctx)
	one := func(i int) (time.Duration, error) {
		start := time.Now()
		var got int
		if err := conn.QueryRow(ctx, `SELECT $1::int`, i).Scan(&got); err != nil {
			return 0, fmt.Errorf("round trips: %w", err)
		}
		if got != i {
			return 0, fmt.Errorf("round trips: SELECT %d returned %d", i, got)
		}
		return time.Since(start), nil
	}
	// The first prepares the statement on the connection.
	if _, err := one(0); err != nil {
		return roundTrips{}, err
	}
	var busy, idle []time.Duration
	for i := range n {
		d, err := one(i)
		if err != nil {
			return roundTrips{}, err
		}
		busy = append(busy, d)
		time.Sleep(idleGap)
		if d, err = one(i); err != nil {
			return roundTrips{}, err
		}
		idle = append(idle, d)
	}
	return roundTrips{BackToBack: harness.Summarize(busy), AfterIdle: harness.Summarize(idle), IdleGap: idleGap}, nil
}
