package session

import "github.com/sextant-dev/sextant/internal/graph"

// scope returns the repositories of repos a view holds.
func (s *Session) scope(repos []graph.RepositoryStatus) []graph.RepositoryStatus {
	if !s.set.isScoped() || len(s.roots) == 0 {
		return repos
	}
	var out []graph.RepositoryStatus
	for _, r := range repos {
		for _, root := range s.roots {
			if r.Root == root || Within(root, r.Root) || Within(r.Root, root) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// Scope names the repositories the view is narrowed to, nil when it is
// not (see Settings.SetScope): a search over every repository passes them.
func (v *View) Scope() []string {
	if !v.s.set.isScoped() || len(v.s.roots) == 0 {
		return nil
	}
	names := make([]string, len(v.repos))
	for i, r := range v.repos {
		names[i] = r.Name
	}
	if len(names) == 0 {
		return []string{""} // narrowed to nothing: a name no repository has
	}
	return names
}

// InScope reports whether the view holds the repository called name.
func (v *View) InScope(name string) bool {
	for _, r := range v.repos {
		if r.Name == name {
			return true
		}
	}
	return false
}
