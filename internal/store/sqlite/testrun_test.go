package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// dropTestRuns turns a database back into one from before schema version
// 11, for the upgrade tests.
var dropTestRuns = []string{`DROP TABLE test_decls`, `DROP TABLE test_cover`, `DROP TABLE test_runs`, `DROP TABLE test_recordings`}

// TestUpgradeToTestRuns opens a version 11 database, which has no test
// recordings: the upgrade adds their tables in place, the snapshots stay,
// and a recording is written and read back.
func TestUpgradeToTestRuns(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 11, dropTestRuns...)
	repos, err := graph.Repositories(ctx, s)
	if err != nil || len(repos) != 1 {
		t.Fatalf("repositories after upgrade = %v, %v; want the one", repos, err)
	}
	rec := graph.TestRecording{Repository: "old", RecordedAt: time.Now()}
	if err := s.RecordTests(ctx, rec, []graph.TestRun{{Package: "old/a", Dir: "a", Name: "TestA", Kind: "test", Status: graph.TestPassed,
		Covered: []graph.Covered{{Key: "K", BodyHash: "h"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, cov, err := s.TestsCovering(ctx, "old", []string{"K"}); err != nil || len(cov) != 1 {
		t.Fatalf("TestsCovering after upgrade = %v, %v", cov, err)
	}
}
