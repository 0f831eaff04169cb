package query

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/sextant-dev/sextant/internal/session"
)

// The bounds of the wait parameter, in seconds.
const (
	DefaultWait = 20
	maxWait     = 600
)

// Wait is the wait parameter of every tool that reads the index: how many
// seconds the call waits for the indexing of a root that has no snapshot
// yet (or a refresh of a stale one) before it answers INDEX_NOT_READY with
// the progress so far. 0 to 600; omitted, the server's default (20 when
// serving MCP). An explicit 0 is kept apart from an omitted value.
type Wait int

// noWait is how an explicit 0 is held, so that 0 can mean omitted.
const noWait Wait = -1

// UnmarshalJSON implements json.Unmarshaler, rejecting values outside 0-600.
// null is the wait omitted, as it is for every parameter: not 0.
func (w *Wait) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return invalid("wait", "must be a whole number of seconds from 0 to %d (got %s)", maxWait, b)
	}
	if n < 0 || n > maxWait {
		return invalid("wait", "must be from 0 to %d seconds (got %d)", maxWait, n)
	}
	*w = Wait(n)
	if n == 0 {
		*w = noWait
	}
	return nil
}

// isNull reports whether a JSON value is null, which a parameter type
// decoding itself reads as the parameter omitted (encoding/json leaves the
// other types as they were).
func isNull(b []byte) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

// withWait returns ctx carrying the patience the input's Wait field asks
// for, if it has one and it was given.
func withWait(ctx context.Context, in any) context.Context {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return ctx
	}
	f := v.FieldByName("Wait")
	if !f.IsValid() || f.Type() != reflect.TypeFor[Wait]() {
		return ctx
	}
	switch w := Wait(f.Int()); {
	case w == noWait:
		return session.WithPatience(ctx, 0)
	case w > 0:
		return session.WithPatience(ctx, time.Duration(w)*time.Second)
	}
	return ctx
}

// SetPatience sets how long a call that gives no wait waits for indexing
// (see session.Settings.SetPatience).
func (s *Service) SetPatience(d time.Duration) { s.sess.Settings().SetPatience(d) }

// SetLifetime ties indexing runs to ctx, whose end cancels them (see
// session.Settings.SetLifetime).
func (s *Service) SetLifetime(ctx context.Context) { s.sess.Settings().SetLifetime(ctx) }
