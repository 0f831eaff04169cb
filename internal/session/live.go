package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
)

// LiveFile resolves the file of a position tool against the roots
// directly: the live cache needs no index, so these tools answer before a
// root was ever indexed. A relative path is taken under the only root
// (with several roots, under the one root that has it); an absolute path
// must be inside a root. OUTSIDE_ROOTS otherwise.
func (s *Session) LiveFile(field, file string) (root, rel string, err error) {
	if err := answer.CheckSelector(field, file); err != nil {
		return "", "", err
	}
	if file == "" {
		return "", "", answer.Invalid(field, "is required")
	}
	if filepath.IsAbs(file) {
		clean := filepath.Clean(file)
		for _, r := range s.roots {
			if Within(r, clean) && len(r) > len(root) {
				root = r
			}
		}
		if root == "" {
			return "", "", graph.Errorf(graph.CodeOutsideRoots, "%s is outside the roots this server may read (%s)", file, strings.Join(s.roots, ", ")).WithData("field", field)
		}
		r, _ := filepath.Rel(root, clean)
		return root, filepath.ToSlash(r), nil
	}
	if !filepath.IsLocal(filepath.FromSlash(file)) {
		return "", "", graph.Errorf(graph.CodeOutsideRoots, "%s leaves the root; give a path inside it", file).WithData("field", field)
	}
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(file)))
	switch len(s.roots) {
	case 0:
		return "", "", graph.Errorf(graph.CodeOutsideRoots, "this server has no roots to read files from").WithData("field", field)
	case 1:
		return s.roots[0], rel, nil
	}
	var found []string
	for _, r := range s.roots {
		if _, err := readFileStat(r, rel); err == nil {
			found = append(found, r)
		}
	}
	if len(found) == 1 {
		return found[0], rel, nil
	}
	return "", "", answer.Invalid(field, "%s is relative and the server has several roots (%s); give an absolute path", file, strings.Join(s.roots, ", "))
}

// LivePackage returns the package of a file from the live cache.
func (s *Session) LivePackage(ctx context.Context, field, file string) (*live.Package, error) {
	root, rel, err := s.LiveFile(field, file)
	if err != nil {
		return nil, err
	}
	p, err := s.live.Get(ctx, root, rel)
	if err != nil {
		if e, ok := answer.AsError(err); ok && e.Data != nil && e.Data["field"] != nil {
			e.Data["field"] = field
		}
		return nil, err
	}
	return p, nil
}

// Live is the live package cache: packages compiled from the files on
// disk, kept until a file they depend on changes.
func (s *Session) Live() *live.Cache { return s.live }

// readFileStat checks that rel exists under root through os.Root.
func readFileStat(root, rel string) (bool, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return false, err
	}
	defer r.Close()
	_, err = r.Stat(filepath.FromSlash(rel))
	return err == nil, err
}
