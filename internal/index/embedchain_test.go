package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// writeChain writes a module whose package declares Big with methods
// methods, then E0 embedding *Big and each Ei embedding E(i-1), depth
// types in all, and a function converting the last of them to an
// interface and calling a method through it: method sets that cost
// methods × depth² from methods + depth lines.
func writeChain(t testing.TB, methods, depth int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package chain\n\ntype Big struct{}\n\n")
	for i := range methods {
		fmt.Fprintf(&b, "func (*Big) M%d() {}\n", i)
	}
	b.WriteString("\ntype E0 struct{ *Big }\n")
	for i := 1; i < depth; i++ {
		fmt.Fprintf(&b, "type E%d struct{ E%d }\n", i, i-1)
	}
	fmt.Fprintf(&b, "\ntype I interface{ M0() }\n\nfunc Use() {\n\tvar i I = &E%d{}\n\ti.M0()\n\tvar _ any = E%d{}\n}\n", depth-1, depth-1)
	for name, content := range map[string]string{
		"go.mod":   "module example.com/chain\n\ngo 1.22\n",
		"chain.go": b.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// heapGuard samples the live heap until stopped and returns its peak. A
// heap past abort, or a run past deadline, ends the test binary at once:
// the code under test cannot be stopped from outside, and must not take
// a shared machine's memory, or hang, when it regresses.
func heapGuard(t *testing.T, abort uint64, deadline time.Duration) (peak func() uint64) {
	var max atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		end := time.After(deadline)
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > max.Load() {
				max.Store(v)
				if v > abort {
					panic(fmt.Sprintf("%s: live heap %d MiB, past %d MiB", t.Name(), v>>20, abort>>20))
				}
			}
			select {
			case <-done:
				return
			case <-end:
				panic(fmt.Sprintf("%s: still running after %s", t.Name(), deadline))
			case <-tick.C:
			}
		}
	}()
	var once atomic.Bool
	return func() uint64 {
		if once.CompareAndSwap(false, true) {
			close(done)
			<-stopped
		}
		return max.Load()
	}
}

// An embedding chain of 2,000 methods × 100 levels (50 KB of source)
// made method sets, their summaries and their SSA wrappers cost methods
// × depth²: 6 GB and more. Indexed now within the declared cap
// (callgraph.MaxMethodSetCost), the types past it are named in a
// diagnostic of the package and one of the unit's call graph, and the
// heap stays small.
func TestEmbeddingChainBounded(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()
	root := writeChain(t, 2000, 100)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sextant.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	peak := heapGuard(t, 2<<30, 5*time.Minute)
	res, err := index.Index(ctx, st, root, index.Options{})
	top := peak()
	if err != nil {
		t.Fatal(err)
	}
	if top > 512<<20 {
		t.Errorf("live heap peaked at %d MiB, want under 512 MiB", top>>20)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	diags, err := r.Diagnostics(ctx, res.Repository.Name, 0)
	if err != nil {
		t.Fatal(err)
	}
	var pkgNote, unitNote bool
	for _, d := range diags {
		if !strings.Contains(d.Message, "method sets too large") {
			continue
		}
		switch {
		case d.Package == "example.com/chain" && d.Path == "chain.go" && strings.Contains(d.Message, "implementations are not recorded"):
			pkgNote = true
		case strings.Contains(d.Message, "resolved with CHA"):
			unitNote = true
		}
	}
	if !pkgNote || !unitNote {
		t.Errorf("want the cap named on the package and on the call graph, got %+v", diags)
	}
}

// Cancelling an index while it extracts the package of a large chain
// (where method sets were summarised, deaf to ctx, beside a call graph
// making their wrappers) ends it promptly: the deadline of heapGuard is
// a hang guard, not a measure.
func TestEmbeddingChainCancel(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	root := writeChain(t, 20000, 300)
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sextant.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	peak := heapGuard(t, 2<<30, time.Minute)
	_, err = index.Index(ctx, st, root, index.Options{Progress: func(p index.Progress) {
		if p.Phase == index.PhaseExtract && p.Message == "example.com/chain" {
			// Past the check before the package: cancel while it is
			// being extracted (or, if that is quick, what follows).
			time.AfterFunc(20*time.Millisecond, cancel)
		}
	}})
	peak()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
