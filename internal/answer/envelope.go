// Package answer holds what every tool's answer shares, whichever package
// computes it: the envelope (snapshot, freshness, paging), opaque paging
// cursors bound to their query, coded argument errors, and the escaping
// that keeps text read from a repository from posing as the structure of
// an answer.
package answer

import (
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// DefaultLimit is the page size when a call gives none.
const DefaultLimit = 50

// MaxLimit caps a page so one answer cannot flood an agent's context.
const MaxLimit = 500

// Envelope is the part every list answer shares: which snapshot it
// describes and how the page relates to the whole answer.
type Envelope struct {
	SnapshotID    int64    `json:"snapshot_id" jsonschema:"id of the snapshot this answer describes (the newest one when several repositories answered)"`
	SnapshotAgeMS int64    `json:"snapshot_age_ms" jsonschema:"how long ago that snapshot was published, in milliseconds"`
	Fresh         bool     `json:"fresh" jsonschema:"true when no file of the repositories read changed on disk since the snapshot"`
	StaleReasons  []string `json:"stale_reasons,omitempty" jsonschema:"why the answer is not fresh: changed, added or deleted files"`
	Stage         string   `json:"stage,omitempty" jsonschema:"syntax when the answer came from the first stage of an index still running (symbols from syntax, types not checked yet); absent when complete"`
	Total         int      `json:"total" jsonschema:"number of results in the whole answer, across pages"`
	Returned      int      `json:"returned" jsonschema:"number of results in this page"`
	Truncated     bool     `json:"truncated" jsonschema:"true when more results exist than this page holds"`
	NextCursor    *string  `json:"next_cursor" jsonschema:"pass back as cursor to get the next page; null on the last page"`
	// Error is set only on a failed call, and then alone.
	Error *ErrorInfo `json:"error,omitempty" jsonschema:"set only when the call failed: a stable code, a message and data"`
}

// ErrorInfo is the structured form of a failed call: a stable code, a
// message for the agent, and data such as suggestions or candidates.
type ErrorInfo struct {
	Code    graph.Code     `json:"code" jsonschema:"stable UPPER_SNAKE error code"`
	Message string         `json:"message" jsonschema:"what went wrong and how to fix the call"`
	Data    map[string]any `json:"data,omitempty" jsonschema:"details such as suggestions, candidates or diagnostics"`
}

// ErrorOf turns any error into the ErrorInfo a tool returns. Errors without
// a code are INTERNAL.
func ErrorOf(err error) ErrorInfo {
	if e, ok := AsError(err); ok {
		return ErrorInfo{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return ErrorInfo{Code: graph.CodeInternal, Message: err.Error()}
}

// Text renders the error for an agent or a person: the code and message,
// then the lists in its data (suggestions, candidates, ...), one per line.
func (e ErrorInfo) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Code, e.Message)
	for _, k := range []string{"suggestions", "candidates", "available"} {
		if list, ok := e.Data[k].([]string); ok && len(list) > 0 {
			fmt.Fprintf(&b, "\n%s:\n  %s", k, strings.Join(list, "\n  "))
		}
	}
	return b.String()
}
