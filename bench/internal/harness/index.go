package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// WithReader opens the SQLite index db, pins a reader on it and calls fn
// with it, closing both after.
func WithReader(ctx context.Context, db string, fn func(graph.Reader) error) error {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := st.Read(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// AllSymbols reads every symbol of the index db.
func AllSymbols(ctx context.Context, db string) ([]graph.Symbol, error) {
	var syms []graph.Symbol
	err := WithReader(ctx, db, func(r graph.Reader) error {
		var total int
		var err error
		syms, total, err = r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
		if err != nil {
			return fmt.Errorf("listing symbols: %w", err)
		}
		if len(syms) != total || total == 0 {
			return fmt.Errorf("listing symbols: got %d of %d", len(syms), total)
		}
		return nil
	})
	return syms, err
}

// RootModule is the module path in dir/go.mod, "" when there is none.
func RootModule(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
