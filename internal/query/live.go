package query

import (
	"github.com/sextant-dev/sextant/internal/live"
)

// liveEnvelope is the envelope of an answer computed from the disk at the
// call: fresh by construction, and from no snapshot (snapshot_id 0).
func liveEnvelope() Envelope {
	return Envelope{Fresh: true}
}

var relPath = live.RelPath
