package index

import (
	"testing"
	"time"
)

// A queue hands values over in order, never makes the sender wait, wakes
// a reader that waits, and reports closed only once it is empty.
func TestQueue(t *testing.T) {
	q := newQueue[int]()
	for i := range 1000 { // no reader yet: put must not block
		q.put(i)
	}
	for i := range 1000 {
		if v, ok := q.next(); !ok || v != i {
			t.Fatalf("next = %d, %v; want %d, true", v, ok, i)
		}
	}

	got := make(chan int)
	go func() {
		for {
			v, ok := q.next()
			if !ok {
				close(got)
				return
			}
			got <- v
		}
	}()
	select {
	case v := <-got:
		t.Fatalf("next returned %d from an empty queue", v)
	case <-time.After(20 * time.Millisecond):
	}
	q.put(7) // wakes the waiting reader
	if v := <-got; v != 7 {
		t.Fatalf("got %d, want 7", v)
	}
	q.put(8)
	q.close() // what was put before close still comes out
	if v := <-got; v != 8 {
		t.Fatalf("got %d, want 8", v)
	}
	if _, open := <-got; open {
		t.Fatal("the reader did not see the queue closed")
	}
}
