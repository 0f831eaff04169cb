package rootfs

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode"
)

// foldCache holds CaseInsensitive's answer per directory.
var foldCache sync.Map // string → bool

// CaseInsensitive reports whether the file system holding dir takes names
// that differ only in case for one file, as macOS and Windows do by
// default. It probes dir itself (dir with one letter's case swapped must
// be the same directory), so a case-sensitive volume on either system is
// seen as one; when dir holds no letter to swap, it answers the system's
// default. The answer is kept per directory.
func CaseInsensitive(dir string) bool {
	dir = filepath.Clean(dir)
	if v, ok := foldCache.Load(dir); ok {
		return v.(bool)
	}
	fold := probeFold(dir)
	foldCache.Store(dir, fold)
	return fold
}

func probeFold(dir string) bool {
	def := runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "ios"
	fi, err := os.Stat(dir)
	if err != nil {
		return def
	}
	// The last component with a letter that has another case.
	for d := dir; ; {
		parent, base := filepath.Dir(d), filepath.Base(d)
		if alt := swapCase(base); alt != base {
			rest, _ := filepath.Rel(d, dir)
			other, err := os.Stat(filepath.Join(parent, alt, rest))
			return err == nil && os.SameFile(fi, other)
		}
		if parent == d {
			return def
		}
		d = parent
	}
}

// swapCase swaps the case of the first letter of s that has two cases.
func swapCase(s string) string {
	for i, r := range s {
		var o rune
		switch {
		case unicode.IsUpper(r):
			o = unicode.ToLower(r)
		case unicode.IsLower(r):
			o = unicode.ToUpper(r)
		}
		if o != 0 && o != r {
			return s[:i] + string(o) + s[i+len(string(r)):]
		}
	}
	return s
}

// Canonical returns rel (slash-separated, local to root) spelled as the
// directories hold it, for a file system that takes names differing only
// in case for one file: each component that is not an entry of its
// directory but matches one up to case becomes that entry. Every spelling
// of a file then gives the one name the index knows, never a second. A
// component matching no entry, or several (possible only where case
// matters), is kept as given and the open that follows decides. The walk
// goes through root, so a directory that is a symlink out of it fails
// as os.Root fails (see Outside).
func Canonical(root *os.Root, rel string) (string, error) {
	if rel == "." || rel == "" {
		return rel, nil
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		dir := "."
		if i > 0 {
			dir = path.Join(parts[:i]...)
		}
		f, err := root.Open(filepath.FromSlash(dir))
		if err != nil {
			return rel, err
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return rel, err
		}
		match, n := "", 0
		for _, name := range names {
			if name == p {
				match, n = name, 1
				break
			}
			if strings.EqualFold(name, p) {
				match = name
				n++
			}
		}
		if n == 1 {
			parts[i] = match
		}
	}
	return strings.Join(parts, "/"), nil
}

// Within returns p's path relative to dir, slash-separated, when p (an
// absolute path) is dir or under it; with fold, names are compared up to
// case, component by component. p is cleaned first, so no ".." leads out.
func Within(dir, p string, fold bool) (string, bool) {
	d := splitPath(filepath.Clean(dir))
	q := splitPath(filepath.Clean(p))
	if len(q) < len(d) {
		return "", false
	}
	for i := range d {
		if d[i] != q[i] && !(fold && strings.EqualFold(d[i], q[i])) {
			return "", false
		}
	}
	if len(q) == len(d) {
		return ".", true
	}
	return strings.Join(q[len(d):], "/"), true
}

// splitPath splits a clean absolute path into its volume (with its
// separator) and components.
func splitPath(p string) []string {
	vol := filepath.VolumeName(p)
	rest := strings.Trim(p[len(vol):], string(filepath.Separator))
	out := []string{vol}
	if rest != "" {
		out = append(out, strings.Split(rest, string(filepath.Separator))...)
	}
	return out
}
