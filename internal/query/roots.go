package query

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// maxFileBytes bounds what a tool reads of one source file.
const maxFileBytes = 16 << 20

// located is a path resolved inside one repository under the roots.
type located struct {
	repo graph.RepositoryStatus
	rel  string // repo-relative, forward slashes; "." for the root itself
}

// locate resolves a file or directory path given by a caller: relative to
// the repository (or to the only root), or absolute inside a root. A path
// that leaves the roots, lexically or through a symlink, is OUTSIDE_ROOTS.
func (v *view) locate(field, p, repository string) (located, error) {
	if err := checkSelector(field, p); err != nil {
		return located{}, err
	}
	if p == "" {
		return located{}, invalid(field, "is required")
	}
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		var best graph.RepositoryStatus
		for _, r := range v.repos {
			if !v.s.isRoot(r.Root) || (repository != "" && r.Name != repository) {
				continue
			}
			if _, in := rootfs.Within(r.Root, clean, caseInsensitive(r.Root)); in && len(r.Root) > len(best.Root) {
				best = r
			}
		}
		if best.Root == "" {
			return located{}, graph.Errorf(graph.CodeOutsideRoots, "%s is outside the roots this server may read (%s)", p, strings.Join(v.s.roots, ", ")).WithData("field", field)
		}
		rel, _ := rootfs.Within(best.Root, clean, caseInsensitive(best.Root))
		return v.checkInside(field, located{repo: best, rel: rel})
	}
	repo, err := v.repo(repository)
	if err != nil {
		return located{}, err
	}
	if !v.s.isRoot(repo.Root) {
		return located{}, graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", repo.Name, repo.Root).WithData("field", field)
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) && filepath.Clean(p) != "." {
		return located{}, graph.Errorf(graph.CodeOutsideRoots, "%s leaves the repository root; give a path inside it", p).WithData("field", field)
	}
	return v.checkInside(field, located{repo: repo, rel: filepath.ToSlash(filepath.Clean(p))})
}

// checkInside follows symlinks through os.Root, which refuses any
// component that resolves outside the repository root.
func (v *view) checkInside(field string, l located) (located, error) {
	root, err := os.OpenRoot(l.repo.Root)
	if err != nil {
		return l, graph.Wrap(graph.CodeReadError, err, "opening repository root")
	}
	defer root.Close()
	if caseInsensitive(l.repo.Root) {
		// One spelling per file: the one the directories hold, which is
		// the one the index knows.
		if l.rel, err = rootfs.Canonical(root, l.rel); err != nil {
			return l, fileError(field, l.rel, err)
		}
	}
	_, err = root.Stat(filepath.FromSlash(l.rel))
	return l, fileError(field, l.rel, err)
}

// caseInsensitive reports whether a repository root's file system takes
// names differing only in case for one file (macOS and Windows by
// default); a variable so that a test can have Linux behave so.
var caseInsensitive = rootfs.CaseInsensitive

// fileError maps an os.Root error to a coded error.
func fileError(field, rel string, err error) error {
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
		return invalid(field, "is not a usable path (%v)", errors.Unwrap(err))
	}
	return graph.Wrap(graph.CodeReadError, err, "reading "+rel)
}

func notRegular(field, rel string) error {
	return graph.Errorf(graph.CodeReadError, "%s is not a regular file (a FIFO, socket or device), so it is not read", rel).
		WithData("field", field).WithData("reason", "not_regular")
}

// openRegular opens rel inside root for reading through rootfs, which
// refuses anything but a regular file without blocking on a FIFO.
func openRegular(root *os.Root, field, rel string) (*os.File, error) {
	f, err := rootfs.OpenRegular(root, filepath.FromSlash(rel))
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, rootfs.ErrIsDir):
		return nil, graph.Errorf(graph.CodeInvalidArgument, "%s is a directory, not a file", rel).WithData("field", field)
	case errors.Is(err, rootfs.ErrNotRegular):
		return nil, notRegular(field, rel)
	}
	return nil, fileError(field, rel, err)
}

// readFile reads a regular file inside the repository through os.Root.
// Devices, FIFOs and sockets are refused: reading them could block or
// never end.
func readFile(repoRoot, rel string) ([]byte, error) {
	root, err := os.OpenRoot(repoRoot)
	if err != nil {
		return nil, graph.Wrap(graph.CodeReadError, err, "opening repository root")
	}
	defer root.Close()
	return readIn(root, "file", rel)
}

// readIn reads a regular file of at most maxFileBytes inside root.
func readIn(root *os.Root, field, rel string) ([]byte, error) {
	f, err := openRegular(root, field, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, graph.Wrap(graph.CodeReadError, err, "reading "+rel)
	}
	if len(data) > maxFileBytes {
		return nil, graph.Errorf(graph.CodeReadError, "%s is larger than %d MiB", rel, maxFileBytes>>20).WithData("field", field)
	}
	return data, nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
