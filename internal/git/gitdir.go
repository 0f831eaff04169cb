package git

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrForeignGitDir is returned, with ErrNotRepository, for a work tree
// whose .git leads to a git directory that is not its own: a .git file
// or symlink naming another repository's, or a commondir file naming
// another repository's objects and refs. Git would read that other
// repository's commits as this work tree's.
var ErrForeignGitDir = errors.New("its .git leads to another repository")

// foreignError is ErrForeignGitDir and ErrNotRepository, saying where
// the .git leads.
type foreignError struct{ msg string }

func (e *foreignError) Error() string { return e.msg }

func (e *foreignError) Is(target error) bool {
	return target == ErrForeignGitDir || target == ErrNotRepository
}

// Dirs are where a work tree keeps its git data.
type Dirs struct {
	Git    string // the git directory: HEAD, the index
	Common string // the common directory: objects, refs, config (the git directory itself but in a linked work tree)
}

// maxGitFile bounds what is read of a .git file, a commondir or a gitdir
// file, and of a git directory's config.
const maxGitFile = 64 << 10

// Locate finds the git data of the work tree holding dir as git does,
// from the nearest .git at or above dir, and returns its directories
// (symlinks resolved) when they belong to that work tree: a .git
// directory inside it, or a .git file naming a directory inside it,
// whose common directory is inside it too; or a .git file naming a
// linked work tree's git directory (git worktree add) whose gitdir file
// names this .git file back; or a submodule's git directory whose
// core.worktree names this work tree back. Anything else is
// ErrForeignGitDir, and no .git at all ErrNotRepository.
func Locate(dir string) (Dirs, error) {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Dirs{}, fmt.Errorf("%s: %v: %w", dir, err, ErrNotRepository)
	}
	d, err = filepath.Abs(d)
	if err != nil {
		return Dirs{}, fmt.Errorf("%s: %v: %w", dir, err, ErrNotRepository)
	}
	for {
		dotGit := filepath.Join(d, ".git")
		if info, err := os.Stat(dotGit); err == nil {
			return locateFrom(d, dotGit, info)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Dirs{}, fmt.Errorf("%s: no .git at or above it: %w", dir, ErrNotRepository)
		}
		d = parent
	}
}

// locateFrom checks the .git of the work tree top (its stat is info).
func locateFrom(top, dotGit string, info os.FileInfo) (Dirs, error) {
	foreign := func(format string, args ...any) (Dirs, error) {
		return Dirs{}, &foreignError{dotGit + " " + fmt.Sprintf(format, args...)}
	}
	isFile := info.Mode().IsRegular()
	target := dotGit
	switch {
	case info.IsDir():
	case isFile:
		content, err := readSmall(dotGit)
		if err != nil {
			return Dirs{}, fmt.Errorf("%s: %v: %w", dotGit, err, ErrNotRepository)
		}
		line, _, _ := strings.Cut(content, "\n")
		g, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), "gitdir: ")
		if !ok || g == "" {
			return Dirs{}, fmt.Errorf("%s: not a gitdir file: %w", dotGit, ErrNotRepository)
		}
		target = relativeTo(top, g)
	default:
		return Dirs{}, fmt.Errorf("%s: neither a directory nor a file: %w", dotGit, ErrNotRepository)
	}
	gitDir, err := filepath.EvalSymlinks(target)
	if err != nil {
		return Dirs{}, fmt.Errorf("%s: %v: %w", dotGit, err, ErrNotRepository)
	}
	common := gitDir
	if c, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		common, err = filepath.EvalSymlinks(relativeTo(gitDir, strings.TrimRight(c, "\r\n")))
		if err != nil {
			return Dirs{}, fmt.Errorf("%s: commondir: %v: %w", gitDir, err, ErrNotRepository)
		}
	}
	dirs := Dirs{Git: gitDir, Common: common}
	if within(gitDir, top) {
		if !within(common, top) {
			return foreign("has its objects and refs in %s, outside %s", common, top)
		}
		return dirs, nil
	}
	if !isFile {
		return foreign("links to %s, outside %s", gitDir, top)
	}
	if back, err := readSmall(filepath.Join(gitDir, "gitdir")); err == nil && common != gitDir {
		if samePath(relativeTo(gitDir, strings.TrimRight(back, "\r\n")), dotGit) {
			return dirs, nil // a linked work tree
		}
	}
	if wt, ok := coreWorktree(filepath.Join(gitDir, "config")); ok && samePath(relativeTo(gitDir, wt), top) {
		return dirs, nil // a submodule
	}
	return foreign("names %s, which belongs to another work tree", gitDir)
}

// readSmall reads a regular file of at most maxGitFile bytes (it stats
// first: opening a FIFO would wait for a writer).
func readSmall(p string) (string, error) {
	if info, err := os.Stat(p); err != nil {
		return "", err
	} else if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxGitFile {
		return "", fmt.Errorf("%s: over %d bytes", p, maxGitFile)
	}
	return string(b), nil
}

// relativeTo makes p absolute, relative to dir when it is not already.
func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

// samePath reports whether a and b name the same file, symlinks resolved.
func samePath(a, b string) bool {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && ra == rb
}

// coreWorktree reads core.worktree from a git config file. It reads the
// plain form git writes ("[core]" then "worktree = PATH", the value
// optionally quoted) and nothing fancier: it only ever confirms that a
// git directory names a work tree back, so a form it misses refuses a
// submodule rather than accepting a stranger.
func coreWorktree(config string) (string, bool) {
	content, err := readSmall(config)
	if err != nil {
		return "", false
	}
	var value string
	found := false
	inCore := false
	sc := bufio.NewScanner(strings.NewReader(content))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(line, "[core]")
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if !inCore || !ok || !strings.EqualFold(strings.TrimSpace(key), "worktree") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if v == "" || strings.ContainsAny(v, "\"\\;#") {
			return "", false
		}
		value, found = v, true // the last one wins, as in git
	}
	return value, found
}
