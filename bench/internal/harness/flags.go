package harness

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Flags are the flags the commands share: which corpus, where to work,
// which binaries, how many rounds, where the result goes. A command
// registers the ones it takes, each with its own default, so that every
// command spells a shared flag the same way and means the same by it,
// and its main keeps only the flags that are its own.
//
// A usage of "" takes the shared wording of the flag; a command whose
// flag means a little more (a corpus it edits, say) passes its own.
type Flags struct {
	// Name is the command's name: the prefix of its temporary work
	// directory and of its error messages.
	Name string

	Module   string        // -module: the pinned corpus, MODULE@VERSION
	Corpus   string        // -corpus: an existing directory instead of -module
	Work     string        // -work: the work directory
	Keep     bool          // -keep: keep the work directory
	Out      string        // -out: the result file, "-" for stdout
	Sextant  string        // -sextant: a prebuilt sextant binary
	Gopls    string        // -gopls: the gopls binary
	Binaries string        // -binaries: NAME=PATH,... to compare
	Runs     int           // -runs: measured rounds of each contender
	Seed     uint64        // -seed: the seed of a sample or query set
	Sample   time.Duration // -sample: how often child memory is sampled
	MaxLoad  float64       // -max-load: wait for a quiet machine first
	Skip     string        // -skip: comma-separated parts of the run to leave out

	fs *flag.FlagSet
}

// NewFlags returns the shared flags of the command name, registered on
// the program's command line as the command asks for them.
func NewFlags(name string) *Flags {
	return &Flags{Name: name, fs: flag.CommandLine}
}

// or is usage, or def when usage is "".
func or(usage, def string) string {
	if usage != "" {
		return usage
	}
	return def
}

// CorpusFlags registers -module with its default and -corpus.
func (f *Flags) CorpusFlags(module, moduleUsage, corpusUsage string) {
	f.fs.StringVar(&f.Module, "module", module, or(moduleUsage, "corpus: the pinned module to index, MODULE@VERSION"))
	f.fs.StringVar(&f.Corpus, "corpus", "", or(corpusUsage, "index this existing directory instead of fetching -module"))
}

// WorkFlags registers -work, and -keep when keep is true.
func (f *Flags) WorkFlags(keep bool, workUsage string) {
	f.fs.StringVar(&f.Work, "work", "", or(workUsage, "work directory (default: a new temporary directory, removed at the end unless -keep)"))
	if keep {
		f.fs.BoolVar(&f.Keep, "keep", false, "keep the work directory")
	}
}

// OutFlag registers -out; result names the default file,
// bench/results/DATE-RESULT-COMMIT.json (see ResultPath).
func (f *Flags) OutFlag(result, usage string) {
	f.fs.StringVar(&f.Out, "out", "", or(usage, "write the results as JSON here; - for stdout (default bench/results/DATE-"+result+"-COMMIT.json)"))
}

// SextantFlag registers -sextant.
func (f *Flags) SextantFlag(usage string) {
	f.fs.StringVar(&f.Sextant, "sextant", "", or(usage, "use this sextant binary instead of building ./cmd/sextant"))
}

// GoplsFlag registers -gopls, the binary FindGopls falls back from.
func (f *Flags) GoplsFlag(usage string) {
	f.fs.StringVar(&f.Gopls, "gopls", "", or(usage, "gopls binary (default: gopls on PATH, else $(go env GOPATH)/bin/gopls)"))
}

// BinariesFlag registers -binaries (see ParseBinaries).
func (f *Flags) BinariesFlag(usage string) {
	f.fs.StringVar(&f.Binaries, "binaries", "", usage)
}

// RunsFlag registers -runs.
func (f *Flags) RunsFlag(runs int, usage string) {
	f.fs.IntVar(&f.Runs, "runs", runs, usage)
}

// SeedFlag registers -seed.
func (f *Flags) SeedFlag(usage string) {
	f.fs.Uint64Var(&f.Seed, "seed", 1, or(usage, "seed of the query set"))
}

// SampleFlag registers -sample, how often Measure samples memory.
func (f *Flags) SampleFlag() {
	f.fs.DurationVar(&f.Sample, "sample", 20*time.Millisecond, "how often child memory is sampled from /proc")
}

// MaxLoadFlag registers -max-load (see WaitQuiet).
func (f *Flags) MaxLoadFlag(usage string) {
	f.fs.Float64Var(&f.MaxLoad, "max-load", 0, or(usage, "before measuring, wait (up to 15 minutes) until the 1-minute load average is at most this; 0 does not wait"))
}

// SkipFlag registers -skip; usage names the parts a command has.
func (f *Flags) SkipFlag(usage string) {
	f.fs.StringVar(&f.Skip, "skip", "", usage)
}

// Skips reports whether -skip names part.
func (f *Flags) Skips(part string) bool {
	for _, s := range strings.Split(f.Skip, ",") {
		if strings.TrimSpace(s) == part {
			return true
		}
	}
	return false
}

// Usage sets the -h text: the command line, then what the command does,
// then the flags.
func (f *Flags) Usage(what string) {
	f.fs.Usage = func() {
		fmt.Fprintf(f.fs.Output(), "Usage: go run ./bench/cmd/%s [flags]\n\n%s\nFlags:\n", f.Name, what)
		f.fs.PrintDefaults()
	}
}

// Fail stops a command whose flags do not go together: the message, or
// the usage when msg is "", and exit status 2.
func (f *Flags) Fail(msg string) {
	if msg == "" {
		f.fs.Usage()
	} else {
		fmt.Fprintln(os.Stderr, f.Name+":", msg)
	}
	os.Exit(2)
}

// CommandLine is the command as a reader reruns it, for a result file.
func (f *Flags) CommandLine() string {
	return strings.TrimSpace("go run ./bench/cmd/" + f.Name + " " + strings.Join(os.Args[1:], " "))
}

// Env is where a command's run stands: the sextant module it builds
// from, its work directory and the corpus it measures.
type Env struct {
	Root   string // the sextant module's root
	Work   string // absolute work directory
	Corpus string // the corpus, absolute with symlinks resolved ("" when not asked for)
}

// Start is the set-up every run begins with: the module root, the work
// directory (-work, or a temporary one that cleanup removes unless
// -keep) and, when corpus is true, the corpus (-corpus, or a fresh copy
// of -module fetched into the work directory). Call cleanup when the run
// ends, whether or not Start failed.
func (f *Flags) Start(ctx context.Context, corpus bool) (Env, func(), error) {
	var env Env
	var err error
	cleanup := func() {}
	if env.Root, err = ModuleRoot(ctx); err != nil {
		return env, cleanup, err
	}
	if env.Work, cleanup, err = WorkDir(f.Work, f.Name, f.Keep); err != nil {
		return env, cleanup, err
	}
	if corpus {
		env.Corpus, err = CorpusDir(ctx, f.Module, f.Corpus, env.Work)
	}
	return env, cleanup, err
}

// Run is the whole of a command's run: Main with the body given the
// Env of Start(ctx, corpus), and the work directory cleaned up after.
func (f *Flags) Run(corpus bool, body func(ctx context.Context, env Env) error) {
	Main(f.Name, func(ctx context.Context) error {
		env, cleanup, err := f.Start(ctx, corpus)
		defer cleanup()
		if err != nil {
			return err
		}
		return body(ctx, env)
	})
}

// CorpusDir returns dir, absolute with symlinks resolved as the indexer
// records it, or when dir is "" a fresh copy of module fetched into work.
func CorpusDir(ctx context.Context, module, dir, work string) (string, error) {
	var err error
	if dir == "" {
		dir, err = FetchModule(ctx, module, work)
	} else {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(dir)
}

// SextantBinary returns the sextant binary a run measures: -sextant
// when given, else ./cmd/sextant of the module at root built into dir.
func (f *Flags) SextantBinary(ctx context.Context, root, dir string) (string, error) {
	if f.Sextant != "" {
		return f.Sextant, nil
	}
	return Build(ctx, root, "./cmd/sextant", filepath.Join(dir, "sextant"))
}

// Build builds the package pkg (./cmd/sextant, ./bench/cmd/bareload) of
// the module at root into the file out, and returns out.
func Build(ctx context.Context, root, pkg, out string) (string, error) {
	Logf("building %s", path.Base(pkg))
	if _, err := GoOutput(ctx, root, nil, "build", "-o", out, pkg); err != nil {
		return "", err
	}
	return out, nil
}

// ModuleName names a MODULE@VERSION in a result file's name: the last
// element of the module path ("tools" for golang.org/x/tools@v0.52.0).
func ModuleName(module string) string {
	modPath, _, _ := strings.Cut(module, "@")
	return strings.ReplaceAll(filepath.Base(modPath), "/", "-")
}
