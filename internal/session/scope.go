package session

import "github.com/sextant-dev/sextant/internal/graph"

// SetScope narrows every view to the repositories of the roots when on:
// those whose root is one of the roots, lies under one or holds one. A
// command run inside a repository answers about that repository, not
// about every repository its database has held (other clones of the same
// module, say). Off (the default), or with no roots (a command run
// outside any repository), a view holds every repository of the store,
// as a server over a shared graph must.
func (s *Session) SetScope(on bool) {
	s.mu.Lock()
	s.scoped = on
	s.mu.Unlock()
}

// scope returns the repositories of repos a view holds.
func (s *Session) scope(repos []graph.RepositoryStatus) []graph.RepositoryStatus {
	s.mu.Lock()
	on := s.scoped
	s.mu.Unlock()
	if !on || len(s.roots) == 0 {
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
// not (see Session.SetScope): a search over every repository passes them.
func (v *View) Scope() []string {
	v.s.mu.Lock()
	on := v.s.scoped
	v.s.mu.Unlock()
	if !on || len(v.s.roots) == 0 {
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
