package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/bench/impacttruth"
	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestFixture runs the whole benchmark on a small module, with the real
// sextant binary and the real go test of an instrumented copy: every
// dispatch class is observed, the pairs are the ones the code makes, and
// get_callers finds every one of them. gopls's figures are checked when
// gopls is installed.
func TestFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sextant and runs go test")
	}
	ctx := context.Background()
	dir := txtartest.Write(t, "testdata/fixture.txtar")
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sextant")
	if runtime.GOOS == "windows" {
		bin += ".exe" // what os/exec looks for there
	}
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "sextant")).CombinedOutput(); err != nil {
		t.Fatalf("building sextant: %v\n%s", err, out)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	var b strings.Builder
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	shared := &harness.Flags{Name: "soundness", Corpus: dir, Work: t.TempDir(), Sextant: bin}
	rep, err := run(ctx, options{Flags: shared, pkgs: "./...", testTimeout: 5 * 60e9, testParallel: 1, calls: callsFile}, io.MultiWriter(&b))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(b.String())
	if !rep.Tests.Passed {
		t.Fatalf("the instrumented tests failed:\n%s", rep.Tests.Log)
	}
	want := map[string]string{ // callee ← caller: dispatch
		"Square.Area ← Total": dInterface,
		"Double ← Apply":      dFuncValue,
		"Double ← Static":     dStatic,
		"Fact ← Fact":         dRecursion,
		"Fact ← TestAll":      dStatic,
		"Named.Name ← Label":  dEmbedding,
		"build ← table":       dInit,
		"register ← init":     dInit,
		"Total ← TestAll":     dStatic,
		"Apply ← TestAll":     dStatic,
		"Label ← TestAll":     dStatic,
		"Static ← TestAll":    dStatic,
		"Circle.Area ← First": dInterface,
		"First ← TestAll":     dStatic,
		"Maybe ← TestAll":     dStatic,
	}
	got := map[string]string{}
	p := rep.Observed
	for _, pr := range p.pairs {
		got[rep.prog.Decls[pr.Callee].Name+" ← "+rep.prog.Decls[pr.Caller].Name] = pr.Dispatch
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("observed %s: %q, want %q", k, got[k], d)
		}
	}
	if len(got) != len(want) {
		t.Errorf("observed %d pairs, want %d: %v", len(got), len(want), got)
	}
	// -calls writes the same pairs, by file and name, for impact-bench.
	data, err := os.ReadFile(callsFile)
	if err != nil {
		t.Fatal(err)
	}
	var calls []impacttruth.ObservedCall
	if err := json.Unmarshal(data, &calls); err != nil {
		t.Fatal(err)
	}
	wrote := map[string]bool{}
	for _, c := range calls {
		wrote[c.Callee+" ← "+c.Caller] = true
	}
	if fact := (impacttruth.ObservedCall{CallerPath: "calls_test.go", Caller: "TestAll", CalleePath: "calls.go", Callee: "Fact"}); len(wrote) != len(want) || !slices.Contains(calls, fact) {
		t.Errorf("-calls wrote %d pairs (%v), want the %d observed, %+v among them", len(wrote), calls, len(want), fact)
	}
	for k := range want {
		if !wrote[k] {
			t.Errorf("-calls lacks %s", k)
		}
	}
	sx := rep.Tools[0]
	if sx.Found != sx.Observed || sx.Observed != len(want) || len(sx.Misses) != 0 {
		t.Errorf("get_callers found %d of %d, misses %+v; want all %d", sx.Found, sx.Observed, sx.Misses, len(want))
	}
	// Listed besides the observed callers: Unused, which never ran;
	// Maybe (Double, on a branch not taken); First (Square.Area, to
	// which the interface call may go but did not); Total (Circle.Area:
	// VTA gives all elements of a []Shape one abstract value).
	if sx.Returned != sx.Observed+4 || sx.ReturnedRan != sx.Observed+3 {
		t.Errorf("get_callers lists %d callers, %d of them that ran; want %d and %d", sx.Returned, sx.ReturnedRan, sx.Observed+4, sx.Observed+3)
	}
	wantUnobserved := map[string]int{"exact static": 1, "candidate interface": 2}
	if !maps.Equal(sx.UnobservedRan, wantUnobserved) {
		t.Errorf("unobserved callers that ran: %v, want %v", sx.UnobservedRan, wantUnobserved)
	}
	var cands []string
	for _, c := range sx.UnobservedCandidates {
		f := strings.Fields(c) // "calls.go:10 Square.Area ← calls.go:18 First: candidate interface"
		cands = append(cands, f[1]+" ← "+strings.TrimSuffix(f[4], ":"))
	}
	if want := []string{"Square.Area ← First", "Circle.Area ← Total"}; !slices.Equal(cands, want) {
		t.Errorf("unobserved candidates: %q, want %q", sx.UnobservedCandidates, want)
	}
	if len(rep.Tools) > 1 {
		gp := rep.Tools[1]
		if gp.Observed != len(want) || gp.Failed != 0 {
			t.Errorf("gopls: %d observed, %d callees failed", gp.Observed, gp.Failed)
		}
		// The call hierarchy follows names: the static calls are its.
		if c := gp.ByClass[dStatic]; c.Found != c.Observed {
			t.Errorf("gopls finds %d of %d static calls", c.Found, c.Observed)
		}
	}
}
