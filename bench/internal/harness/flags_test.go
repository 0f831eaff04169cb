package harness

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// newTestFlags returns Flags registering on a flag set of their own.
func newTestFlags(name string) *Flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &Flags{Name: name, fs: fs}
}

// TestFlagsShared checks that the shared flags keep the names and
// defaults the commands have always taken, and read what is given.
func TestFlagsShared(t *testing.T) {
	register := func(f *Flags) {
		f.CorpusFlags("golang.org/x/tools@v0.52.0", "", "")
		f.WorkFlags(true, "")
		f.OutFlag("xref", "")
		f.SextantFlag("")
		f.GoplsFlag("")
		f.BinariesFlag("compare")
		f.RunsFlag(3, "rounds")
		f.SeedFlag("")
		f.SampleFlag()
		f.MaxLoadFlag("")
	}
	for _, tc := range []struct {
		name string
		args []string
		want Flags
	}{
		{"defaults", nil, Flags{Module: "golang.org/x/tools@v0.52.0", Runs: 3, Seed: 1, Sample: 20 * time.Millisecond}},
		{"given", []string{"-module", "m@v1", "-corpus", "c", "-work", "w", "-keep", "-out", "-", "-sextant", "s", "-gopls", "g",
			"-binaries", "a=x,b=y", "-runs", "5", "-seed", "7", "-sample", "1s", "-max-load", "1.5"},
			Flags{Module: "m@v1", Corpus: "c", Work: "w", Keep: true, Out: "-", Sextant: "s", Gopls: "g", Binaries: "a=x,b=y",
				Runs: 5, Seed: 7, Sample: time.Second, MaxLoad: 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newTestFlags("bench")
			register(f)
			if err := f.fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := *f
			got.Name, got.fs = "", nil
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	f := newTestFlags("bench")
	register(f)
	var names []string
	f.fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	want := []string{"binaries", "corpus", "gopls", "keep", "max-load", "module", "out", "runs", "sample", "seed", "sextant", "work"}
	if !slices.Equal(names, want) {
		t.Errorf("flags %v, want %v", names, want)
	}
	if u := f.fs.Lookup("out").Usage; !strings.Contains(u, "DATE-xref-COMMIT.json") {
		t.Errorf("-out usage %q does not name the default result file", u)
	}
}

// TestStart checks the set-up every run begins with: the module root,
// an absolute work directory that cleanup removes unless kept, and an
// existing corpus resolved through symlinks.
func TestStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(corpus, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := os.Stat(link); err != nil {
		t.Skip("symlinks are made but not followed here (Wine):", err)
	}
	realCorpus, err := filepath.EvalSymlinks(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		f := &Flags{Name: "start-test", Corpus: link, Keep: keep}
		env, cleanup, err := f.Start(ctx, true)
		if err != nil {
			cleanup()
			t.Fatal(err)
		}
		if RootModule(env.Root) != SelfModule {
			t.Errorf("root %s is not the %s module", env.Root, SelfModule)
		}
		if env.Corpus != realCorpus {
			t.Errorf("corpus %s, want %s", env.Corpus, realCorpus)
		}
		if !filepath.IsAbs(env.Work) || !strings.Contains(filepath.Base(env.Work), "start-test-") {
			t.Errorf("work directory %s: want an absolute temporary directory named after the command", env.Work)
		}
		cleanup()
		_, err = os.Stat(env.Work)
		if kept := err == nil; kept != keep {
			t.Errorf("keep %v: work directory kept %v", keep, kept)
		}
		os.RemoveAll(env.Work)
	}

	// A named work directory is made when missing and never removed.
	work := filepath.Join(dir, "work", "nested")
	f := &Flags{Name: "start-test", Work: work}
	env, cleanup, err := f.Start(ctx, false)
	cleanup()
	if err != nil {
		t.Fatal(err)
	}
	if env.Work != work || env.Corpus != "" {
		t.Errorf("env %+v, want work %s and no corpus", env, work)
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("named work directory: %v", err)
	}
}

func TestModuleName(t *testing.T) {
	for _, tc := range []struct{ module, want string }{
		{"golang.org/x/tools@v0.52.0", "tools"},
		{"github.com/spf13/cobra@v1.10.2", "cobra"},
		{"github.com/prometheus/prometheus", "prometheus"},
	} {
		if got := ModuleName(tc.module); got != tc.want {
			t.Errorf("ModuleName(%q) = %q, want %q", tc.module, got, tc.want)
		}
	}
}

// TestResultFile checks where a result goes: -out as given, else a
// file under bench/results named by date, result name and commit.
func TestResultFile(t *testing.T) {
	root := t.TempDir()
	if got := ResultFile(root, "-", "x"); got != "-" {
		t.Errorf("-out -: got %q", got)
	}
	if got := ResultFile(root, "a.json", "x"); got != "a.json" {
		t.Errorf("-out a.json: got %q", got)
	}
	got := ResultFile(root, "", "store-tools")
	want := filepath.Join(root, "bench", "results", time.Now().UTC().Format("2006-01-02")+"-store-tools-nocommit.json")
	if got != want {
		t.Errorf("default: got %q, want %q", got, want)
	}
	// WriteJSON makes bench/results when it is missing.
	if err := WriteJSON(root, "", "store-tools", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "{\n  \"n\": 1\n}\n" {
		t.Errorf("result file %q, %v", b, err)
	}
}

// TestComparisonKeys checks that a comparison's JSON keeps its keys now
// that its opening fields are a Header of their own.
func TestComparisonKeys(t *testing.T) {
	c := Comparison{Header: Header{Date: "d", Command: "c", Notes: []string{"n"}}, Binaries: []Binary{{"a", "x"}, {"b", "y"}}, Rounds: 1}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"binaries", "command", "corpus", "date", "machine", "notes", "ratios", "rounds"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
}
