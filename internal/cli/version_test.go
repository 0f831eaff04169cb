package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stamp sets the version variables a release stamps with -ldflags -X,
// restoring them when the test ends.
func stamp(t *testing.T, v, c, d string) {
	old := [3]string{version, commit, date}
	version, commit, date = v, c, d
	t.Cleanup(func() { version, commit, date = old[0], old[1], old[2] })
}

// TestVersionStamped: the version, commit and date a release stamps into
// the binary are what --version prints.
func TestVersionStamped(t *testing.T) {
	stamp(t, "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T10:00:00Z")
	for _, arg := range []string{"--version", "version"} {
		var out bytes.Buffer
		e := env{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), e, []string{arg}); code != ExitOK {
			t.Fatalf("%s: exit %d", arg, code)
		}
		want := "sextant 1.2.3 (commit 0123456789ab, built 2026-12-01T10:00:00Z)\n"
		if out.String() != want {
			t.Errorf("%s printed %q, want %q", arg, out.String(), want)
		}
	}
}

// TestServeInitializeCarriesVersion: the server info of the MCP
// initialize answer carries the stamped version, over a real HTTP
// listener on loopback.
func TestServeInitializeCarriesVersion(t *testing.T) {
	stamp(t, "1.2.3", "0123456789abcdef", "2026-12-01T10:00:00Z")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- runServe(ctx, env_(nil, &stderr), []string{"--http", addr, "--db", t.TempDir() + "/db", t.TempDir()})
	}()
	defer func() {
		cancel()
		<-done
	}()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
	var answer string
	for deadline := time.Now().Add(20 * time.Second); ; {
		req, _ := http.NewRequest("POST", "http://"+addr+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answer = fmt.Sprintf("%d %s", resp.StatusCode, b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen on %s: %v (stderr %s)", addr, err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(answer, `"serverInfo":{"name":"sextant","title":"Sextant","version":"1.2.3"}`) {
		t.Errorf("initialize answered %s, want serverInfo with version 1.2.3", answer)
	}
}
