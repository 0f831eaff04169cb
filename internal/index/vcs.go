package index

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/sextant-dev/sextant/internal/git"
)

// vcsHead returns the commit the git work tree holding dir has checked
// out, or "" when dir is in none, its .git leads to another repository's
// git data (git.Locate), or the commit cannot be read. It reads the
// repository's files directly instead of running git: indexing must not
// depend on a git binary, its configuration or its hooks.
func vcsHead(dir string) string {
	dirs, err := git.Locate(dir)
	if err != nil {
		return ""
	}
	head, err := os.ReadFile(filepath.Join(dirs.Git, "HEAD"))
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(head))
	ref, ok := strings.CutPrefix(line, "ref:")
	if !ok {
		if isHash(line) {
			return line // detached HEAD
		}
		return ""
	}
	ref = strings.TrimSpace(ref)
	if !validRef(ref) {
		return ""
	}
	// A linked work tree keeps its HEAD in its own git dir and shares the
	// refs of the main one, its common dir.
	refDirs := []string{dirs.Git}
	if dirs.Common != dirs.Git {
		refDirs = append(refDirs, dirs.Common)
	}
	for _, d := range refDirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			if h := strings.TrimSpace(string(b)); isHash(h) {
				return h
			}
		}
	}
	for _, d := range refDirs {
		if h := packedRef(filepath.Join(d, "packed-refs"), ref); h != "" {
			return h
		}
	}
	return "" // an unborn branch: no commit yet
}

// packedRef looks ref up in a packed-refs file.
func packedRef(path, ref string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && name == ref && isHash(hash) {
			return hash
		}
	}
	return ""
}

// validRef reports whether ref is a plain name under refs/, so joining it
// to a directory cannot leave that directory.
func validRef(ref string) bool {
	return strings.HasPrefix(ref, "refs/") && filepath.IsLocal(filepath.FromSlash(ref))
}

// isHash reports whether s looks like a SHA-1 or SHA-256 object name.
func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// VCSHead returns the commit checked out in the git work tree holding dir,
// or "" when there is none or it cannot be read (see vcsHead).
func VCSHead(dir string) string { return vcsHead(dir) }
