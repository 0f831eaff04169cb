package graph

import (
	"context"
	"time"
)

// The statuses of a recorded test run (TestRun.Status).
const (
	TestPassed   = "pass"
	TestFailed   = "fail"
	TestSkipped  = "skip"
	TestTimedOut = "timeout"   // killed at its deadline, with every process it started
	TestNotBuilt = "not_built" // its package's test binary did not build
	TestNoCover  = "no_cover"  // it ran, but its coverage could not be read
)

// TestRecording is what is known of a repository's recording as a whole:
// when it was last written, at which commit, and by which Go release.
type TestRecording struct {
	Repository string
	RecordedAt time.Time
	VCSHead    string
	GoVersion  string
	// Known are the declarations the recorded test binaries were
	// instrumented for, each with its body hash then, whether a test ran
	// it or not: a declaration known with the hash it has now and no test
	// covering it is run by no recorded test, where one not known is new
	// since. Written by RecordTests (kept, by key, from the last write
	// naming it); not read back by TestRecording.
	Known []Covered
}

// TestRun is one top-level test (or example, or benchmark) run once with
// coverage: its status, and the declarations it executed, each with the
// hash of its body as it was then (Covered). A run that did not pass or
// fail (timed out, not built, coverage unreadable) covers nothing known.
type TestRun struct {
	Package  string // import path of the test's package (p_test for an external test)
	Dir      string // repo-relative package directory, where go test runs it
	Name     string // TestX, ExampleX, BenchmarkX
	Kind     string // test, example or benchmark
	Status   string // one of the Test* statuses
	Binary   string // the hash of what the test binary was built from: a run of the same binary is not repeated
	Message  string // why it did not pass: the compiler's or the test's last words
	Duration time.Duration
	Covered  []Covered
}

// Covered is a declaration a recorded test executed: its stable key and
// the hash of its body at recording time.
type Covered struct {
	Key      string
	BodyHash string
}

// TestCover is one recorded test run that executed the declaration Key,
// whose body then had the hash BodyHash.
type TestCover struct {
	Key      string
	BodyHash string
	Package  string
	Dir      string
	Name     string
}

// TestRecorder is an optional Store capability: per-test coverage,
// recorded by `sextant tests record` (which runs the repository's tests)
// and read by change impact. A recording belongs to a repository (by
// name), not to one snapshot: it is keyed by stable keys and body hashes,
// so what it says of a declaration whose body did not change since stays
// true across snapshots and commits.
type TestRecorder interface {
	// RecordTests adds runs to the repository's recording and sets its
	// metadata, in one transaction; a run of a package and name already
	// recorded is replaced. The recorded_at stored is rec's, or just
	// after the one it replaces when that is not earlier: every write
	// moves it forward, so it versions the runs.
	RecordTests(ctx context.Context, rec TestRecording, runs []TestRun) error
	// TestRecording returns the repository's recording metadata and its
	// runs without their Covered lists; ErrNotFound when it has none.
	// The runs may be shared with other callers: read them, never modify.
	TestRecording(ctx context.Context, repo string) (TestRecording, []TestRun, error)
	// TestsCovering returns the body hash the recording knows of each of
	// keys (see TestRecording.Known; a key it does not know is absent),
	// and the recorded runs that executed any of keys, ordered by key,
	// package and name.
	TestsCovering(ctx context.Context, repo string, keys []string) (known map[string]string, covers []TestCover, err error)
}
