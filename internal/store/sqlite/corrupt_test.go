package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// damagedDB publishes a snapshot large enough that the middle half of the
// file holds only rows, closes the store, and overwrites that half.
func damagedDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sextant.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := s.EnsureRepository(ctx, "/repo", "repo")
	if err != nil {
		t.Fatal(err)
	}
	publishGeneration(t, s, repo, 1, 5000)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(data) / page
	if pages < 256 {
		t.Fatalf("%d pages: too few", pages)
	}
	for i := pages / 4 * page; i < pages*3/4*page; i++ {
		data[i] = byte(0x5A ^ i)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDamagedDatabase(t *testing.T) {
	ctx := context.Background()
	path := damagedDB(t)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("the header and schema are whole, so Open should succeed: %v", err)
	}
	defer s.Close()
	err = s.QuickCheck(ctx)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeDatabaseCorrupt || !strings.Contains(ge.Message, path) || ge.Data["database"] != path ||
		!strings.Contains(ge.Message, "more lines") || len(ge.Message) > 1000 {
		t.Errorf("QuickCheck: %v, want DATABASE_CORRUPT naming %s, quoting a few lines of the report", err, path)
	}
	// A read that meets the damage is classified, keeping its context.
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.SearchText(ctx, graph.TextQuery{Words: []string{"things"}, Limit: 5000})
	r.Close()
	if err == nil {
		t.Fatal("searching every row of the damaged file succeeded")
	}
	wrapped := s.Classify(graph.Wrap(graph.CodeInternal, err, "searching"))
	if !errors.As(wrapped, &ge) || ge.Code != graph.CodeDatabaseCorrupt || !strings.HasPrefix(ge.Message, "searching: ") ||
		!strings.Contains(ge.Message, path) || !strings.Contains(ge.Message, "malformed") {
		t.Errorf("Classify: %v, want DATABASE_CORRUPT with the context, the file and SQLite's cause", wrapped)
	}
	if other := errors.New("something else"); s.Classify(other) != other {
		t.Errorf("Classify changed an error that is no damage")
	}
}

func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sextant.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not an sqlite file, ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if graph.CodeOf(err) != graph.CodeDatabaseCorrupt || !strings.Contains(err.Error(), path) {
		t.Errorf("Open of a file with no SQLite header: %v, want DATABASE_CORRUPT naming it", err)
	}
}

func TestOpenOrRebuild(t *testing.T) {
	ctx := context.Background()
	path := damagedDB(t)
	s, rebuilt, err := OpenOrRebuild(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rebuilt == nil || graph.CodeOf(rebuilt.Damage) != graph.CodeDatabaseCorrupt || !strings.HasPrefix(rebuilt.MovedTo, path+".corrupt-") {
		t.Fatalf("OpenOrRebuild of a damaged file: %+v", rebuilt)
	}
	if _, err := os.Stat(rebuilt.MovedTo); err != nil {
		t.Errorf("the damaged file is not at %s: %v", rebuilt.MovedTo, err)
	}
	if report, err := s.IntegrityCheck(ctx); err != nil || report != "ok" {
		t.Errorf("the new database: integrity_check %q, %v", report, err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if repos, err := r.Repositories(ctx); err != nil || len(repos) != 0 {
		t.Errorf("the new database holds %v, %v; want nothing", repos, err)
	}
	// A sound file is opened as it is.
	s2, rebuilt, err := OpenOrRebuild(ctx, filepath.Join(t.TempDir(), "sound.db"))
	if err != nil || rebuilt != nil {
		t.Errorf("OpenOrRebuild of a new file: %+v, %v", rebuilt, err)
	}
	if s2 != nil {
		s2.Close()
	}
}

// TestMoveAside: the write-ahead log and shared memory of a damaged file
// go with it, so that the new file does not meet the old one's log.
func TestMoveAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sextant.db")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.WriteFile(p, []byte(filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	to, err := moveAside(path, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err != nil || to != path+".corrupt-20261201T100000.000Z" {
		t.Fatalf("moveAside: %q, %v", to, err)
	}
	for _, side := range []string{"", "-wal", "-shm"} {
		if b, err := os.ReadFile(to + side); err != nil || string(b) != "sextant.db"+side {
			t.Errorf("%s%s: %q, %v", to, side, b, err)
		}
		if _, err := os.Stat(path + side); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s%s is still there", path, side)
		}
	}
}
