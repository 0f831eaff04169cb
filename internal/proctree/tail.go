package proctree

import (
	"bytes"
	"strings"
	"sync"
)

// Tail is an io.Writer keeping the last bytes written to it: the output
// of a program in a tree (a language server's stderr, an indexer's),
// drained as it comes so that a flood never blocks the program.
type Tail struct {
	mu      sync.Mutex
	buf     []byte
	n       int
	dropped bool // bytes before buf were written and let go
}

// NewTail returns a Tail that keeps the last n bytes.
func NewTail(n int) *Tail { return &Tail{n: n} }

func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(b) >= t.n {
		t.dropped = t.dropped || len(t.buf)+len(b) > t.n
		t.buf = append(t.buf[:0], b[len(b)-t.n:]...)
		return len(b), nil
	}
	if over := len(t.buf) + len(b) - t.n; over > 0 {
		t.dropped = true
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return len(b), nil
}

// String returns the last lines kept, at most max bytes, trimmed: from
// the first whole line when what came before it is not kept.
func (t *Tail) String(max int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.buf, t.dropped
	if len(b) > max {
		b, cut = b[len(b)-max:], true
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}
