package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// runGC drops from the local database the repositories whose root
// directory is gone (a deleted clone, a removed temporary directory), so
// that neither answers nor the database keep them. It never touches a
// shared PostgreSQL graph, where a root is a CI checkout that is gone by
// design.
func runGC(ctx context.Context, e env, argv []string) error {
	flags := flag.NewFlagSet("gc", flag.ContinueOnError)
	flags.SetOutput(e.stderr)
	dbPath := dbFlag(flags)
	dry := flags.Bool("dry-run", false, "list the repositories that would be dropped, and drop none")
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), "Usage: sextant gc [--db PATH] [--dry-run]\n\nDrop the repositories of the local database whose root directory no longer exists.\n\nFlags:\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(argv); err != nil {
		return usageErr(err)
	}
	if flags.NArg() > 0 {
		return usageError{"gc takes flags only"}
	}
	name := dbName(e, *dbPath)
	if postgres.IsURL(name) {
		return usageError{"gc drops repositories of a local SQLite database only; a shared graph is never changed by it"}
	}
	opened, err := openStore(ctx, e, name)
	if err != nil {
		return err
	}
	st := opened.(*sqlite.Store) // not a URL, so a file
	defer st.Close()
	gone, err := goneRepositories(ctx, st)
	if err != nil {
		return err
	}
	for _, r := range gone {
		if *dry {
			fmt.Fprintf(e.stdout, "would drop %s (%s is gone)\n", r.Name, r.Root)
			continue
		}
		if err := st.DropRepository(ctx, r.Name); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "dropped %s (%s is gone)\n", r.Name, r.Root)
	}
	if len(gone) == 0 {
		fmt.Fprintln(e.stdout, "nothing to drop: every repository's root exists")
	}
	return nil
}

// goneRepositories lists the repositories of st whose root does not exist.
// A root that cannot be checked (permissions) is kept.
func goneRepositories(ctx context.Context, st graph.Store) ([]graph.RepositoryStatus, error) {
	repos, err := graph.Repositories(ctx, st)
	if err != nil {
		return nil, err
	}
	var gone []graph.RepositoryStatus
	for _, rp := range repos {
		if _, err := os.Stat(rp.Root); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, rp)
		}
	}
	return gone, nil
}
