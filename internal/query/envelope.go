package query

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
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
	if e, ok := asError(err); ok {
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

// cursor is what an opaque cursor carries: the query it belongs to, the
// view (repository snapshots) it was computed on, and where the next page
// starts.
type cursor struct {
	V      int    `json:"v"`
	Query  string `json:"q"`
	View   string `json:"s"`
	Offset int    `json:"o"`
	// Reach is, for a call-graph walk, the max_nodes the next page walks
	// with (see decodeWalkCursor); 0 elsewhere.
	Reach int `json:"n,omitempty"`
}

// fingerprint hashes the parts of a call that define its answer, so a
// cursor cannot be replayed against another query.
func fingerprint(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func encodeCursor(c cursor) string {
	c.V = 1
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor checks that s is a cursor of this query and view and returns
// the offset it points at.
func decodeCursor(s, query, view string) (int, error) {
	c, err := decodeCursorOf(s, query, view)
	return c.Offset, err
}

// decodeCursorOf is decodeCursor returning the whole cursor (zero for s
// empty).
func decodeCursorOf(s, query, view string) (cursor, error) {
	if s == "" {
		return cursor{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.V != 1 || c.Offset < 0 || c.Reach < 0 {
		return cursor{}, graph.Errorf(graph.CodeCursorInvalid, "cursor is not one this server issued; call again without cursor")
	}
	if c.Query != query {
		return cursor{}, graph.Errorf(graph.CodeCursorInvalid, "cursor belongs to a different query; pass the same arguments as the call that returned it, or drop cursor")
	}
	if c.View != view {
		return cursor{}, graph.Errorf(graph.CodeCursorInvalid, "the index changed since this cursor was issued; call again without cursor to page the new snapshot")
	}
	return c, nil
}

// page fills the paging fields of env for results [offset, offset+returned)
// of total, issuing a cursor for the rest.
func (env *Envelope) page(total, offset, returned int, query, view string) {
	env.Total = total
	env.Returned = returned
	if offset+returned < total {
		env.Truncated = true
		c := encodeCursor(cursor{Query: query, View: view, Offset: offset + returned})
		env.NextCursor = &c
	}
}

func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 0 || limit > MaxLimit:
		return 0, graph.Errorf(graph.CodeInvalidArgument, "limit must be between 1 and %d (got %d)", MaxLimit, limit).WithData("field", "limit")
	}
	return limit, nil
}

func invalid(field, format string, args ...any) *graph.Error {
	return graph.Errorf(graph.CodeInvalidArgument, "%s: %s", field, fmt.Sprintf(format, args...)).WithData("field", field)
}
