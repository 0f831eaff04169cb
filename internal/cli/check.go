package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// checkFunc adapts index.Check to the query layer's CheckFunc, for a
// server: each check writes into a SQLite database of its own, in a new
// temporary directory only the user may read (os.MkdirTemp), removed when
// the session closes the store.
func checkFunc() query.CheckFunc {
	return func(ctx context.Context, root, repo string, pkgs []string) (query.Checked, error) {
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
		res, err := index.Check(ctx, cs, root, repo, pkgs)
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
