package query

import (
	"context"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptools"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/srcfile"
)

// Progress is reported while a root is indexed on first use.
type Progress = session.Progress

// IndexFunc indexes the repository at root and publishes a snapshot. The
// CLI wires it to internal/index; tests may wire anything that publishes.
type IndexFunc = session.IndexFunc

// Service is what the shells hold and every tool is called with: the
// session the graph tools read through, and the language-server bridge of
// the lsp tools. It is safe for concurrent use.
type Service struct {
	sess  *session.Session
	lsp   *lsptools.Bridge
	files *srcfile.Cache // source files parsed from the disk, by path and content
}

// New returns a Service over store that may read files under roots and
// indexes a root on first use with index (nil: never index, answer
// INDEX_NOT_READY instead).
func New(store graph.Store, roots []string, index IndexFunc) (*Service, error) {
	sess, err := session.New(store, roots, index)
	if err != nil {
		return nil, err
	}
	return &Service{sess: sess, lsp: lsptools.New(sess.Roots()), files: srcfile.NewCache()}, nil
}

// CanonicalDir returns dir as an absolute path with symlinks resolved,
// checking that it is a directory.
func CanonicalDir(dir string) (string, error) { return session.CanonicalDir(dir) }

// SetRefresh turns refreshing on or off (see session.Settings.SetRefresh).
func (s *Service) SetRefresh(on bool) { s.sess.Settings().SetRefresh(on) }

// CheckFunc checks part of a repository ahead of its index (see
// session.CheckFunc).
type CheckFunc = session.CheckFunc

// Checked is what a CheckFunc made (see session.Checked).
type Checked = session.Checked

// SetCheck lets find_references answer before the first index of a root
// reaches its types stage (see session.Settings.SetCheck).
func (s *Service) SetCheck(check CheckFunc) { s.sess.Settings().SetCheck(check) }

// SetScope narrows every answer to the repositories of the roots (see
// session.Settings.SetScope).
func (s *Service) SetScope(on bool) { s.sess.Settings().SetScope(on) }

// SetDirWatch turns the directory watch on or off (see
// session.Settings.SetDirWatch).
func (s *Service) SetDirWatch(on bool) { s.sess.Settings().SetDirWatch(on) }

// Roots returns the directories the service may read, canonical.
func (s *Service) Roots() []string { return s.sess.Roots() }

// Watch keeps the roots' snapshots fresh in the background until ctx ends
// (see session.Session.Watch).
func (s *Service) Watch(ctx context.Context, interval time.Duration, refreshed func(snapshots map[string]int64)) {
	s.sess.Watch(ctx, interval, refreshed)
}

// Close shuts down every language server the service started and waits
// until they are reaped. The service answers no LSP tool afterwards.
func (s *Service) Close() error {
	s.sess.Close()
	return s.lsp.Close()
}

// open pins a fresh view of the index for one request (see
// session.Session.Open). The caller must close it.
func (s *Service) open(ctx context.Context, progress func(Progress)) (*session.View, error) {
	return s.sess.Open(ctx, progress)
}

// LSP is the service's language-server bridge, which the lsp tools call.
func (s *Service) LSP() *lsptools.Bridge { return s.lsp }
