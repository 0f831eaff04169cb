package query

import (
	"path/filepath"
)

// liveEnvelope is the envelope of an answer computed from the disk at the
// call: fresh by construction, and from no snapshot (snapshot_id 0).
func liveEnvelope() Envelope {
	return Envelope{Fresh: true}
}

// relPath renders an absolute filename of a load relative to its root;
// ok is false for files outside it (the standard library, the module
// cache), whose paths an answer does not give.
func relPath(root, filename string) (string, bool) {
	if filename == "" {
		return "", false
	}
	r, err := filepath.Rel(root, filename)
	if err != nil || !filepath.IsLocal(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
