package scipindexer

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/proctree"
)

// Runner runs the indexers as its Config says.
type Runner struct {
	Config Config
}

// NewRunner returns a Runner with cfg's zero settings filled by the
// defaults.
func NewRunner(cfg Config) *Runner { return &Runner{Config: cfg.withDefaults()} }

// Output is an index an indexer wrote, in a private directory of its own
// that Remove deletes.
type Output struct {
	Project Project
	Tool    string
	// Path is the index file.
	Path    string
	Size    int64
	Elapsed time.Duration
	// Log is the last StderrTail bytes the indexer printed (its warnings).
	Log string
	dir string
}

// Remove deletes the index and its directory.
func (o *Output) Remove() error { return os.RemoveAll(o.dir) }

// tool returns the name, configuration and install command of p's
// indexer.
func (r *Runner) tool(l Language) (name string, t Tool, install string, err error) {
	switch l {
	case TypeScript:
		return TypeScriptCommand, r.Config.TypeScript, TypeScriptInstall, nil
	case Python:
		return PythonCommand, r.Config.Python, PythonInstall, nil
	}
	return "", Tool{}, "", fmt.Errorf("no SCIP indexer for language %q", l)
}

// Available reports whether the indexer of language l can run: nil, or
// an *Error with reason NotInstalled naming the command that installs it,
// or Disabled.
func (r *Runner) Available(l Language) error {
	_, err := r.lookPath(l, "", ".")
	return err
}

// lookPath finds l's indexer for the project dir of root ("" for no
// root), on the PATH the indexer would get (see safePath).
func (r *Runner) lookPath(l Language, root, dir string) (string, error) {
	name, t, install, err := r.tool(l)
	if err != nil {
		return "", err
	}
	if t.Disabled {
		return "", &Error{Reason: Disabled, Tool: name, Project: dir, Message: "disabled in the configuration ([scip." + string(l) + "] disabled = true)"}
	}
	command := t.Command
	if command == "" {
		command = name
	}
	path, err := lookIn(safePath(os.Getenv("PATH"), root), command)
	if err != nil {
		msg := fmt.Sprintf("%s is not on PATH; install it with `%s`", command, install)
		if command != name {
			msg = fmt.Sprintf("%s (configured) cannot be run; the default is installed with `%s`", command, install)
		}
		return "", &Error{Reason: NotInstalled, Tool: name, Project: dir, Message: msg, Err: err}
	}
	return path, nil
}

// Index runs p's indexer on p under root, within the configured deadline
// and ctx, and returns its index: a file in a directory of its own, mode
// 0700, that the caller removes (Output.Remove). The indexer runs in p's
// directory in a process tree (internal/proctree) that is killed whole at
// the deadline, when ctx ends, and with Sextant; its environment holds
// only what it needs to find its interpreter (see env). A failure is an
// *Error: NotInstalled, TimedOut, Canceled, Crashed, BadOutput or
// StartFailed.
//
// The index is checked only to start as a SCIP Index does (see
// checkIndex); decoding it is the importer's.
func (r *Runner) Index(ctx context.Context, root string, p Project) (*Output, error) {
	name, _, _, err := r.tool(p.Language)
	if err != nil {
		return nil, err
	}
	fail := func(reason Reason, err error, format string, args ...any) *Error {
		return &Error{Reason: reason, Tool: name, Project: p.Dir, Message: fmt.Sprintf(format, args...), Err: err}
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fail(StartFailed, err, "resolving the root")
	}
	projDir := filepath.Join(absRoot, filepath.FromSlash(p.Dir))
	command, err := r.lookPath(p.Language, absRoot, p.Dir)
	if err != nil {
		return nil, err
	}
	// os.MkdirTemp makes the directory 0700 under a name no one else can
	// have made first: the index, and the indexer's own temporary files,
	// are the user's alone.
	dir, err := os.MkdirTemp("", "sextant-scip-")
	if err != nil {
		return nil, fail(StartFailed, err, "creating a private directory for the index")
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	out := filepath.Join(dir, "index.scip")
	args, err := r.args(p, absRoot, projDir, dir, out)
	if err != nil {
		return nil, fail(StartFailed, err, "preparing the run")
	}

	timeout := r.Config.Timeout.Duration
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(command, args...)
	cmd.Dir = projDir
	cmd.Env = r.env(p.Language, dir, absRoot)
	log := proctree.NewTail(StderrTail)
	cmd.Stdout, cmd.Stderr = log, log
	// Grandchildren holding the output pipes must not stall the reaping.
	cmd.WaitDelay = time.Second
	tree := proctree.New()
	capMB := 0
	if r.Config.MemoryMB > 0 && !tree.PolledCap() {
		capMB = r.Config.MemoryMB
	}
	start := time.Now()
	if err := tree.Start(cmd, capMB); err != nil {
		return nil, fail(StartFailed, err, "starting %s", command)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		tree.Release() // ends what the indexer left running
		exited <- err
	}()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-runCtx.Done():
		tree.Kill()
		<-exited
		e := fail(TimedOut, nil, "did not finish within its deadline of %s and was stopped with every process it started", timeout)
		if ctx.Err() != nil {
			e = fail(Canceled, ctx.Err(), "stopped with every process it started: the run was cancelled")
		}
		e.Output = log.String(StderrTail)
		return nil, e
	}
	elapsed := time.Since(start)
	if waitErr != nil {
		status := waitErr.Error()
		if ps := cmd.ProcessState; ps != nil {
			status = ps.String()
			if sig := proctree.SignalOf(ps); sig != "" {
				status = "killed by " + sig
			}
		}
		e := fail(Crashed, nil, "failed (%s) after %s", status, elapsed.Round(time.Millisecond))
		e.Output = log.String(StderrTail)
		if name == TypeScriptCommand && strings.Contains(e.Output, noFilesIndexed) && !strings.Contains(e.Output, compilerError) {
			// Nothing to index, and no compiler error (an unreadable
			// configuration ends the same way, after its error).
			e.Reason, e.Message = Empty, "no input files: its configuration includes none"
		}
		return nil, e
	}
	size, err := checkIndex(out)
	if err != nil {
		e := fail(BadOutput, err, "exited cleanly but wrote no usable index")
		e.Output = log.String(StderrTail)
		return nil, e
	}
	ok = true
	return &Output{Project: p, Tool: name, Path: out, Size: size, Elapsed: elapsed, Log: log.String(StderrTail), dir: dir}, nil
}

// noFilesIndexed is what scip-typescript 0.4.0 says when a project's
// configuration includes no file, and compilerError starts each of the
// TypeScript compiler's errors it prints (TS5083: a configuration it
// cannot read), after which it says the same.
const (
	noFilesIndexed = "no files got indexed"
	compilerError  = "error TS"
)

// args are the indexer's arguments for p of root, whose directory is
// projDir;
// what the run needs besides the index (a tsconfig.json made for a
// project that has none) goes in the private directory dir.
func (r *Runner) args(p Project, root, projDir, dir, out string) ([]string, error) {
	switch p.Language {
	case Python:
		// Both name and version given: scip-python infers neither, so
		// it reads no pyproject.toml above the project and runs no git.
		args := []string{"index", "--project-name", p.Name, "--project-version", "HEAD", "--output", out, "--quiet", "--cwd", projDir}
		if !havePip(safePath(os.Getenv("PATH"), root)) {
			// scip-python asks pip which packages are installed, and
			// fails without one: with none, it is told there are none,
			// and the project's own code is indexed all the same.
			env := filepath.Join(dir, "environment.json")
			if err := os.WriteFile(env, []byte("[]\n"), 0o600); err != nil {
				return nil, err
			}
			args = append(args, "--environment", env)
		}
		return append(args, "."), nil
	case TypeScript:
		project := projDir
		if p.Config == "" || strings.HasSuffix(p.Config, "jsconfig.json") {
			// scip-typescript's --infer-tsconfig writes a tsconfig.json
			// into the project; Sextant writes no file there, so it
			// makes one in its own directory instead.
			cfg, err := madeTSConfig(p, projDir)
			if err != nil {
				return nil, err
			}
			project = filepath.Join(dir, "tsconfig.json")
			if err := os.WriteFile(project, cfg, 0o600); err != nil {
				return nil, err
			}
		}
		return []string{"index", "--cwd", projDir, "--output", out, "--no-progress-bar", project}, nil
	}
	return nil, fmt.Errorf("no SCIP indexer for language %q", p.Language)
}

// havePip reports whether pip is on path, as scip-python looks for it.
func havePip(path string) bool {
	for _, name := range []string{"pip3", "pip"} {
		if _, err := lookIn(path, name); err == nil {
			return true
		}
	}
	return false
}

// madeTSConfig is the tsconfig.json a project without one is indexed
// with: JavaScript allowed, nothing emitted, its files those under its
// directory but in the nested projects and the directories discovery
// skips. A jsconfig.json is extended, its include kept when it has one.
func madeTSConfig(p Project, projDir string) ([]byte, error) {
	slash := filepath.ToSlash(projDir)
	cfg := map[string]any{
		"compilerOptions": map[string]any{"allowJs": true, "noEmit": true},
	}
	ownInclude := false
	var exclude []string
	if p.Config != "" {
		cfg["extends"] = slash + "/" + pathBase(p.Config)
		if data, err := readConfigIn(projDir, pathBase(p.Config)); err == nil {
			var c tsConfig
			if json.Unmarshal(jsonc(data), &c) == nil {
				ownInclude = len(c.Include) > 0 || len(c.Files) > 0
				// An exclude of ours replaces the extended one: keep its
				// patterns, made absolute, as TypeScript reads them
				// relative to the file they are written in.
				for _, e := range c.Exclude {
					if !filepath.IsAbs(e) && !strings.HasPrefix(e, "/") {
						e = slash + "/" + strings.TrimPrefix(e, "./")
					}
					exclude = append(exclude, e)
				}
			}
		}
	}
	if !ownInclude {
		cfg["include"] = []string{slash + "/**/*"}
		for _, n := range p.Nested {
			rel := strings.TrimPrefix(n, p.Dir+"/")
			if p.Dir == "." {
				rel = n
			}
			exclude = append(exclude, slash+"/"+rel)
		}
		for _, d := range []string{"dist", "build", "out", "vendor", "bower_components", "jspm_packages"} {
			exclude = append(exclude, slash+"/**/"+d)
		}
		cfg["exclude"] = exclude
	}
	return json.MarshalIndent(cfg, "", "  ")
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// readConfigIn reads the configuration file name in dir through os.Root.
func readConfigIn(dir, name string) ([]byte, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxConfigBytes))
}

// safePath is the list of directories path (a PATH) names, less those an
// indexer must not find programs in: relative ones (an empty entry or
// "." is the working directory, the project) and those inside root, the
// repository, whose programs are its code. Sextant does not run them:
// neither the indexer nor what it looks up (node, pip, python).
func safePath(path, root string) string {
	var realRoot string
	if root != "" {
		realRoot, _ = filepath.EvalSymlinks(root)
	}
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		if root != "" && (inside(root, d) || realRoot != "" && inside(realRoot, d)) {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil && root != "" && (inside(root, real) || realRoot != "" && inside(realRoot, real)) {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// inside reports whether the absolute path p is dir or under it.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// lookIn finds command as exec.LookPath does, on the directories of path
// instead of $PATH. A command holding a separator is taken as it is.
func lookIn(path, command string) (string, error) {
	if strings.ContainsAny(command, `/\`) {
		return exec.LookPath(command)
	}
	for _, d := range filepath.SplitList(path) {
		if p, err := exec.LookPath(filepath.Join(d, command)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", command, exec.ErrNotFound)
}

// passEnv are the variables an indexer gets from Sextant's environment:
// where programs and the user's files are, the locale, and which Python
// environment is the user's (scip-python asks that interpreter which
// packages are installed). Nothing else of Sextant's environment reaches
// it (no NODE_OPTIONS that could load a module, no credentials).
var passEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE",
	"VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PYENV_VERSION",
	// Windows: what a process needs to start, find programs and its
	// profile.
	"SystemRoot", "SYSTEMROOT", "SystemDrive", "windir", "WINDIR", "ComSpec", "COMSPEC", "PATHEXT",
	"USERPROFILE", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
}

// env is the indexer's environment: passEnv, its temporary directory the
// private one (scip-python writes a script there and runs it), Node's
// heap capped, and for scip-python pip kept off the network and Python
// from importing the project's directory when it runs pip or its script.
func (r *Runner) env(l Language, tmp, root string) []string {
	var env []string
	seen := map[string]bool{}
	for _, k := range passEnv {
		if v, ok := os.LookupEnv(k); ok && !seen[strings.ToUpper(k)] {
			if strings.EqualFold(k, "PATH") {
				v = safePath(v, root)
			}
			seen[strings.ToUpper(k)] = true
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	if mb := r.Config.MemoryMB; mb > 0 {
		// Node's heap limit sits below the hard cap, so that it collects
		// garbage before the kernel refuses it memory.
		env = append(env, "NODE_OPTIONS=--max-old-space-size="+strconv.Itoa(mb*3/4))
	}
	if l == Python {
		env = append(env,
			"PIP_DISABLE_PIP_VERSION_CHECK=1", // pip list asks PyPI for pip's version otherwise
			"PIP_NO_INDEX=1",
			"PIP_NO_INPUT=1",
			"PYTHONSAFEPATH=1", // the working directory (the project) is not imported from
			"PYTHONDONTWRITEBYTECODE=1",
		)
	}
	if runtime.GOOS == "windows" {
		// Windows looks names up without regard to case; keep one of each.
		return dedupFold(env)
	}
	return env
}

func dedupFold(env []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !seen[strings.ToUpper(k)] {
			seen[strings.ToUpper(k)] = true
			out = append(out, kv)
		}
	}
	return out
}

// checkIndex checks that the file at path starts as a SCIP Index does:
// its first field one of the Index's (metadata 1, documents 2,
// external_symbols 3), length-delimited, and within the file. It returns
// the file's size. An empty file, garbage and an index cut inside its
// first field are refused; the rest is the decoder's to check.
func checkIndex(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, errors.New("no index file was written")
		}
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() {
		return 0, errors.New("the index is not a regular file")
	}
	if size == 0 {
		return 0, errors.New("the index file is empty")
	}
	head := make([]byte, 32)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	tag, k := binary.Uvarint(head)
	if k <= 0 {
		return size, fmt.Errorf("the index does not start with a protobuf field (first bytes %q)", head)
	}
	field, wire := tag>>3, tag&7
	if field < 1 || field > 3 || wire != 2 {
		return size, fmt.Errorf("the index does not start with a SCIP Index field: field %d, wire type %d (first bytes %q)", field, wire, head)
	}
	length, m := binary.Uvarint(head[k:])
	if m <= 0 {
		return size, fmt.Errorf("the index ends inside its first field's length (first bytes %q)", head)
	}
	if end := uint64(k+m) + length; end > uint64(size) {
		return size, fmt.Errorf("the index is truncated: its first field needs %d bytes, the file has %d", end, size)
	}
	return size, nil
}
