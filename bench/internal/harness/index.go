package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// WithReader opens a copy of the SQLite index db, pins a reader on it
// and calls fn with it, closing both after. A copy, because opening a
// database upgrades its schema to this checkout's: a database another
// binary wrote, an older one a bench compares, must stay readable by it.
func WithReader(ctx context.Context, db string, fn func(graph.Reader) error) error {
	dir, err := os.MkdirTemp("", "sextant-read-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, filepath.Base(db))
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(db+suffix, cp+suffix); err != nil && !(suffix != "" && errors.Is(err, fs.ErrNotExist)) {
			return fmt.Errorf("copying the index: %w", err)
		}
	}
	st, err := sqlite.Open(ctx, cp)
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

// Contenders are the two programs the index benchmarks run side by side:
// bench/cmd/bareload (go/packages with Sextant's own load configuration,
// nothing else) and `sextant index`, on one corpus, each measured with
// Measure.
type Contenders struct {
	Bareload, Sextant string
	Corpus, DBDir     string
	Sample            time.Duration
}

// IndexRun is one measured `sextant index --json`.
type IndexRun struct {
	Usage
	Summary IndexSummary `json:"summary"`
	// DBBytes is the size of the database file and its WAL afterwards.
	DBBytes int64  `json:"db_bytes"`
	DB      string `json:"-"`
}

// Bare runs and measures the bare load.
func (c Contenders) Bare(ctx context.Context) (BareRun, error) {
	return RunBare(ctx, c.Bareload, c.Corpus, c.Sample)
}

// Index runs `sextant index --json` into a fresh database DBDir/name.db
// with env added to the environment, and measures it. Its stderr goes to
// progress too, when not nil, as it is written.
func (c Contenders) Index(ctx context.Context, name string, progress io.Writer, env ...string) (IndexRun, error) {
	db := filepath.Join(c.DBDir, name+".db")
	RemoveDB(db)
	cmd := exec.CommandContext(ctx, c.Sextant, "index", "--json", "--db", db, c.Corpus)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, progress)
	}
	u, err := Measure(cmd, c.Sample)
	if err != nil {
		return IndexRun{}, fmt.Errorf("sextant index: %v: %s", err, Tail(stderr.String()))
	}
	r := IndexRun{Usage: u, DB: db}
	r.Summary, r.DBBytes, err = ReadIndexRun(stdout.Bytes(), db)
	return r, err
}

// NewContenders returns the contenders of an index benchmark on corpus,
// measured every sample: their databases go to work/db and, when bare is
// true, bareload is built from the module at root into work/bin. Sextant
// is left for the caller to set.
func NewContenders(ctx context.Context, root, work, corpus string, sample time.Duration, bare bool) (Contenders, error) {
	c := Contenders{Bareload: filepath.Join(work, "bin", "bareload"), Corpus: corpus, DBDir: filepath.Join(work, "db"), Sample: sample}
	if bare {
		if _, err := Build(ctx, root, "./bench/cmd/bareload", c.Bareload); err != nil {
			return c, err
		}
	}
	return c, os.MkdirAll(c.DBDir, 0o755)
}

// Warmup is the untimed first run of each contender, which fills the
// build cache (go list compiles export data for every package) and the
// page cache: minutes of work that neither would repeat on a developer's
// machine.
type Warmup struct {
	Bare    Usage `json:"bare"`
	Sextant Usage `json:"sextant"`
}

// Warm runs the bare load and `sextant index` once each, untimed, and
// removes the index.
func (c Contenders) Warm(ctx context.Context) (Warmup, error) {
	Logf("warm-up (untimed): bare load")
	wb, err := c.Bare(ctx)
	if err != nil {
		return Warmup{}, err
	}
	Logf("warm-up (untimed): sextant index")
	ws, err := c.Index(ctx, "warmup", nil)
	if err != nil {
		return Warmup{}, err
	}
	RemoveDB(ws.DB)
	return Warmup{Bare: wb.Usage, Sextant: ws.Usage}, nil
}
