package answer

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Cursor is what an opaque cursor carries: the query it belongs to, the
// view (repository snapshots) it was computed on, and where the next page
// starts.
type Cursor struct {
	V      int    `json:"v"`
	Query  string `json:"q"`
	View   string `json:"s"`
	Offset int    `json:"o"`
	// Reach is, for a call-graph walk, the max_nodes the next page walks
	// with; 0 elsewhere.
	Reach int `json:"n,omitempty"`
}

// Fingerprint hashes the parts of a call that define its answer, so a
// cursor cannot be replayed against another query.
func Fingerprint(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// EncodeCursor makes the opaque string of c.
func EncodeCursor(c Cursor) string {
	c.V = 1
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor checks that s is a cursor of this query and view and returns
// the offset it points at.
func DecodeCursor(s, query, view string) (int, error) {
	c, err := DecodeCursorOf(s, query, view)
	return c.Offset, err
}

// DecodeCursorOf is DecodeCursor returning the whole cursor (zero for s
// empty).
func DecodeCursorOf(s, query, view string) (Cursor, error) {
	if s == "" {
		return Cursor{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c Cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.V != 1 || c.Offset < 0 || c.Reach < 0 {
		return Cursor{}, graph.Errorf(graph.CodeCursorInvalid, "cursor is not one this server issued; call again without cursor")
	}
	if c.Query != query {
		return Cursor{}, graph.Errorf(graph.CodeCursorInvalid, "cursor belongs to a different query; pass the same arguments as the call that returned it, or drop cursor")
	}
	if c.View != view {
		return Cursor{}, graph.Errorf(graph.CodeCursorInvalid, "the index changed since this cursor was issued; call again without cursor to page the new snapshot")
	}
	return c, nil
}

// Page fills the paging fields of env for results [offset, offset+returned)
// of total, issuing a cursor for the rest.
func (env *Envelope) Page(total, offset, returned int, query, view string) {
	env.Total = total
	env.Returned = returned
	if offset+returned < total {
		env.Truncated = true
		c := EncodeCursor(Cursor{Query: query, View: view, Offset: offset + returned})
		env.NextCursor = &c
	}
}

// PageLimit checks a call's limit: 0 is DefaultLimit, and it cannot pass
// MaxLimit.
func PageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 0 || limit > MaxLimit:
		return 0, graph.Errorf(graph.CodeInvalidArgument, "limit must be between 1 and %d (got %d)", MaxLimit, limit).WithData("field", "limit")
	}
	return limit, nil
}

// PageOf pages n results with limit and cursor; the cursor is bound to
// the query's parts.
func PageOf(env *Envelope, n, limit int, cur string, query ...any) (int, int, error) {
	limit, err := PageLimit(limit)
	if err != nil {
		return 0, 0, err
	}
	q := Fingerprint(query...)
	off, err := DecodeCursor(cur, q, "lsp")
	if err != nil {
		return 0, 0, err
	}
	if off > n {
		off = n
	}
	end := min(off+limit, n)
	env.Fresh = true
	env.Page(n, off, end-off, q, "lsp")
	return off, end, nil
}
