package index

import "sync"

// queue passes values from one goroutine to another without ever making
// the sender wait: the call graph's goroutine must not stall on a reader
// that has not started yet, or that stopped on an error.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	signal chan struct{} // one pending wake-up for the reader
}

func newQueue[T any]() *queue[T] { return &queue[T]{signal: make(chan struct{}, 1)} }

// put adds v. It must not be called after close.
func (q *queue[T]) put(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.wake()
}

// close tells the reader nothing more comes.
func (q *queue[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *queue[T]) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// next returns the oldest value, waiting for one; ok is false once the
// queue is closed and empty. One goroutine reads.
func (q *queue[T]) next() (v T, ok bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v = q.items[0]
			var zero T
			q.items[0] = zero
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return v, false
		}
		<-q.signal
	}
}
