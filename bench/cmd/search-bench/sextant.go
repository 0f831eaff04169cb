package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite" // the driver of the masking connection

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// searchBudget is the token budget of each search_code call: enough for
// every result of the limit to be listed.
const searchBudget = 8000

// askSextant asks every question of search_code over MCP, from `sextant
// serve` of the binary bin on its index db of dir, and returns the rank
// of each answer (0: not in the first limit), the first three names it
// gave for each (package base.qualified name) and each call's time. A
// generated question's answer has its doc comment masked in db while it
// is asked, from a server started after the masking and warmed up on
// another question: a server reads a snapshot's rows once (its name
// tables, its full-text index, the ranking's words), so one started
// before would still see the doc. A limit of 0 asks with search_code's
// defaults.
func askSextant(ctx context.Context, bin, db, dir string, qs []question, limit int) ([]int, [][]string, []time.Duration, error) {
	mask, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, nil, nil, err
	}
	defer mask.Close()
	var shared *server // for the questions that mask nothing
	defer func() {
		if shared != nil {
			shared.close()
		}
	}()
	ranks := make([]int, len(qs))
	tops := make([][]string, len(qs))
	var took []time.Duration
	for i, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		var a searchAnswer
		var d time.Duration
		if q.Key == "" {
			if shared == nil {
				if shared, err = startServer(ctx, bin, db, dir); err != nil {
					return nil, nil, nil, err
				}
			}
			a, d, err = shared.ask(ctx, q.Question, limit)
		} else {
			a, d, err = askMasked(ctx, mask, bin, db, dir, q, limit)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		took = append(took, d)
		for _, h := range a.Results {
			if len(tops[i]) < 3 {
				tops[i] = append(tops[i], path.Base(h.PackagePath)+"."+h.QualifiedName)
			}
		}
		for _, h := range a.Results {
			if q.matches(h.PackagePath, h.QualifiedName) {
				ranks[i] = h.Rank
				break
			}
		}
	}
	return ranks, tops, took, nil
}

// askMasked asks q with its answer's doc masked in db, of a server of
// its own started after the masking.
func askMasked(ctx context.Context, mask *sql.DB, bin, db, dir string, q question, limit int) (a searchAnswer, d time.Duration, err error) {
	restore, err := maskDoc(ctx, mask, q.Package, q.Answer)
	if err != nil {
		return a, 0, err
	}
	defer func() { err = errors.Join(err, restore()) }()
	srv, err := startServer(ctx, bin, db, dir)
	if err != nil {
		return a, 0, err
	}
	defer srv.close()
	return srv.ask(ctx, q.Question, limit)
}

// server is a `sextant serve` with an MCP client session to it.
type server struct {
	sess   *mcp.ClientSession
	stderr *bytes.Buffer
}

// startServer starts `sextant serve` of bin on db and dir and makes one
// untimed call, which opens the index and fills the caches.
func startServer(ctx context.Context, bin, db, dir string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--db", db, dir)
	srv := &server{stderr: &bytes.Buffer{}}
	cmd.Stderr = srv.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "search-bench", Version: "0.1.0"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting sextant serve: %v: %s", err, harness.Tail(srv.stderr.String()))
	}
	srv.sess = sess
	if _, _, err := srv.ask(ctx, "warm up the index", 0); err != nil {
		srv.close()
		return nil, err
	}
	return srv, nil
}

func (s *server) close() { s.sess.Close() }

// call calls tool with args, for its effect, and fails on a tool error.
func (s *server) call(ctx context.Context, tool string, args map[string]any) error {
	r, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err == nil && r.IsError {
		err = fmt.Errorf("%s: tool error %v", tool, r.Content)
	}
	if err != nil {
		return fmt.Errorf("%s: %v: %s", tool, err, harness.Tail(s.stderr.String()))
	}
	return nil
}

// ask asks search_code q with limit and budget searchBudget, or as an
// agent calls it (limit 5, budget 2,000) when limit is 0, and returns
// its answer and how long the call took. A question with no searchable
// words is a miss (an empty answer), not a failure.
func (s *server) ask(ctx context.Context, q string, limit int) (searchAnswer, time.Duration, error) {
	start := time.Now()
	args := map[string]any{"question": q, "limit": limit, "budget": searchBudget}
	if limit <= 0 {
		args = map[string]any{"question": q}
	}
	r, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: args})
	took := time.Since(start)
	var a searchAnswer
	if err != nil {
		return a, took, fmt.Errorf("search_code %q: %v: %s", q, err, harness.Tail(s.stderr.String()))
	}
	if r.IsError {
		return a, took, nil
	}
	b, err := json.Marshal(r.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	return a, took, err
}

// searchAnswer is what the bench reads of search_code's answer.
type searchAnswer struct {
	Results []struct {
		Rank          int    `json:"rank"`
		QualifiedName string `json:"qualified_name"`
		PackagePath   string `json:"package_path"`
	} `json:"results"`
}

// maskDoc empties the doc comment of every definition of the symbol
// qn of package pkg in the current snapshot of db, in its symbol row
// (what the ranking reads) and its full-text row (what BM25 scores), and
// returns the function that puts them back.
func maskDoc(ctx context.Context, db *sql.DB, pkg, qn string) (func() error, error) {
	type row struct {
		id       int64
		doc, fts string
	}
	var saved []row
	err := inTx(ctx, db, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT s.id, s.doc, t.doc FROM symbols s
			JOIN units u ON u.id = s.unit_id
			JOIN repositories r ON r.current_snapshot = s.snapshot_id
			JOIN symbol_text t ON t.rowid = s.id
			WHERE u.package_path = ? AND coalesce(s.qname, s.name) = ?`, pkg, qn)
		if err != nil {
			return err
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.doc, &r.fts); err != nil {
				rows.Close()
				return err
			}
			saved = append(saved, r)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		if len(saved) == 0 {
			return fmt.Errorf("masking %s.%s: no such symbol in the index", pkg, qn)
		}
		for _, r := range saved {
			if _, err := tx.ExecContext(ctx, `UPDATE symbols SET doc = '' WHERE id = ?`, r.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE symbol_text SET doc = '' WHERE rowid = ?`, r.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("masking %s.%s: %w", pkg, qn, err)
	}
	return func() error {
		return inTx(ctx, db, func(tx *sql.Tx) error {
			for _, r := range saved {
				if _, err := tx.ExecContext(ctx, `UPDATE symbols SET doc = ? WHERE id = ?`, r.doc, r.id); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `UPDATE symbol_text SET doc = ? WHERE rowid = ?`, r.fts, r.id); err != nil {
					return err
				}
			}
			return nil
		})
	}, nil
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}
