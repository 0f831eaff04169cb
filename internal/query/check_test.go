package query

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// writeBig writes package big of n functions, each with a body, under
// root: a package the type check of the whole workspace takes seconds
// over, and that nothing in lib's dependents imports.
func writeBig(t *testing.T, root string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := range n {
		fmt.Fprintf(&b, "// F%d is generated.\nfunc F%d(x int) int {\n\tif x > %d {\n\t\treturn x - %d\n\t}\n\treturn F%d(x + 1)\n}\n\n", i, i, i, i, (i+1)%n)
	}
	if err := os.MkdirAll(filepath.Join(root, "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "big", "big.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkFixture is a server's service over testdata/answerfirst.txtar,
// never indexed: its first index (the real indexer, staged, into real
// SQLite) publishes the syntax stage, then holds until release is closed;
// the part of the workspace a question needs is checked with index.Check
// into a SQLite database of its own.
type checkFixture struct {
	svc     *Service
	root    string
	release chan struct{}
	runs    atomic.Int32 // indexing runs started
	checks  atomic.Int32 // checks started
	indexed chan error
}

func newCheckFixture(t *testing.T, withCheck bool) *checkFixture {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	root := txtartest.Write(t, filepath.Join("testdata", "answerfirst.txtar"))
	writeBig(t, root, 5000)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &checkFixture{root: root, release: make(chan struct{}), indexed: make(chan error, 1)}
	f.svc, err = New(st, []string{root}, func(ctx context.Context, root string, progress func(Progress)) error {
		f.runs.Add(1)
		_, err := index.Index(ctx, st, root, index.Options{Staged: true, Progress: func(p index.Progress) {
			progress(Progress{Root: root, Phase: p.Phase, Done: p.Done, Total: p.Total, Message: p.Message})
			if p.Phase == index.PhaseLoad {
				<-f.release // after the syntax stage: the whole index is slow
			}
		}})
		f.indexed <- err
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.SetPatience(20 * time.Second) // a server's
	if withCheck {
		f.svc.SetCheck(func(ctx context.Context, root, repo, pkg, ident string) (Checked, error) {
			f.checks.Add(1)
			cst, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "check.db"))
			if err != nil {
				return Checked{}, err
			}
			res, err := index.Check(ctx, cst, root, repo, []string{pkg}, ident)
			if err != nil {
				cst.Close()
				return Checked{}, err
			}
			return Checked{Store: cst, Packages: res.Packages}, nil
		})
	}
	t.Cleanup(func() {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
		f.svc.Close()
	})
	return f
}

func (f *checkFixture) refs(t *testing.T, args string) (*FindReferencesOutput, error) {
	t.Helper()
	tl, _ := LookupTool("find_references")
	a, err := tl.Call(context.Background(), f.svc, json.RawMessage(args), nil)
	if err != nil {
		return nil, err
	}
	return a.(*FindReferencesOutput), nil
}

// The first find_references on a workspace whose first index has not
// checked its types answers from a check of the symbol's package and its
// dependents alone, before the whole index, exactly: the same rows as
// the whole index's answer afterwards, complete. Questions about one
// name asked at once share one check; none starts a second index.
func TestReferencesBeforeTypes(t *testing.T) {
	f := newCheckFixture(t, true)
	questions := []string{
		`{"qualified_name":"Used","wait":120}`,
		`{"qualified_name":"Used","wait":120,"include_tests":true}`,
		`{"qualified_name":"T.F","wait":120}`,
		`{"qualified_name":"T","wait":120}`,
	}
	early := make([]*FindReferencesOutput, len(questions))
	var wg sync.WaitGroup
	errs := make([]error, len(questions))
	for i, q := range questions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			early[i], errs[i] = f.refs(t, q)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s before the types stage: %v", questions[i], err)
		}
	}
	select {
	case err := <-f.indexed:
		t.Fatalf("the whole index ended before the answers (%v)", err)
	default:
	}
	if n := f.checks.Load(); n != 3 {
		t.Errorf("%d checks for questions about three names, want 3: the two about Used share one", n)
	}
	for i, o := range early {
		if o.Checked == "" {
			t.Errorf("%s: no checked note on an answer before the whole index", questions[i])
		}
		if o.Completeness != "complete" {
			t.Errorf("%s: completeness %s %v, want complete", questions[i], o.Completeness, o.BlindSpots)
		}
	}

	close(f.release)
	if err := <-f.indexed; err != nil {
		t.Fatalf("indexing: %v", err)
	}
	for i, q := range questions {
		late, err := f.refs(t, q)
		if err != nil {
			t.Fatalf("%s after the index: %v", q, err)
		}
		if late.Checked != "" || late.Stage != "" {
			t.Errorf("%s after the index: checked %q, stage %q; want the complete snapshot's answer", q, late.Checked, late.Stage)
		}
		if !reflect.DeepEqual(early[i].Results, late.Results) || early[i].Total != late.Total ||
			!reflect.DeepEqual(early[i].Symbol, late.Symbol) || !reflect.DeepEqual(early[i].Related, late.Related) {
			t.Errorf("%s: the answer before the whole index differs from the index's:\nbefore: %d %+v\nafter:  %d %+v",
				q, early[i].Total, early[i].Results, late.Total, late.Results)
		}
		if late.Total < 2 {
			t.Errorf("%s: %d uses, want the fixture's several", q, late.Total)
		}
	}
	if n := f.runs.Load(); n != 1 {
		t.Errorf("%d indexing runs, want 1", n)
	}
	if n := f.checks.Load(); n != 3 {
		t.Errorf("%d checks in all, want the 3 before the index: the index answers after it", n)
	}
}
