// Package git reads a git repository's commits and objects, safely on a
// repository nobody vetted.
//
// It runs the git program with every way a repository's configuration
// could make git run something else switched off: no hooks
// (core.hooksPath=/dev/null), no file-system monitor, no pager, no
// signature checks, no system configuration, no prompts, no optional
// locks, and none of the caller's GIT_* variables (GIT_DIR could point
// anywhere). Git cannot reach any remote either: a missing object in a
// partial clone makes git fetch it from the promisor remote the
// repository's configuration names, through its ssh command, upload-pack
// program, proxy, ext:: URL or remote helper, and a protocol.<name>.allow
// in that configuration overrides -c protocol.allow=never. So every run
// has GIT_ALLOW_PROTOCOL naming no protocol, which git (since 2.6.1, and
// every version with partial clones) obeys over all protocol
// configuration, in the fetch it starts too, and GIT_NO_LAZY_FETCH=1,
// which turns lazy fetching off in git 2.45 and later. A missing object
// is then an error.
//
// It only runs commands that read objects (rev-parse, ls-tree, cat-file,
// and log with names only): none of them reads the working tree through
// git's clean filters, whose commands a repository's own configuration
// names, so the working tree is compared by this package's callers from
// the disk, not by git diff. Every run has a deadline and a bound on its
// output.
//
// Open follows a .git only to the work tree's own git data (Locate): a
// .git file or commondir naming another repository would make git answer
// with that repository's commits.
package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Timeout is the deadline of one git run when the context has none
// sooner.
const Timeout = 20 * time.Second

// MaxOutput bounds what one git run may print.
const MaxOutput = 64 << 20

// ErrNotRepository is returned when the directory is in no git work tree,
// or git is not installed.
var ErrNotRepository = errors.New("not in a git work tree")

// ErrBadRevision is returned for a revision git does not know or that
// is not spelled as one.
var ErrBadRevision = errors.New("not a revision of the repository")

// Repo is the git work tree a directory is in.
type Repo struct {
	Dir string // the directory git runs in: paths are relative to it
}

// safeArgs come before every command.
var safeArgs = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "log.showSignature=false",
	"-c", "core.quotePath=false",
	"-c", "protocol.allow=never",
	"--no-pager",
}

// noProtocol is the value of GIT_ALLOW_PROTOCOL: a list naming no
// protocol. A slash cannot be in a URL's scheme, and as the name of a
// remote helper it would make git run "git-remote-/", a directory.
const noProtocol = "/"

// run runs git with args in r.Dir and returns its standard output.
func (r Repo) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, safeArgs...), args...)...)
	cmd.Dir = r.Dir
	cmd.Env = env()
	cmd.Stdin = stdin
	var stdout limitedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if stdout.over {
		return nil, fmt.Errorf("git %s: output over %d bytes", args[0], MaxOutput)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300]
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, fmt.Errorf("git %s: %v: %w", args[0], err, ErrNotRepository)
		}
		return nil, &runError{args: args[0], msg: msg}
	}
	return stdout.Bytes(), nil
}

type runError struct{ args, msg string }

func (e *runError) Error() string { return "git " + e.args + ": " + e.msg }

// env is the environment git runs with: the process's own without any
// GIT_ variable, plus the switches that keep configuration, prompts and
// remotes out.
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return append(out,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_ASKPASS=/bin/false",
		"GIT_PAGER=cat",
		"GIT_EXTERNAL_DIFF=",
		"GIT_ALLOW_PROTOCOL="+noProtocol,
		"GIT_NO_LAZY_FETCH=1",
		"LC_ALL=C",
	)
}

// limitedBuffer is a bytes.Buffer that stops at MaxOutput.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > MaxOutput {
		b.over = true
		return 0, errors.New("output too large")
	}
	return b.Buffer.Write(p)
}

// Open returns the work tree dir is in, or ErrNotRepository. The git
// directories git finds for dir must be those Locate finds and trusts
// (else ErrForeignGitDir too): a root inside a larger work tree reads
// that work tree, as git does, but a .git that leads to another
// repository is not followed.
func Open(ctx context.Context, dir string) (Repo, error) {
	dirs, err := Locate(dir)
	if err != nil {
		return Repo{}, err
	}
	r := Repo{Dir: dir}
	out, err := r.run(ctx, nil, "rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--git-common-dir")
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil || len(lines) != 3 || lines[0] != "true" {
		return Repo{}, fmt.Errorf("%s: %w", dir, ErrNotRepository)
	}
	if !samePath(lines[1], dirs.Git) || !samePath(relativeTo(dir, lines[2]), dirs.Common) {
		return Repo{}, &foreignError{fmt.Sprintf("git reads %s for %s, not %s", lines[1], dir, dirs.Git)}
	}
	return r, nil
}

// CheckRevision reports whether rev is spelled as one revision may be:
// no leading dash (an option to git), no negation (^rev) or range
// (a..b, a...b, rev^@, rev^!, rev^-), which name sets of commits, no
// spaces or control characters, at most 256 bytes.
func CheckRevision(rev string) error {
	if rev == "" || len(rev) > 256 || strings.HasPrefix(rev, "-") || strings.HasPrefix(rev, "^") ||
		strings.Contains(rev, "..") || strings.Contains(rev, "^@") || strings.Contains(rev, "^!") || strings.Contains(rev, "^-") {
		return ErrBadRevision
	}
	for _, c := range rev {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return ErrBadRevision
		}
	}
	return nil
}

// Commit resolves rev to a commit id.
func (r Repo) Commit(ctx context.Context, rev string) (string, error) {
	if err := CheckRevision(rev); err != nil {
		return "", fmt.Errorf("%q: %w", rev, err)
	}
	out, err := r.run(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var re *runError
		if errors.As(err, &re) {
			return "", fmt.Errorf("%q: %w", rev, ErrBadRevision)
		}
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if !isHex(id) {
		return "", fmt.Errorf("%q: %w", rev, ErrBadRevision)
	}
	return id, nil
}

// Blob is one file of a commit's tree.
type Blob struct {
	Path string // relative to the Repo's directory, forward slashes
	ID   string // the object id
}

// Tree lists the regular files of commit under the Repo's directory
// (symlinks and submodules are left out).
func (r Repo) Tree(ctx context.Context, commit string) ([]Blob, error) {
	out, err := r.run(ctx, nil, "ls-tree", "-r", "-z", "--end-of-options", commit)
	if err != nil {
		return nil, err
	}
	var blobs []Blob
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> SP <type> SP <object> TAB <path>"
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		blobs = append(blobs, Blob{Path: string(path), ID: f[2]})
	}
	return blobs, nil
}

// Contents reads the blobs with these ids, in one git run. A missing id
// is an error.
func (r Repo) Contents(ctx context.Context, ids []string) (map[string][]byte, error) {
	if len(ids) == 0 {
		return map[string][]byte{}, nil
	}
	var in bytes.Buffer
	for _, id := range ids {
		if !isHex(id) {
			return nil, fmt.Errorf("object id %q is not hexadecimal", id)
		}
		in.WriteString(id + "\n")
	}
	out, err := r.run(ctx, &in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	got := map[string][]byte{}
	br := bufio.NewReader(bytes.NewReader(out))
	for range ids {
		header, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: short output")
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n > MaxOutput {
			return nil, fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(header))
		}
		data := make([]byte, n+1) // the content and a newline
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("git cat-file: short object %s", f[0])
		}
		got[f[0]] = data[:n]
	}
	return got, nil
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// History lists, for each of the latest n commits reachable from HEAD,
// newest first, the files it changed under the Repo's directory,
// relative to it (as git log --name-only prints them, non-ASCII names
// unquoted). Renames are not looked for, so no blob is read; external
// diff programs, text conversion and the mailmap are off, and the order
// file is /dev/null (diff.orderFile = /dev/zero would fill the memory).
func (r Repo) History(ctx context.Context, n int) ([][]string, error) {
	out, err := r.run(ctx, nil, "log", "--no-ext-diff", "--no-textconv", "--no-mailmap",
		"--no-renames", "-O/dev/null", "--relative", "--name-only", "--format=%x00", "-n", strconv.Itoa(n), "HEAD", "--")
	if err != nil {
		return nil, err
	}
	var commits [][]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		switch line := sc.Text(); {
		case line == "\x00":
			commits = append(commits, nil)
		case line != "" && len(commits) > 0:
			commits[len(commits)-1] = append(commits[len(commits)-1], line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	return commits, nil
}
