package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/par"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// checkFunc adapts index.Check to the query layer's CheckFunc, for a
// server: each check writes into a SQLite database of its own, in a new
// temporary directory only the user may read (os.MkdirTemp), removed when
// the session closes the store. While it runs it holds first, at which
// the server's indexing runs wait between packages (see indexFunc): on
// two cores the question's packages are checked at full speed instead of
// sharing the cores with the whole repository's.
func checkFunc(first *par.Gate) query.CheckFunc {
	return func(ctx context.Context, root, repo, pkg, ident string) (query.Checked, error) {
		defer first.Hold()()
		dir, err := os.MkdirTemp("", "sextant-check-")
		if err != nil {
			return query.Checked{}, err
		}
		st, err := sqlite.Open(ctx, filepath.Join(dir, "check.db"))
		if err != nil {
			os.RemoveAll(dir)
			return query.Checked{}, err
		}
		cs := checkStore{Store: st, dir: dir}
		defer indexingGC()()
		res, err := index.Check(ctx, cs, root, repo, []string{pkg}, ident)
		if err != nil {
			cs.Close()
			return query.Checked{}, err
		}
		return query.Checked{Store: cs, Packages: res.Packages}, nil
	}
}

// checkStore is the store of one check, whose Close removes its
// directory.
type checkStore struct {
	*sqlite.Store
	dir string
}

func (c checkStore) Close() error {
	err := c.Store.Close()
	if rerr := os.RemoveAll(c.dir); err == nil {
		err = rerr
	}
	return err
}

// yielding makes index wait, between the packages it checks and
// extracts, while a check holds first (see checkFunc).
func yielding(first *par.Gate, index query.IndexFunc) query.IndexFunc {
	return func(ctx context.Context, root string, progress func(query.Progress)) error {
		return index(par.WithGate(ctx, first), root, progress)
	}
}
