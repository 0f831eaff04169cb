package query

import "github.com/sextant-dev/sextant/internal/answer"

// Envelope is the part every list answer shares: which snapshot it
// describes and how the page relates to the whole answer (see
// answer.Envelope).
type Envelope = answer.Envelope

// ErrorInfo is the structured form of a failed call (see
// answer.ErrorInfo).
type ErrorInfo = answer.ErrorInfo

// ErrorOf turns any error into the ErrorInfo a tool returns. Errors without
// a code are INTERNAL.
func ErrorOf(err error) ErrorInfo { return answer.ErrorOf(err) }

// DefaultLimit is the page size when a call gives none; MaxLimit caps a
// page so one answer cannot flood an agent's context.
const (
	DefaultLimit = answer.DefaultLimit
	MaxLimit     = answer.MaxLimit
)

// writeFreshness says, in a text rendering, that the answer's snapshot
// predates the disk (see answer.WriteFreshness).
var writeFreshness = answer.WriteFreshness
