package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sextant-dev/sextant/internal/graph"
)

// isCorrupt reports whether err's cause is SQLite's report of a damaged
// file: SQLITE_CORRUPT (a page that is not what the b-tree says) or
// SQLITE_NOTADB (no SQLite header), with any extended code.
func isCorrupt(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// corruptError is DATABASE_CORRUPT for the database file at path, with
// SQLite's cause in the message: the index holds nothing that indexing
// cannot rebuild, so the way out is to re-index.
func corruptError(path, cause string, err error) *graph.Error {
	return &graph.Error{Code: graph.CodeDatabaseCorrupt, Err: err,
		Message: fmt.Sprintf("the index database %s is damaged (%s); it holds only what indexing rebuilds: "+
			"`sextant index DIR` moves it aside and indexes into a new one", path, cause),
		Data: map[string]any{"database": path}}
}

// Classify returns err as DATABASE_CORRUPT, naming the file and SQLite's
// cause, when SQLite reported the file damaged somewhere in its chain,
// and err unchanged otherwise. The query layer passes every failed call
// through it, so that an agent sees what went wrong (and a person how to
// fix it) instead of INTERNAL with the cause dropped.
func (s *Store) Classify(err error) error {
	var ge *graph.Error
	if err == nil || errors.As(err, &ge) && ge.Code == graph.CodeDatabaseCorrupt || !isCorrupt(err) {
		return err
	}
	var se *msqlite.Error
	errors.As(err, &se)
	e := corruptError(s.path, se.Error(), err)
	if ge != nil {
		e.Message = ge.Message + ": " + e.Message
	}
	return e
}

// QuickCheck runs PRAGMA quick_check, which reads every page of the file
// (about 30 ms a megabyte) and verifies its b-trees, and returns
// DATABASE_CORRUPT when the file is damaged. Callers run it before they
// write: SQLite writes into a damaged file wherever the damage is not in
// its way, and the snapshot published there may never be read back.
func (s *Store) QuickCheck(ctx context.Context) error {
	rows, err := s.rdb.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return s.checkError(err)
	}
	defer rows.Close()
	var report []string // its lines: a row may hold several
	for rows.Next() {
		var row string
		if err := rows.Scan(&row); err != nil {
			return s.checkError(err)
		}
		report = append(report, strings.Split(strings.TrimSpace(row), "\n")...)
	}
	if err := rows.Err(); err != nil {
		return s.checkError(err)
	}
	if len(report) == 1 && report[0] == "ok" {
		return nil
	}
	cause := "quick_check: " + strings.Join(report[:min(len(report), maxReportLines)], "; ")
	if len(report) > maxReportLines {
		cause += fmt.Sprintf("; and %d more lines", len(report)-maxReportLines)
	}
	return corruptError(s.path, cause, nil)
}

// maxReportLines bounds how much of a quick_check report an error quotes.
const maxReportLines = 3

func (s *Store) checkError(err error) error {
	if isCorrupt(err) {
		return corruptError(s.path, err.Error(), err)
	}
	return fmt.Errorf("checking %s: %w", s.path, err)
}

// Rebuilt says that OpenOrRebuild found the database damaged and moved it
// aside.
type Rebuilt struct {
	Damage  error  // the DATABASE_CORRUPT error that was found
	MovedTo string // where the damaged file is now
}

// OpenOrRebuild opens the database at path as Open does, checks it with
// QuickCheck, and when it is damaged moves it aside (to
// PATH.corrupt-TIME, with its -wal and -shm files) and opens a new, empty
// one in its place, saying so in the returned Rebuilt. The indexer opens
// its database this way: the index is a cache of what indexing computes,
// so a damaged one is rebuilt rather than written into. Servers still
// open on the old file keep reading it until they are restarted.
func OpenOrRebuild(ctx context.Context, path string) (*Store, *Rebuilt, error) {
	s, err := Open(ctx, path)
	if err == nil {
		if err = s.QuickCheck(ctx); err == nil {
			return s, nil, nil
		}
		s.Close()
	}
	if graph.CodeOf(err) != graph.CodeDatabaseCorrupt {
		return nil, nil, err
	}
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		return nil, nil, err
	}
	moved, merr := moveAside(abs, time.Now())
	if merr != nil {
		return nil, nil, fmt.Errorf("%w; moving it aside failed: %v", err, merr)
	}
	s, oerr := Open(ctx, abs)
	if oerr != nil {
		return nil, nil, oerr
	}
	return s, &Rebuilt{Damage: err, MovedTo: moved}, nil
}

// moveAside renames the database file at path, and its -wal and -shm
// files when there are any (a new file must not meet the old one's
// write-ahead log), to PATH.corrupt-TIME.
func moveAside(path string, now time.Time) (string, error) {
	to := path + ".corrupt-" + now.UTC().Format("20060102T150405.000Z")
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	for _, side := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+side, to+side); err != nil && !errors.Is(err, os.ErrNotExist) {
			return to, err
		}
	}
	return to, nil
}
