package query

import "testing"

// platformNeutral skips, under -short, a test of what does not depend on
// the platform: ranking, call graphs, effects, the order of answers. The
// Windows stage (.ci/windows.sh) runs this package's binary with -short,
// after the native run has run it whole: under Wine each such test spends
// its ten seconds indexing a fixture for logic that is the same everywhere.
// Tests of paths, files, processes and the tools' output stay.
func platformNeutral(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("platform-neutral: run in full natively, skipped under -short")
	}
}
