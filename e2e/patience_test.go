package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockedBuffer is a buffer the server's stderr is copied into while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	os.Stderr.Write(p)
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWaitNotReady serves a root whose index takes longer than the calls
// wait (each load unit is held back by the hidden SEXTANT_TEST_LOAD_DELAY
// hook): a call that needs types answers INDEX_NOT_READY within its wait,
// with the stage, the progress so far and, once a unit is loaded, an
// estimate; progress notifications come at least every two seconds
// meanwhile; indexing goes on, and a later call gets the answer, from the
// one run started: the references from the types stage, a call that
// needs the call graph from the complete snapshot. A call that syntax
// answers (find_symbol) is answered from the syntax stage long before,
// and says so; the uses of a function from a check of the packages that
// can hold them, before the whole index, and say so.
func TestWaitNotReady(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two modules are two load units: the second unit's wait comes after
	// one unit is measured, when there is an estimate.
	write("go.mod", "module example.com/slow\n\ngo 1.22\n")
	write("slow.go", "package slow\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n\n"+
		"// Greeter greets.\ntype Greeter struct{}\n\n// Greet greets.\nfunc (Greeter) Greet() string { return Hello() }\n\n"+
		"// Use greets.\nfunc Use() string { return Greeter{}.Greet() }\n")
	write("sub/go.mod", "module example.com/slow/sub\n\ngo 1.22\n")
	write("sub/sub.go", "package sub\n\n// World is greeted.\nfunc World() string { return \"world\" }\n")

	const delay = 4 * time.Second
	var stderr lockedBuffer
	cmd := exec.Command(bin, "serve", "--db", filepath.Join(t.TempDir(), "slow.db"), root)
	cmd.Env = append(os.Environ(), "SEXTANT_TEST_LOAD_DELAY="+delay.String())
	cmd.Stderr = &stderr
	progress := &progressLog{}
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, &mcp.ClientOptions{ProgressNotificationHandler: progress.add})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	callTool := func(name string, args map[string]any, token string) (answer, time.Duration) {
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		params.SetProgressToken(token)
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return answerOf(t, res), time.Since(start)
	}
	// The uses of a method count those of the interface methods related
	// to it, which any package may declare: they wait for the types of
	// the whole repository.
	callWait := func(wait int, token string) (answer, time.Duration) {
		return callTool("find_references", map[string]any{"qualified_name": "Greeter.Greet", "wait": wait}, token)
	}

	// find_symbol is answered from the syntax stage, published before
	// the first (delayed) load unit, well within its wait.
	a, took := callTool("find_symbol", map[string]any{"name": "Hello", "mode": "exact", "wait": 20}, "syntax")
	if a.res.IsError {
		t.Fatalf("find_symbol during the index: %s", a.text)
	}
	if took > 2*delay {
		t.Errorf("find_symbol took %v, longer than two load delays", took)
	}
	if stageOf(a) != "syntax" || !strings.Contains(a.text, "slow.go") {
		t.Errorf("find_symbol during the index: stage %v, want syntax:\n%s", stageOf(a), a.text)
	}

	// The uses of a function are answered from a check of its package and
	// the packages depending on it, long before the whole index.
	a, took = callTool("find_references", map[string]any{"qualified_name": "Hello", "wait": 20}, "check")
	var checked struct {
		Checked string `json:"checked"`
	}
	_ = json.Unmarshal(a.structured, &checked)
	if a.res.IsError || checked.Checked == "" || !strings.Contains(a.text, "in Greeter.Greet") {
		t.Errorf("find_references of a function during the index: not from a check:\n%s", a.text)
	}
	if took > 2*delay {
		t.Errorf("find_references from a check took %v, longer than two load delays", took)
	}

	// Out of range is refused before anything waits.
	a, _ = callWait(601, "range")
	if e := checkErr(t, "find_references", map[string]any{"wait": 601}, a, "INVALID_ARGUMENT"); e.Data["field"] != "wait" {
		t.Errorf("wait 601: data %v, want field wait", e.Data)
	}

	a, took = callWait(5, "first")
	first := checkErr(t, "find_references", map[string]any{"wait": 5}, a, "INDEX_NOT_READY")
	if took > 5*time.Second+3*time.Second {
		t.Errorf("wait 5 answered after %v", took)
	}
	if first.Data["stage"] == nil || first.Data["total"] == nil || first.Data["elapsed_seconds"] == nil {
		t.Errorf("INDEX_NOT_READY lacks stage, total or elapsed_seconds: %v", first.Data)
	}
	if !strings.Contains(first.Message, "call again") {
		t.Errorf("INDEX_NOT_READY does not say to call again: %s", first.Message)
	}
	var notes []mcp.ProgressNotificationParams
	for _, n := range progress.snapshot() {
		if n.ProgressToken == "first" {
			notes = append(notes, n)
		}
	}
	if len(notes) < 2 {
		t.Errorf("a 5 s wait heard %d progress notifications, want one at least every 2 s: %v", len(notes), notes)
	}
	for i := 1; i < len(notes); i++ {
		if notes[i].Progress <= notes[i-1].Progress {
			t.Errorf("progress did not increase: %v then %v", notes[i-1].Progress, notes[i].Progress)
		}
	}

	// Call again until the answer comes; one of the not-ready answers on
	// the way, once a unit is loaded, estimates the time left. A wait of
	// one second samples the run often enough to see that answer where
	// the rest of the run is short (under Wine, with warm caches, a wait
	// of two seconds could span it).
	estimated := false
	var got answer
	for i := 0; ; i++ {
		if i > 120 {
			t.Fatal("no answer after 120 calls")
		}
		a, _ := callWait(1, "again")
		if !a.res.IsError {
			got = a
			break
		}
		e := checkErr(t, "find_references", map[string]any{"wait": 1}, a, "INDEX_NOT_READY")
		if est, ok := e.Data["estimate_seconds"].(float64); ok && est >= 0 {
			estimated = true
			if done, _ := e.Data["done"].(float64); done < 1 && e.Data["stage"] == "load" {
				t.Errorf("an estimate before any unit was loaded: %v", e.Data)
			}
		}
	}
	if !estimated {
		t.Error("no INDEX_NOT_READY answer estimated the time left")
	}
	if !strings.Contains(got.text, "in Use") {
		t.Errorf("the answer does not find Greeter.Greet's use:\n%s", got.text)
	}
	// The references come from the types stage, or from the complete
	// snapshot if the call graph was done first; a call that needs the
	// complete snapshot waits for it.
	if st := stageOf(got); st != nil && st != "types" {
		t.Errorf("the references' answer has stage %v, want types or none", st)
	}
	a, _ = callTool("get_callers", map[string]any{"qualified_name": "Hello", "wait": 60}, "callers")
	if a.res.IsError || stageOf(a) != nil {
		t.Errorf("get_callers after the references: stage %v:\n%s", stageOf(a), a.text)
	}
	a, _ = callTool("find_symbol", map[string]any{"name": "Hello", "mode": "exact"}, "after")
	if a.res.IsError || stageOf(a) != nil {
		t.Errorf("find_symbol after the index: stage %v:\n%s", stageOf(a), a.text)
	}
	if n := strings.Count(stderr.String(), "index run started"); n != 1 {
		t.Errorf("%d index runs started, want 1:\n%s", n, stderr.String())
	}
}

// stageOf returns the stage an answer says it came from (nil: complete).
func stageOf(a answer) any {
	var env struct {
		Stage any `json:"stage"`
	}
	_ = json.Unmarshal(a.structured, &env)
	return env.Stage
}
