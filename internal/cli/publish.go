package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
)

// ExitDatabase is publish's exit code when the database cannot be used
// (unreachable, wrong credentials, a schema newer than this build): an
// infrastructure problem, which a CI job may retry or report apart from a
// failure to index the code.
const ExitDatabase = 4

// databaseError marks a failure to open the database.
type databaseError struct{ error }

func (d databaseError) Unwrap() error { return d.error }

// runPublish indexes one checkout and publishes it as the current snapshot
// of its repository in a shared store, for CI.
func runPublish(ctx context.Context, e env, argv []string) error {
	fs := newFlagSet("publish", e)
	dbPath := dbFlag(fs)
	commit := fs.String("commit", "", "the commit the checkout is at, recorded with the snapshot (default: read from the checkout's .git); publishing fails when the checkout is at another commit")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: sextant publish --db URL [--commit SHA] [--json] [DIR]

Index the Go modules of the checkout DIR (default: the working directory)
and publish them as the current snapshot of its repository in the shared
graph, for CI. The repository is registered by name (its module path), not
by directory, so checkouts in different places publish into one repository.

Exit codes: 0 published; 1 indexing or writing failed; 2 usage error or
the checkout is not at --commit; 4 the database cannot be used.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 1 {
		return usageError{"publish takes one directory"}
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	if dbName(e, *dbPath) == "" {
		return usageError{"publish needs --db (or $SEXTANT_DB): the shared database to publish into"}
	}
	root, err := query.CanonicalDir(dir)
	if err != nil {
		return err
	}
	head := index.VCSHead(root)
	switch {
	case *commit != "" && head != "" && head != *commit:
		return usageError{fmt.Sprintf("the checkout %s is at %s, not at --commit %s", root, head, *commit)}
	case *commit != "":
		head = *commit
	}
	st, err := openStore(ctx, e, *dbPath)
	if err != nil {
		return databaseError{err}
	}
	defer st.Close()
	show := progressPrinter(e)
	res, err := index.Index(ctx, st, root, index.Options{Progress: adaptProgress(root, show), Shared: true, VCSHead: head})
	show(query.Progress{Root: root, Phase: "done"})
	if err != nil {
		return fmt.Errorf("publishing %s: %w", root, err)
	}
	warnUnavailable(e, res)
	defer res.KeepTypes()
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{
			"repository": res.Repository.Name, "commit": head, "snapshot_id": res.Snapshot.ID,
			"packages": res.Packages, "files": res.Files, "symbols": res.Symbols, "refs": res.Refs,
			"call_edges": res.CallEdges, "diagnostics": res.Diagnostics, "duration_ms": res.Duration.Milliseconds(),
		}, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	at := head
	if at == "" {
		at = "(no commit)"
	}
	fmt.Fprintf(e.stdout, "published %s at %s: snapshot %d, %d packages, %d symbols, %d references, %d diagnostics in %s\n",
		res.Repository.Name, at, res.Snapshot.ID, res.Packages, res.Symbols, res.Refs, res.Diagnostics,
		res.Duration.Round(1e6))
	return nil
}

// isDatabaseError reports whether err is a failure to use the database.
func isDatabaseError(err error) bool {
	var d databaseError
	return errors.As(err, &d) || errors.Is(err, postgres.ErrNewerSchema)
}
