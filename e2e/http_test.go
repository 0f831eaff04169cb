package e2e_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servingLine is what `sextant serve --http` prints on stderr once it
// listens.
var servingLine = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)

// startHTTP starts `sextant serve --http 127.0.0.1:0` over the shared
// database and returns the endpoint it reports, and a function that
// stops the server as the platform's service manager or a user at its
// console does (stop: SIGTERM, or Ctrl+Break on Windows) and checks that
// it exits cleanly. A server still running when the test ends is killed.
func startHTTP(t *testing.T) (endpoint string, shutdown func()) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--db", sharedDB, cobraDir)
	stoppable(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sextant serve --http: %v", err)
	}
	exited := make(chan error, 1)
	serving := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if m := servingLine.FindStringSubmatch(line); m != nil && !sent {
				serving <- m[1]
				sent = true
				continue
			}
			os.Stderr.WriteString(line + "\n")
		}
		io.Copy(io.Discard, stderr)
		exited <- cmd.Wait()
	}()
	done := false
	t.Cleanup(func() {
		if !done {
			cmd.Process.Kill()
			<-exited
		}
	})
	shutdown = func() {
		t.Helper()
		if err := stop(cmd); err != nil {
			if underWine() {
				t.Skipf("the clean exit on %s is not checked under Wine, whose GenerateConsoleCtrlEvent fails where Windows delivers the event: %v", stopName, err)
			}
			t.Fatalf("stopping sextant serve --http: %v", err)
		}
		select {
		case err := <-exited:
			done = true
			if err != nil {
				t.Errorf("sextant serve --http did not exit cleanly on %s: %v", stopName, err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("sextant serve --http still running 15s after %s", stopName)
		}
	}
	select {
	case ep := <-serving:
		return ep, shutdown
	case err := <-exited:
		done = true
		t.Fatalf("sextant serve --http exited before serving: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("sextant serve --http printed no address within 30s")
	}
	return "", nil
}

// TestStreamableHTTP serves over streamable HTTP on a loopback port,
// calls tools with the go-sdk client, and stops the server as its
// platform does (startHTTP).
func TestStreamableHTTP(t *testing.T) {
	sharedIndex(t)
	endpoint, shutdown := startHTTP(t)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Errorf("endpoint %s is not on loopback", endpoint)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e-http", Version: "v0.0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	if init := cs.InitializeResult(); init == nil || !strings.Contains(init.Instructions, "find_symbol") {
		t.Errorf("no instructions over HTTP")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(toolNames) {
		t.Fatalf("tools/list over HTTP: %v (%d tools)", err, len(tools.Tools))
	}
	out, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Command", "kind": "type", "mode": "exact"})
	if out.Total != 1 || out.Results[0].Path != "command.go" || !out.Fresh {
		t.Errorf("find_symbol over HTTP: %+v", out)
	}
	callErr(t, cs, "get_symbol", map[string]any{"qualified_name": "Comand"}, "SYMBOL_NOT_FOUND")

	// A second session on the same server works alongside the first.
	cs2, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("second session: %v", err)
	}
	outline, _ := callOK[outlineOut](t, cs2, "get_file_outline", map[string]any{"path": "args.go"})
	if len(outline.Results) != 1 || outline.Results[0].entry("PositionalArgs") == nil {
		t.Errorf("get_file_outline over HTTP: %+v", outline.Results)
	}
	cs.Close()
	cs2.Close()
	shutdown()
}
