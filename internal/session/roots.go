package session

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// MaxFileBytes bounds what a tool reads of one source file.
const MaxFileBytes = 16 << 20

// Located is a path resolved inside one repository under the roots.
type Located struct {
	Repo graph.RepositoryStatus
	Rel  string // repo-relative, forward slashes; "." for the root itself
}

// Locate resolves a file or directory path given by a caller: relative to
// the repository (or to the only root), or absolute inside a root. A path
// that leaves the roots, lexically or through a symlink, is OUTSIDE_ROOTS.
func (v *View) Locate(field, p, repository string) (Located, error) {
	if err := answer.CheckSelector(field, p); err != nil {
		return Located{}, err
	}
	if p == "" {
		return Located{}, answer.Invalid(field, "is required")
	}
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		var best graph.RepositoryStatus
		pick := func() {
			for _, r := range v.repos {
				if !v.s.IsRoot(r.Root) || (repository != "" && r.Name != repository) {
					continue
				}
				if _, in := rootfs.Within(r.Root, clean, CaseInsensitive(r.Root)); in && len(r.Root) > len(best.Root) {
					best = r
				}
			}
		}
		pick()
		if best.Root == "" {
			// Spelled through a symlink to a root, as the root itself
			// may have been given.
			if real, ok := throughAlias(v.s.roots, clean); ok {
				clean = real
				pick()
			}
		}
		if best.Root == "" {
			return Located{}, graph.Errorf(graph.CodeOutsideRoots, "%s is outside the roots this server may read (%s)", p, strings.Join(v.s.roots, ", ")).WithData("field", field)
		}
		rel, _ := rootfs.Within(best.Root, clean, CaseInsensitive(best.Root))
		return checkInside(field, Located{Repo: best, Rel: rel})
	}
	repo, err := v.Repo(repository)
	if err != nil {
		return Located{}, err
	}
	if !v.s.IsRoot(repo.Root) {
		return Located{}, graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", repo.Name, repo.Root).WithData("field", field)
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) && filepath.Clean(p) != "." {
		return Located{}, graph.Errorf(graph.CodeOutsideRoots, "%s leaves the repository root; give a path inside it", p).WithData("field", field)
	}
	return checkInside(field, Located{Repo: repo, Rel: filepath.ToSlash(filepath.Clean(p))})
}

// checkInside follows symlinks through os.Root, which refuses any
// component that resolves outside the repository root. A path through an
// absolute symlink that points back inside is located at its real path
// there (see rootfs.Inside), which every later read then opens.
func checkInside(field string, l Located) (Located, error) {
	root, err := os.OpenRoot(l.Repo.Root)
	if err != nil {
		return l, graph.Wrap(graph.CodeReadError, err, "opening repository root")
	}
	defer root.Close()
	if CaseInsensitive(l.Repo.Root) {
		// One spelling per file: the one the directories hold, which is
		// the one the index knows.
		if l.Rel, err = rootfs.Canonical(root, l.Rel); err != nil {
			return l, FileError(field, l.Rel, err)
		}
	}
	_, err = root.Stat(filepath.FromSlash(l.Rel))
	if rootfs.Outside(err) {
		if rel, ok := rootfs.Inside(root, filepath.FromSlash(l.Rel)); ok {
			l.Rel = filepath.ToSlash(rel)
			_, err = root.Stat(rel)
		}
	}
	return l, FileError(field, l.Rel, err)
}

// CaseInsensitive reports whether a repository root's file system takes
// names differing only in case for one file (macOS and Windows by
// default); a variable so that a test can have Linux behave so.
var CaseInsensitive = rootfs.CaseInsensitive

// FileError maps an os.Root error to a coded error.
func FileError(field, rel string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return graph.Errorf(graph.CodeFileNotFound, "%s does not exist; call get_file_outline on its directory to see what is there", rel).WithData("field", field)
	case rootfs.Outside(err):
		// os.Root's error for a path that leaves it, lexically or through
		// a symlink.
		return graph.Errorf(graph.CodeOutsideRoots, "%s resolves outside the repository root (through a symlink)", rel).WithData("field", field)
	case errors.Is(err, syscall.ELOOP):
		return graph.Errorf(graph.CodeReadError, "%s is a symlink loop or chain too long to follow", rel).WithData("field", field)
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.EOPNOTSUPP):
		return notRegular(field, rel)
	case errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.EINVAL):
		return answer.Invalid(field, "is not a usable path (%v)", errors.Unwrap(err))
	}
	return graph.Wrap(graph.CodeReadError, err, "reading "+rel)
}

func notRegular(field, rel string) error {
	return graph.Errorf(graph.CodeReadError, "%s is not a regular file (a FIFO, socket or device), so it is not read", rel).
		WithData("field", field).WithData("reason", "not_regular")
}

// OpenRegular opens rel inside root for reading through rootfs, which
// refuses anything but a regular file without blocking on a FIFO.
func OpenRegular(root *os.Root, field, rel string) (*os.File, error) {
	f, err := rootfs.OpenRegular(root, filepath.FromSlash(rel))
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, rootfs.ErrIsDir):
		return nil, graph.Errorf(graph.CodeInvalidArgument, "%s is a directory, not a file", rel).WithData("field", field)
	case errors.Is(err, rootfs.ErrNotRegular):
		return nil, notRegular(field, rel)
	}
	return nil, FileError(field, rel, err)
}

// ReadFile reads a regular file inside the repository through os.Root.
// Devices, FIFOs and sockets are refused: reading them could block or
// never end.
func ReadFile(repoRoot, rel string) ([]byte, error) {
	root, err := os.OpenRoot(repoRoot)
	if err != nil {
		return nil, graph.Wrap(graph.CodeReadError, err, "opening repository root")
	}
	defer root.Close()
	return ReadIn(root, "file", rel)
}

// ReadIn reads a regular file of at most MaxFileBytes inside root.
func ReadIn(root *os.Root, field, rel string) ([]byte, error) {
	f, err := OpenRegular(root, field, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the file's size, as os.ReadFile does, rather
	// than one grown from 512 bytes.
	size := 512
	if st, err := f.Stat(); err == nil && st.Size() < MaxFileBytes {
		size = max(size, int(st.Size())+1)
	}
	data := make([]byte, 0, size)
	r := io.LimitReader(f, MaxFileBytes+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, graph.Wrap(graph.CodeReadError, err, "reading "+rel)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if len(data) > MaxFileBytes {
		return nil, graph.Errorf(graph.CodeReadError, "%s is larger than %d MiB", rel, MaxFileBytes>>20).WithData("field", field)
	}
	return data, nil
}

// Within reports whether p is dir or below it.
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
