//go:build unix

package scipindexer_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// The fake indexers stand at the process boundary: shell scripts named
// like the real ones, first on PATH, each doing one thing a real indexer
// may do wrong. parseOutput sets $out to the --output argument, $last to
// the last argument (the project).
const parseOutput = `out=; last=; while [ $# -gt 0 ]; do last=$1; if [ "$1" = --output ]; then out=$2; fi; shift; done
`

// validIndex is the smallest output that starts as a SCIP index does: an
// empty Metadata field (1, length-delimited, 0 bytes).
const validIndex = `printf '\n\000' > "$out"
`

// fakeIndexer puts an executable script called name, running body, first
// on PATH (before /usr/bin:/bin, for the shell's tools), and returns its
// directory.
func fakeIndexer(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\n" + parseOutput + body
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin:/bin")
	return dir
}

// tsProject is a one-file TypeScript project in a fresh root.
func tsProject(t *testing.T) (string, scipindexer.Project) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "tsconfig.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.ts"), []byte("export const a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, scipindexer.Project{Language: scipindexer.TypeScript, Dir: ".", Config: "tsconfig.json", Name: "p"}
}

// readPids reads the pids a fake indexer wrote to file, one per line,
// waiting for it to be written.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	for i := 0; i < 200; i++ {
		data, _ := os.ReadFile(file)
		fields := strings.Fields(string(data))
		if len(fields) >= n {
			pids := make([]int, n)
			for j := range pids {
				pid, err := strconv.Atoi(fields[j])
				if err != nil {
					t.Fatal(err)
				}
				pids[j] = pid
			}
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the fake indexer wrote no pids to %s", file)
	return nil
}

// waitGone waits until no process of pids exists (reaped; a zombie still
// takes signals, so a zombie counts as existing until its parent reaps
// it), or fails naming those left.
func waitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		left := 0
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil && !zombie(pid) {
				left++
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			t.Errorf("%s: process %d is still running", what, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// zombie reports whether pid has exited and waits for its parent (Linux's
// /proc; elsewhere false).
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// hangScript starts a child that outlives a plain kill of the indexer (a
// compiler, a pip), records both pids, and hangs.
func hangScript(pidFile string) string {
	return `sleep 1000 &
echo $$ $! > '` + pidFile + `'
wait
`
}

// TestHangKilledAtDeadline: an indexer that never ends is killed at the
// deadline with the process it started, and the run says TIMED_OUT.
func TestHangKilledAtDeadline(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	fakeIndexer(t, "scip-typescript", hangScript(pidFile))
	root, p := tsProject(t)
	r := scipindexer.NewRunner(scipindexer.Config{Timeout: scipindexer.Duration{Duration: 500 * time.Millisecond}})
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := r.Index(context.Background(), root, p)
		done <- err
	}()
	pids := readPids(t, pidFile, 2)
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		syscall.Kill(pids[0], syscall.SIGKILL)
		syscall.Kill(pids[1], syscall.SIGKILL)
		t.Fatal("the run did not end at its deadline")
	}
	e := failure(t, err, scipindexer.TimedOut)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %s, deadline 500ms", took)
	}
	if !strings.Contains(e.Message, "500ms") {
		t.Errorf("message %q does not name the deadline", e.Message)
	}
	waitGone(t, "after the deadline", pids...)
}

// TestCancelKillsTree: the caller's context ending kills the indexer and
// its child too, and the run says CANCELED.
func TestCancelKillsTree(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	fakeIndexer(t, "scip-typescript", hangScript(pidFile))
	root, p := tsProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := scipindexer.NewRunner(scipindexer.Config{}).Index(ctx, root, p)
		done <- err
	}()
	pids := readPids(t, pidFile, 2)
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		syscall.Kill(pids[0], syscall.SIGKILL)
		syscall.Kill(pids[1], syscall.SIGKILL)
		t.Fatal("the run did not end when its context did")
	}
	failure(t, err, scipindexer.Canceled)
	waitGone(t, "after the cancel", pids...)
}

// TestCrashKeepsOutputTail: an indexer that fails says CRASHED with its
// exit status, and the last 2 KiB of what it printed, where the reason is.
func TestCrashKeepsOutputTail(t *testing.T) {
	fakeIndexer(t, "scip-typescript", `i=0; while [ $i -lt 200 ]; do echo "progress line $i of a long run" >&2; i=$((i+1)); done
echo "TypeError: cannot read properties of undefined (the real reason)" >&2
exit 3
`)
	root, p := tsProject(t)
	_, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
	e := failure(t, err, scipindexer.Crashed)
	if !strings.Contains(e.Message, "exit status 3") {
		t.Errorf("message %q does not name the exit status", e.Message)
	}
	if !strings.HasSuffix(e.Output, "(the real reason)") {
		t.Errorf("output does not end with the reason: ...%q", e.Output[max(0, len(e.Output)-80):])
	}
	if len(e.Output) > scipindexer.StderrTail || len(e.Output) < scipindexer.StderrTail/2 {
		t.Errorf("output is %d bytes, want the last %d", len(e.Output), scipindexer.StderrTail)
	}
	if !strings.Contains(err.Error(), "(the real reason)") {
		t.Errorf("the error's text lacks the output: %v", err)
	}
}

// TestBadOutput: an indexer that exits cleanly with no index, an empty
// one, garbage, or an index cut inside its first field says BAD_OUTPUT.
func TestBadOutput(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"missing", "exit 0\n"},
		{"empty", `: > "$out"` + "\n"},
		{"garbage", `printf 'hello, not an index' > "$out"` + "\n"},
		{"truncated", `printf '\n\177abc' > "$out"` + "\n"}, // metadata of 127 bytes, 3 written
		{"zero tag", `printf '\000\000\000' > "$out"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeIndexer(t, "scip-typescript", tc.body)
			root, p := tsProject(t)
			out, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
			if out != nil {
				defer out.Remove()
			}
			failure(t, err, scipindexer.BadOutput)
		})
	}
}

// TestNotInstalled: without the indexer on PATH the run says
// NOT_INSTALLED with the command that installs it.
func TestNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		lang    scipindexer.Language
		install string
	}{
		{scipindexer.TypeScript, "npm install -g @sourcegraph/scip-typescript@0.4.0"},
		{scipindexer.Python, "npm install -g @sourcegraph/scip-python@0.6.6"},
	} {
		root, p := tsProject(t)
		p.Language = tc.lang
		_, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
		e := failure(t, err, scipindexer.NotInstalled)
		if !strings.Contains(e.Message, tc.install) {
			t.Errorf("%s: message %q lacks %q", tc.lang, e.Message, tc.install)
		}
	}
}

// TestRunEnvironment: a run that succeeds hands back the index in a
// directory only the user may read, and the indexer sees a minimal
// environment: none of Sextant's other variables, pip kept off the
// network, its temporary directory the private one.
func TestRunEnvironment(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "env")
	fakeIndexer(t, "scip-python", `env > '`+envFile+`'
pwd >> '`+envFile+`'
`+validIndex)
	t.Setenv("SEXTANT_TEST_SECRET", "do-not-pass")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := scipindexer.Project{Language: scipindexer.Python, Dir: "pkg", Name: "pkg"}
	out, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Remove()
	if out.Size != 2 || out.Tool != "scip-python" {
		t.Errorf("output %+v", out)
	}
	fi, err := os.Stat(filepath.Dir(out.Path))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("output directory mode %v, want 0700", fi.Mode().Perm())
	}
	data, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := string(data)
	for _, want := range []string{"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INDEX=1", "PYTHONSAFEPATH=1", "TMPDIR=" + filepath.Dir(out.Path), filepath.Join(root, "pkg")} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %s:\n%s", want, env)
		}
	}
	if strings.Contains(env, "SEXTANT_TEST_SECRET") {
		t.Errorf("the indexer saw Sextant's environment:\n%s", env)
	}
	if err := out.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(out.Path)); !os.IsNotExist(err) {
		t.Errorf("Remove left %s: %v", filepath.Dir(out.Path), err)
	}
}

// TestRunPathOutsideRoot: the indexer's PATH holds no directory of the
// repository and no relative entry (an empty one is the working
// directory, the project): scip-python looks pip up on it, and a pip the
// repository ships would be its code run.
func TestRunPathOutsideRoot(t *testing.T) {
	pathFile := filepath.Join(t.TempDir(), "path")
	fake := fakeIndexer(t, "scip-python", `echo "$PATH" > '`+pathFile+`'
`+validIndex)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", strings.Join([]string{fake, "", ".", "bin", filepath.Join(root, "bin"), "/usr/bin", "/bin"}, string(os.PathListSeparator)))
	p := scipindexer.Project{Language: scipindexer.Python, Dir: ".", Name: "p"}
	out, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Remove()
	data, err := os.ReadFile(pathFile)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(data))
	if want := strings.Join([]string{fake, "/usr/bin", "/bin"}, string(os.PathListSeparator)); got != want {
		t.Errorf("the indexer's PATH is %q, want %q", got, want)
	}
}

// TestHangKilledEitherGuard: the macOS mechanism (the reaper alone,
// SEXTANT_LSP_GUARD=reaper on Linux) kills a hanging indexer's tree at
// the deadline too.
func TestHangKilledEitherGuard(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the guard is chosen on Linux only")
	}
	t.Setenv("SEXTANT_LSP_GUARD", "reaper")
	TestHangKilledAtDeadline(t)
}

// TestIndexerInsideRootNotRun: an indexer found only inside the
// repository (its node_modules/.bin on PATH) is the repository's code,
// and is not run: NOT_INSTALLED.
func TestIndexerInsideRootNotRun(t *testing.T) {
	root, p := tsProject(t)
	bin := filepath.Join(root, "node_modules", ".bin")
	ranFile := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "scip-typescript"), []byte("#!/bin/sh\ntouch '"+ranFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin:/bin")
	_, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
	failure(t, err, scipindexer.NotInstalled)
	if _, err := os.Stat(ranFile); err == nil {
		t.Error("the repository's own scip-typescript ran")
	}
}

// TestMadeTSConfig: a project without a tsconfig.json is indexed through
// one Sextant writes in its private directory, never in the project:
// JavaScript allowed, the project's files but its nested projects'; a
// jsconfig.json is extended.
func TestMadeTSConfig(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "cfg")
	fakeIndexer(t, "scip-typescript", `cat "$last" > '`+cfgFile+`'
echo "$last" >> '`+cfgFile+`'
`+validIndex)
	root := writeTree(t, `
-- web/package.json --
{"name": "web"}
-- web/a.js --
-- web/jsx/jsconfig.json --
{"compilerOptions": {"checkJs": true}}
-- web/jsx/b.js --
`)
	ps, err := scipindexer.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 {
		t.Fatalf("projects:\n%s", summary(ps))
	}
	for _, p := range ps {
		out, err := scipindexer.NewRunner(scipindexer.Config{}).Index(context.Background(), root, p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(cfgFile)
		got := string(data)
		if !strings.Contains(got, filepath.Dir(out.Path)) {
			t.Errorf("%s: the configuration is not in the private directory:\n%s", p.Dir, got)
		}
		abs := filepath.ToSlash(filepath.Join(root, p.Dir))
		wants := []string{`"allowJs": true`, `"` + abs + `/**/*"`}
		if p.Dir == "web" {
			wants = append(wants, `"`+abs+`/jsx"`)
		} else {
			wants = append(wants, `"extends": "`+abs+`/jsconfig.json"`)
		}
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the configuration lacks %s:\n%s", p.Dir, w, got)
			}
		}
		out.Remove()
	}
}
