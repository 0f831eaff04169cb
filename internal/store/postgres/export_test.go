package postgres

import (
	"testing"
	"time"
)

// SetParkFor sets how long a closed reader's connection stays parked,
// until the test ends.
func SetParkFor(t testing.TB, d time.Duration) {
	old := parkFor
	parkFor = d
	t.Cleanup(func() { parkFor = old })
}
