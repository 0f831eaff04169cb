package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// toolStats are the latencies of one tool, overall and per mode, with how
// the calls came out.
type toolStats struct {
	All   harness.Latency            `json:"all"`
	Modes map[string]harness.Latency `json:"modes"`
	// Outcomes counts, per mode, "ok", "empty" (find_symbol with no
	// match) and error codes (AMBIGUOUS_SYMBOL is expected for bare
	// qualified names that several packages declare).
	Outcomes map[string]map[string]int `json:"outcomes"`
	// Examples are up to three calls of each mode and outcome other than
	// ok, to look into.
	Examples map[string][]harness.Call `json:"examples,omitempty"`
}

// latencies are the timed calls of one path (in-process or MCP).
type latencies struct {
	// FirstCall is the untimed warm-up call (a find_symbol): the first
	// call reads the snapshot's file list for freshness checks and warms
	// SQLite's page cache.
	FirstCall time.Duration        `json:"first_call_ns"`
	Tools     map[string]toolStats `json:"tools"`
	// CPUPerCall is the mean CPU time (user+sys, every thread) of the
	// process that answers, per call: for in-process calls by tool, over
	// MCP the server's for all calls together (key "all") and the
	// client's, this process's (key "client"). Unlike
	// latency it hardly grows when other work competes for the CPUs.
	CPUPerCall map[string]time.Duration `json:"cpu_per_call_ns"`
}

// sample is one timed call.
type sample struct {
	call    harness.Call
	took    time.Duration
	outcome string
}

func summarize(samples []sample) map[string]toolStats {
	byTool := map[string][]sample{}
	for _, s := range samples {
		byTool[s.call.Tool] = append(byTool[s.call.Tool], s)
	}
	out := map[string]toolStats{}
	for tool, ss := range byTool {
		var all []time.Duration
		modes := map[string][]time.Duration{}
		st := toolStats{Modes: map[string]harness.Latency{}, Outcomes: map[string]map[string]int{},
			Examples: map[string][]harness.Call{}}
		for _, s := range ss {
			all = append(all, s.took)
			modes[s.call.Mode] = append(modes[s.call.Mode], s.took)
			if st.Outcomes[s.call.Mode] == nil {
				st.Outcomes[s.call.Mode] = map[string]int{}
			}
			st.Outcomes[s.call.Mode][s.outcome]++
			if k := s.call.Mode + " " + s.outcome; s.outcome != "ok" && len(st.Examples[k]) < 3 {
				st.Examples[k] = append(st.Examples[k], s.call)
			}
		}
		st.All = harness.Summarize(all)
		for m, ds := range modes {
			st.Modes[m] = harness.Summarize(ds)
		}
		out[tool] = st
	}
	return out
}

// querySet reads every symbol of the index and builds n calls per tool,
// find_symbol and get_symbol alternating, reproducibly from seed; then
// changes calls each of find_references and get_impact, which a
// comparison of binaries times too.
func querySet(ctx context.Context, db string, n, changes int, seed uint64) ([]harness.Call, int, error) {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	r, err := st.Read(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	// An empty substring matches every symbol.
	syms, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		return nil, 0, fmt.Errorf("listing symbols: %w", err)
	}
	if len(syms) != total || total == 0 {
		return nil, 0, fmt.Errorf("listing symbols: got %d of %d", len(syms), total)
	}
	rng := newRand(seed)
	find := harness.FindSymbolCalls(syms, n, rng)
	get := harness.GetSymbolCalls(syms, n, rng)
	calls := make([]harness.Call, 0, len(find)+len(get))
	for i := range n {
		calls = append(calls, find[i], get[i])
	}
	calls = append(calls, harness.KeyCalls("find_references", syms, changes, rng)...)
	calls = append(calls, harness.KeyCalls("get_impact", syms, changes, rng)...)
	return calls, total, nil
}

// firstOf returns the first n calls of each tool, in order.
func firstOf(calls []harness.Call, n int) []harness.Call {
	seen := map[string]int{}
	var out []harness.Call
	for _, c := range calls {
		if seen[c.Tool] < n {
			seen[c.Tool]++
			out = append(out, c)
		}
	}
	return out
}

// warmup is the untimed first call of each path.
var warmup = harness.Call{Tool: "find_symbol", Mode: "warmup", Args: map[string]any{"name": "Load"}}

// inProcess times calls against the index through internal/query, the
// code both the MCP server and the CLI run, without any transport: each
// call decodes its JSON arguments, pins a read snapshot, checks freshness
// against the disk and queries SQLite, as in the server.
func inProcess(ctx context.Context, db, corpus string, calls []harness.Call) (latencies, error) {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return latencies{}, err
	}
	defer st.Close()
	svc, err := query.New(st, []string{corpus}, nil)
	if err != nil {
		return latencies{}, err
	}
	tools := map[string]query.Tool{}
	for _, t := range query.Tools() {
		tools[t.Name] = t
	}
	raw := make([][]byte, len(calls))
	for i, c := range calls {
		if raw[i], err = json.Marshal(c.Args); err != nil {
			return latencies{}, err
		}
	}
	call := func(c harness.Call, args []byte) (time.Duration, string) {
		start := time.Now()
		ans, err := tools[c.Tool].Call(ctx, svc, args, nil)
		took := time.Since(start)
		switch {
		case err != nil:
			return took, string(query.ErrorOf(err).Code)
		case isEmpty(ans):
			return took, "empty"
		}
		return took, "ok"
	}
	var res latencies
	wargs, _ := json.Marshal(warmup.Args)
	res.FirstCall, _ = call(warmup, wargs)
	samples := make([]sample, len(calls))
	cpu, count := map[string]time.Duration{}, map[string]int{}
	for i, c := range calls {
		if err := ctx.Err(); err != nil {
			return latencies{}, err
		}
		before := harness.SelfCPU()
		took, outcome := call(c, raw[i])
		cpu[c.Tool] += harness.SelfCPU() - before
		count[c.Tool]++
		samples[i] = sample{call: c, took: took, outcome: outcome}
	}
	res.Tools = summarize(samples)
	res.CPUPerCall = map[string]time.Duration{}
	for tool, d := range cpu {
		res.CPUPerCall[tool] = d / time.Duration(count[tool])
	}
	return res, nil
}

func isEmpty(a query.Answer) bool {
	f, ok := a.(*query.FindSymbolOutput)
	return ok && f.Total == 0
}

// mcpResults are the calls over MCP and the server's memory.
type mcpResults struct {
	latencies
	// Connect is the time from starting `sextant serve` to a completed
	// initialize handshake.
	Connect time.Duration `json:"connect_ns"`
	// Idle is the server's memory after initialize, before any call.
	Idle harness.Status `json:"idle"`
	// After is the server's memory right after the last call: VmRSS is
	// what it holds with the index open, VmHWM its peak so far.
	After harness.Status `json:"after"`
	// MaxRSSKiB is ru_maxrss of the server once it exited: its exact peak.
	MaxRSSKiB int64 `json:"maxrss_kib"`
	// ProtocolErrors counts calls that failed as JSON-RPC errors.
	ProtocolErrors int `json:"protocol_errors"`
}

// overMCP starts `sextant serve` on the index and times calls through the
// MCP Go SDK client over stdio: JSON-RPC encoding, the pipe, the server's
// schema validation and the tool, and decoding the result.
func overMCP(ctx context.Context, sextant, db, corpus string, calls []harness.Call) (mcpResults, error) {
	var res mcpResults
	cmd := exec.Command(sextant, "serve", "--db", db, corpus)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-bench", Version: "0.1.0"}, nil)
	start := time.Now()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return res, fmt.Errorf("starting sextant serve: %v: %s", err, harness.Tail(stderr.String()))
	}
	res.Connect = time.Since(start)
	closed := false
	defer func() {
		if !closed {
			_ = sess.Close()
		}
	}()
	pid := cmd.Process.Pid
	if res.Idle, err = harness.ProcStatus(pid); err != nil {
		return res, err
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	call := func(c harness.Call) (time.Duration, result) {
		start := time.Now()
		r, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		return time.Since(start), result{r, err}
	}
	took, first := call(warmup)
	if first.err != nil {
		return res, fmt.Errorf("first call: %v: %s", first.err, harness.Tail(stderr.String()))
	}
	res.FirstCall = took
	cpuBefore, err := procCPU(pid)
	if err != nil {
		return res, err
	}
	clientBefore := harness.SelfCPU()
	samples := make([]sample, len(calls))
	results := make([]result, len(calls))
	for i, c := range calls {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		samples[i].call = c
		samples[i].took, results[i] = call(c)
	}
	clientAfter := harness.SelfCPU()
	cpuAfter, err := procCPU(pid)
	if err != nil {
		return res, err
	}
	if len(calls) > 0 {
		// The client's share too: the Go SDK client decoding each answer
		// (its structured content into maps) is part of every latency.
		res.CPUPerCall = map[string]time.Duration{
			"all":    (cpuAfter - cpuBefore) / time.Duration(len(calls)),
			"client": (clientAfter - clientBefore) / time.Duration(len(calls)),
		}
	}
	if res.After, err = harness.ProcStatus(pid); err != nil {
		return res, err
	}
	for i, r := range results {
		samples[i].outcome = mcpOutcome(r.res, r.err)
		if r.err != nil {
			res.ProtocolErrors++
		}
	}
	res.Tools = summarize(samples)
	closed = true
	if err := sess.Close(); err != nil {
		return res, fmt.Errorf("stopping sextant serve: %v: %s", err, harness.Tail(stderr.String()))
	}
	if ps := cmd.ProcessState; ps != nil {
		if rss, _, _, ok := harness.ExitUsage(ps); ok {
			res.MaxRSSKiB = rss
		}
	}
	return res, nil
}

// procCPU is the CPU time process pid has used so far, from
// /proc/PID/stat (utime and stime, in clock ticks of 10 ms).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after it are
	// plain. utime and stime are fields 14 and 15.
	rest := string(b[bytes.LastIndexByte(b, ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, nil
}

// mcpOutcome classifies a call's result like inProcess does.
func mcpOutcome(r *mcp.CallToolResult, err error) string {
	if err != nil {
		return "PROTOCOL_ERROR"
	}
	b, _ := json.Marshal(r.StructuredContent)
	var sc struct {
		Total *int `json:"total"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &sc)
	switch {
	case r.IsError && sc.Error != nil:
		return sc.Error.Code
	case r.IsError:
		return "ERROR"
	case sc.Total != nil && *sc.Total == 0:
		return "empty"
	}
	return "ok"
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
