package lsp_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
)

// TestStartBoundedByCallDeadline: a server that never answers initialize
// holds a call no longer than the request timeout (not the 60 s start
// timeout), answers LSP_TIMEOUT naming start_timeout, and is killed.
func TestStartBoundedByCallDeadline(t *testing.T) {
	p := testPool(t, lsp.PoolConfig{RequestTimeout: lsp.Duration{Duration: 500 * time.Millisecond}})
	spec := fakeSpec(t, "LSPFAKE_NO_INIT=1")
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := p.Acquire(context.Background(), spec, t.TempDir())
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("a server that never answers initialize held the call for more than 15 s with request_timeout 500ms")
	}
	took := time.Since(start)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeLSPTimeout || !strings.Contains(ge.Message, "start_timeout") {
		t.Fatalf("after %s: %v, want LSP_TIMEOUT naming start_timeout", took, err)
	}
	if took > 5*time.Second {
		t.Errorf("the call waited %s for initialize, want about the request timeout", took)
	}
	if !strings.Contains(ge.Message, "not answering initialize") {
		t.Errorf("message %q lacks the server's stderr tail", ge.Message)
	}
	if n := len(p.Running()); n != 0 {
		t.Errorf("%d servers left running after the failed start", n)
	}
}

// TestDeadServerRetried: a server killed between two calls (after the
// second call's lease was taken, the race the pool cannot see) does not
// fail the read-only call: it is sent again to the restarted server, whose
// documents are synced again, and the answer says the server was
// restarted, with the dead one's stderr tail.
func TestDeadServerRetried(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "x.txt", "alpha\nbeta\n")
	p := testPool(t, lsp.PoolConfig{})
	spec := fakeSpec(t, "LSPFAKE_STDERR=10")

	l := acquire(t, p, spec, dir)
	if _, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1}); err != nil {
		t.Fatal(err)
	}
	l.Release()

	l = acquire(t, p, spec, dir)
	defer l.Release()
	pid := l.Pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	gone(t, pid)
	got, err := hover(context.Background(), l, path, lsp.Point{Line: 2, Column: 1})
	if err != nil {
		t.Fatalf("read-only call to a server killed before it: %v", err)
	}
	if !strings.Contains(got, "b") {
		t.Errorf("hover after the restart = %s, want the character at line 2 column 1", got)
	}
	if l.Pid() == pid {
		t.Errorf("the answer came from pid %d, the dead server", pid)
	}
	note := strings.Join(l.Notices, "\n")
	if !strings.Contains(note, "restarted") || !strings.Contains(note, "flood") {
		t.Errorf("notices %q, want the restart and the dead server's stderr tail", l.Notices)
	}

	// Killed just before the call, not yet reaped when it is sent.
	pid = l.Pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1}); err != nil {
		t.Fatalf("read-only call racing the server's death: %v", err)
	}
	if l.Pid() == pid {
		t.Errorf("the answer came from pid %d, the dead server", pid)
	}

	// Killed once it has the request: the call fails, it is not sent
	// again (the request may be what killed the server).
	hang := file(t, dir, "h.txt", "HANG\n")
	pid = l.Pid()
	failed := make(chan error, 1)
	go func() {
		_, err := hover(context.Background(), l, hang, lsp.Point{Line: 1, Column: 1})
		failed <- err
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(hang + ".hanging"); err == nil {
			break
		}
		if i > 1000 {
			t.Fatal("the fake never received the hanging request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-failed; code(err) != graph.CodeLSPUnavailable || !strings.Contains(err.Error(), "killed") {
		t.Errorf("a server killed while answering: %v, want LSP_UNAVAILABLE naming the signal", err)
	}

	// A call that is not read-only is not sent twice (the lease's server
	// is the one killed above).
	gone(t, l.Pid())
	_, err = l.CallRaw(context.Background(), "workspace/executeCommand", map[string]any{"command": "x"}, 0)
	if code(err) != graph.CodeLSPUnavailable {
		t.Errorf("a writing request to a dead server: %v, want LSP_UNAVAILABLE", err)
	}
}
