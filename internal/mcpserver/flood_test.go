package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive a built sextant binary (SEXTANT_HARDEN_BIN, which
// .ci/harden.sh builds) over loopback, and measure the server process
// itself. They are skipped without it.

// startServe starts `sextant serve --http 127.0.0.1:0` with args on a small
// module and returns its endpoint and its process id; it is stopped when
// the test ends.
func startServe(t *testing.T, args ...string) (endpoint string, pid int) {
	t.Helper()
	bin := os.Getenv("SEXTANT_HARDEN_BIN")
	if bin == "" {
		t.Skip("SEXTANT_HARDEN_BIN (a built sextant binary) is not set; .ci/harden.sh sets it")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "mod")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/flood\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(root, "p.go"), []byte("package p\n\n// P does nothing.\nfunc P() {}\n"), 0o644)
	cmd := exec.Command(bin, append(append([]string{"serve", "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "db")}, args...), root)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("sextant serve still running 15 s after SIGTERM")
		}
	})
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			} else {
				t.Log("serve: " + sc.Text())
			}
		}
	}()
	select {
	case endpoint = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("sextant serve printed no address within 30 s")
	}
	return endpoint, cmd.Process.Pid
}

// rssKiB is the resident set of a process, from /proc.
func rssKiB(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestSessionFlood opens sessions (initialize, never ended) over loopback
// as fast as it allows for SEXTANT_FLOOD_SECONDS (default 60; at most
// 5,000,000 requests), against serve with its default bounds. The server's
// resident memory stays flat: at the end within 20% of what it was once
// the flood had filled the session bound (from 10% of the time, 3 s at
// least), and never twice that; initializes past the bound are not
// refused (each closes an idle session the flood opened); a session
// opened and used before the flood still answers.
func TestSessionFlood(t *testing.T) {
	seconds := 60.0
	if s := os.Getenv("SEXTANT_FLOOD_SECONDS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v > 3600 {
			t.Fatalf("SEXTANT_FLOOD_SECONDS=%q: want seconds, at most 3600", s)
		}
		seconds = v
	}
	const maxRequests = 5_000_000
	endpoint, pid := startServe(t)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "before", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "P"}}); err != nil || res.IsError {
		t.Fatalf("find_symbol before the flood: %v %v", err, res)
	}
	before := rssKiB(t, pid)

	const workers = 16
	transport := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
	client := &http.Client{Transport: transport, Timeout: testTimeout}
	defer transport.CloseIdleConnections()
	var (
		sent     atomic.Int64
		statuses sync.Map // status -> *atomic.Int64
		refusal  atomic.Value
	)
	count := func(status int) {
		v, _ := statuses.LoadOrStore(status, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	start := time.Now()
	deadline := start.Add(time.Duration(seconds * float64(time.Second)))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && sent.Add(1) <= maxRequests {
				req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					count(-1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				count(resp.StatusCode)
				if resp.StatusCode == http.StatusServiceUnavailable {
					refusal.CompareAndSwap(nil, string(body))
				}
			}
		}()
	}
	// The resident set goes up and down with each GC cycle, so each
	// level is the median of a window of one-second samples: once the
	// bound is full (from 10% of the time, 3 s at least, for 10% of it)
	// and at the end (the last 10%).
	var samples []int
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		samples = append(samples, rssKiB(t, pid))
	}
	wg.Wait()
	elapsed := time.Since(start)
	window := max(3, len(samples)/10)
	from := min(max(3, len(samples)/10), max(0, len(samples)-2*window))
	warm := median(samples[from:min(len(samples), from+window)])
	end := median(samples[max(0, len(samples)-window):])
	peak := slices.Max(append(samples, 0))
	counts := map[int]int64{}
	statuses.Range(func(k, v any) bool { counts[k.(int)] = v.(*atomic.Int64).Load(); return true })
	n := min(sent.Load(), maxRequests)
	t.Logf("%d initializes in %.1f s (%.0f/s) by %d workers: statuses %v (-1: transport error)", n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), workers, counts)
	t.Logf("server RSS: %d KiB before, %d KiB once the bound was full, %d KiB at the end (medians of %d one-second samples), %d KiB peak",
		before, warm, end, window, peak)

	if counts[http.StatusOK] <= int64(DefaultMaxSessions) {
		t.Errorf("%d initializes succeeded: the flood did not pass the session bound (%d)", counts[http.StatusOK], DefaultMaxSessions)
	}
	if n := counts[http.StatusServiceUnavailable]; n != 0 {
		r, _ := refusal.Load().(string)
		t.Errorf("%d initializes refused with 503 while idle sessions could be closed: %.300s", n, r)
	}
	if end > warm+warm/5 {
		t.Errorf("server RSS grew from %d KiB (bound full) to %d KiB at the end: more than 20%%", warm, end)
	}
	if peak > 2*warm { // the closed sessions' garbage comes and goes (GOGC 400 when serving); growth without end does not
		t.Errorf("server RSS peaked at %d KiB, more than twice the %d KiB once the bound was full", peak, warm)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "P"}}); err != nil || res.IsError {
		t.Errorf("the session opened before the flood, after it: %v %v", err, res)
	}
}

// TestServeSlowBody: serve with --token and --body-timeout 2s refuses a
// stalled body with 408 within the timeout (and a little), and a request
// without the token with 401 before reading its body.
func TestServeSlowBody(t *testing.T) {
	const timeout = 2 * time.Second
	endpoint, _ := startServe(t, "--token", "s3cret", "--body-timeout", timeout.String())
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	for _, c := range []struct {
		auth  string
		want  int
		limit time.Duration
	}{
		{"Authorization: Bearer s3cret\r\n", http.StatusRequestTimeout, timeout + 2*time.Second},
		{"", http.StatusUnauthorized, timeout / 2},
	} {
		conn := rawConn(t, addr, strings.Replace(stalledPost(c.auth), "POST / ", "POST /mcp ", 1))
		status, closed, took := answer(t, conn, 3*timeout)
		t.Logf("stalled body, %q: %d after %v, connection closed %v", c.auth, status, took, closed)
		if status != c.want || !closed || took > c.limit {
			t.Errorf("stalled body, %q: %d after %v, connection closed %v; want %d and closed within %v", c.auth, status, took, closed, c.want, c.limit)
		}
	}
}
