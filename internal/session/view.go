package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
)

// View is one request's pinned reader plus what the request learned about
// the repositories it read: the snapshots it answers from, which of them
// the answer used, and whether they still match the disk. Open makes one;
// the request closes it.
type View struct {
	s     *Session
	r     graph.Reader
	repos []graph.RepositoryStatus
	used  map[string]bool     // repositories this answer read
	stale map[string][]string // staleness verdicts already computed, by repository
	done  []func()            // run by Close, after the reader is closed (the roots Lines opened)
}

// Reader is the view's pinned reader of the index.
func (v *View) Reader() graph.Reader { return v.r }

// Repos lists the repositories of the pinned snapshots.
func (v *View) Repos() []graph.RepositoryStatus { return v.repos }

// Session is the session the view was opened in.
func (v *View) Session() *Session { return v.s }

// Staleness returns why repo's snapshot no longer matches the disk (nil when
// it does), computed once per request.
func (v *View) Staleness(r graph.RepositoryStatus) []string {
	if reasons, ok := v.stale[r.Name]; ok {
		return reasons
	}
	reasons := v.s.fresh.staleness(context.Background(), v.r.Catalog, r)
	v.stale[r.Name] = reasons
	return reasons
}

// Close closes the reader, then releases what the view's reads held open.
func (v *View) Close() {
	v.r.Close()
	for _, f := range v.done {
		f()
	}
}

// Repo returns the repository called name; "" picks the only root's
// repository, or the only repository when there is one.
func (v *View) Repo(name string) (graph.RepositoryStatus, error) {
	if name != "" {
		for _, r := range v.repos {
			if r.Name == name {
				return r, nil
			}
		}
		names := make([]string, len(v.repos))
		for i, r := range v.repos {
			names[i] = r.Name
		}
		return graph.RepositoryStatus{}, graph.Errorf(graph.CodeRepositoryNotFound,
			"no repository named %q; call list_repositories to see them", name).WithData("available", names)
	}
	var inRoots []graph.RepositoryStatus
	for _, r := range v.repos {
		if v.s.IsRoot(r.Root) {
			inRoots = append(inRoots, r)
		}
	}
	if len(inRoots) == 1 {
		return inRoots[0], nil
	}
	if len(inRoots) == 0 && len(v.repos) == 1 {
		return v.repos[0], nil
	}
	names := make([]string, 0, len(v.repos))
	for _, r := range v.repos {
		names = append(names, r.Name)
	}
	if len(names) == 0 {
		return graph.RepositoryStatus{}, graph.Errorf(graph.CodeIndexNotReady, "nothing is indexed yet; run `sextant index DIR`")
	}
	return graph.RepositoryStatus{}, answer.Invalid("repository", "several repositories are indexed; name one of %s", strings.Join(names, ", ")).WithData("available", names)
}

// Use records that the answer read repository name.
func (v *View) Use(names ...string) {
	for _, n := range names {
		v.used[n] = true
	}
}

// Key identifies the snapshots of the repositories named, for cursors.
func (v *View) Key(names []string) string {
	var parts []string
	for _, r := range v.repos {
		if len(names) == 0 || contains(names, r.Name) {
			parts = append(parts, fmt.Sprintf("%s@%d", r.Name, r.Snapshot.ID))
		}
	}
	return answer.Fingerprint(parts)
}

// Envelope fills the snapshot fields of an answer from the repositories the
// answer read: the newest snapshot id, its age, and whether all are fresh.
func (v *View) Envelope() answer.Envelope {
	var env answer.Envelope
	env.Fresh = true
	var newest time.Time
	for _, r := range v.repos {
		if !v.used[r.Name] {
			continue
		}
		if r.Snapshot.ID > env.SnapshotID {
			env.SnapshotID = r.Snapshot.ID
		}
		if r.Snapshot.CreatedAt.After(newest) {
			newest = r.Snapshot.CreatedAt
		}
		if r.Snapshot.Stage != "" {
			env.Stage = r.Snapshot.Stage
		}
		if reasons := v.Staleness(r); len(reasons) > 0 {
			env.Fresh = false
			f, failed := v.s.failed.of(r.Root)
			if failed && f.snapshot == r.Snapshot.ID {
				env.StaleReasons = append(env.StaleReasons, "refreshing failed, so this is the last good snapshot: "+f.err)
			}
			if doing, ok := v.s.runs.inBackground(r.Root); ok {
				env.StaleReasons = append(env.StaleReasons, "being indexed again in the background ("+doing+"); answers are fresh once it is done")
			}
			env.StaleReasons = append(env.StaleReasons, reasons...)
		}
	}
	if !newest.IsZero() {
		env.SnapshotAgeMS = v.s.now().Sub(newest).Milliseconds()
	}
	return env
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
