package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// BareReport is what bench/cmd/bareload prints.
type BareReport struct {
	Units          int   `json:"units"`
	Packages       int   `json:"packages"`
	PackageErrors  int   `json:"package_errors"`
	LoadMS         int64 `json:"load_ms"`
	MaxRSSSelfKiB  int64 `json:"maxrss_self_kib"`
	MaxRSSChildKiB int64 `json:"maxrss_children_kib"`
}

// BareRun is one measured bare load.
type BareRun struct {
	Usage
	Report BareReport `json:"report"`
}

// IndexSummary is what `sextant index --json` prints per repository.
type IndexSummary struct {
	Repository  string `json:"repository"`
	SnapshotID  int64  `json:"snapshot_id"`
	Packages    int    `json:"packages"`
	Files       int    `json:"files"`
	Symbols     int    `json:"symbols"`
	Diagnostics int    `json:"diagnostics"`
	DurationMS  int64  `json:"duration_ms"`
}

// RunBare runs bareload (bench/cmd/bareload, go/packages with Sextant's
// own load configuration and nothing else) on corpus and measures it,
// sampling its memory every sample.
func RunBare(ctx context.Context, bareload, corpus string, sample time.Duration) (BareRun, error) {
	cmd := exec.CommandContext(ctx, bareload, corpus)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	u, err := Measure(cmd, sample)
	if err != nil {
		return BareRun{}, fmt.Errorf("bareload: %v: %s", err, Tail(stderr.String()))
	}
	r := BareRun{Usage: u}
	if err := json.Unmarshal(stdout.Bytes(), &r.Report); err != nil {
		return r, fmt.Errorf("reading bareload output %q: %w", stdout.String(), err)
	}
	return r, nil
}

// ReadIndexRun reads what a `sextant index --json --db db` run printed
// (one repository) and the size of db and its WAL afterwards.
func ReadIndexRun(stdout []byte, db string) (IndexSummary, int64, error) {
	var sums []IndexSummary
	if err := json.Unmarshal(stdout, &sums); err != nil || len(sums) != 1 {
		return IndexSummary{}, 0, fmt.Errorf("reading sextant index output %q: %v", stdout, err)
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(db + suffix); err == nil {
			size += fi.Size()
		}
	}
	return sums[0], size, nil
}
