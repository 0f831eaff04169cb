package callwalk

import (
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
)

// A call-graph walk is bounded by max_nodes, the functions one page may
// reach. A walk it cuts is truncated like a page the limit cuts: its
// rows are a prefix of the rows of the whole walk (callwalk.Walk admits
// functions in the order of the rows), and the cursor carries a larger
// bound, so that the next page walks further with the same arguments and
// starts where this one stopped.

// The bounds of max_nodes, the functions a walk may reach.
const (
	DefaultMaxNodes = 100
	MaxMaxNodes     = 1000
)

// MaxNodes is the max_nodes of a walk: as given, or the default raised
// to limit, so that a page is not cut short of the size asked.
func MaxNodes(maxNodes, limit int) (int, error) {
	switch {
	case maxNodes == 0:
		return max(DefaultMaxNodes, limit), nil
	case maxNodes < 1 || maxNodes > MaxMaxNodes:
		return 0, answer.Invalid("max_nodes", "must be from 1 to %d (got %d)", MaxMaxNodes, maxNodes)
	}
	return maxNodes, nil
}

// DecodeCursor checks s as answer.DecodeCursor does and returns the offset
// of the page and the bound to walk it with: the cursor's, or maxNodes
// on the first page.
func DecodeCursor(s, query, view string, maxNodes int) (offset, reach int, err error) {
	c, err := answer.DecodeCursorOf(s, query, view)
	if err != nil {
		return 0, 0, err
	}
	if c.Reach == 0 {
		c.Reach = maxNodes
	}
	return c.Offset, c.Reach, nil
}

// Cut says whether max_nodes cut a walk, and with which bound.
type Cut struct {
	Stopped bool
	Reach   int // the bound this walk had
	Step    int // max_nodes: how much further the next page walks
}

// Page is Envelope.Page for a walk: a walk cut at its bound is
// truncated even on its last row, and its cursor walks Step further.
func (cut Cut) Page(env *answer.Envelope, total, offset, returned int, query, view string) {
	env.Total, env.Returned = total, returned
	next := answer.Cursor{Query: query, View: view, Offset: offset + returned, Reach: cut.Reach}
	switch {
	case offset+returned < total:
	case cut.Stopped:
		next.Reach = cut.Reach + cut.Step
	default:
		return
	}
	env.Truncated = true
	c := answer.EncodeCursor(next)
	env.NextCursor = &c
}

// WriteHeader adds to a walk's first line that max_nodes cut it.
func (cut Cut) WriteHeader(b *strings.Builder) {
	if cut.Stopped {
		fmt.Fprintf(b, "; walk cut at max_nodes=%d, more functions past them (next_cursor resumes)", cut.Reach)
	}
}

// WriteMore is answer.WriteMore for a walk: it names what cut the answer, the
// page (limit or budget) or the walk (max_nodes).
func (cut Cut) WriteMore(b *strings.Builder, env answer.Envelope, offset int, budgetCut bool) {
	if env.NextCursor == nil {
		return
	}
	if left := env.Total - offset - env.Returned; left > 0 {
		answer.WriteMore(b, env, offset, budgetCut, "edges")
		return
	}
	fmt.Fprintf(b, "more: the walk stopped at max_nodes=%d functions; next page walks %d further: cursor %s\n",
		cut.Reach, cut.Step, *env.NextCursor)
}
