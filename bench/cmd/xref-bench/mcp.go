package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// mcpCompare is part (b): find_references over `sextant serve` against
// go_symbol_references over `gopls mcp`, and get_callers latency.
type mcpCompare struct {
	Module   string      `json:"module"`
	Dir      string      `json:"dir"`
	Fallback bool        `json:"fallback,omitempty"`
	Index    *sextantRun `json:"index,omitempty"`
	// GoplsTool is the references tool gopls mcp lists, and its
	// arguments.
	GoplsTool     string                     `json:"gopls_tool"`
	GoplsToolArgs []string                   `json:"gopls_tool_args"`
	GoplsFirst    time.Duration              `json:"gopls_first_call_ns"`
	Repeat        int                        `json:"repeat"`
	Queries       []mcpQuery                 `json:"queries"`
	Latency       map[string]harness.Latency `json:"latency"`
	// Tokens are characters/4 of the text content, summed over the
	// queries; sextant's is every page of find_references (limit 500).
	SextantTokens int     `json:"sextant_tokens"`
	GoplsTokens   int     `json:"gopls_tokens"`
	TokenRatio    float64 `json:"token_ratio"`
	// Recall: gopls's (file, line) pairs, declaration and files outside
	// the root left out, that sextant's find_references also holds.
	GoplsLines int     `json:"gopls_lines"`
	Recalled   int     `json:"recalled_lines"`
	Recall     float64 `json:"recall"`
	SpeedupP50 float64 `json:"speedup_p50"`
	// WireLatency and WireSpeedupP50 are the same calls timed until the
	// response was read off the pipe, before the client decoded it (see
	// arrivalTransport).
	WireLatency    map[string]harness.Latency `json:"wire_latency"`
	WireSpeedupP50 float64                    `json:"wire_speedup_p50"`
	// ClientCPUPerCall is this process's CPU time per call, by tool: the
	// Go SDK client reading each answer (for sextant, its structured
	// content decoded into maps), which every latency includes.
	ClientCPUPerCall map[string]time.Duration `json:"client_cpu_per_call_ns"`
	Errors           []string                 `json:"errors,omitempty"`
}

// mcpQuery is one symbol of the comparison.
type mcpQuery struct {
	benchSymbol
	GoplsSymbol   string        `json:"gopls_symbol"`
	SextantTotal  int           `json:"sextant_total"`
	SextantPages  int           `json:"sextant_pages"`
	SextantTokens int           `json:"sextant_tokens"`
	GoplsCount    int           `json:"gopls_count"`
	GoplsTokens   int           `json:"gopls_tokens"`
	GoplsLines    int           `json:"gopls_lines"`
	GoplsOutside  int           `json:"gopls_outside_root"`
	Missed        []string      `json:"missed,omitempty"`
	SextantP50    time.Duration `json:"sextant_p50_ns"`
	GoplsP50      time.Duration `json:"gopls_p50_ns"`
	Error         string        `json:"error,omitempty"`
}

// popularQuota is the mix of the popular pick: the most referenced
// functions, methods and types of the root module.
var popularQuota = map[graph.Kind]float64{graph.KindFunc: 0.4, graph.KindMethod: 0.4, graph.KindType: 0.2}

// popular picks the n most referenced functions, methods and types of the
// root module (non-test), by the index's reference counts.
func popular(ctx context.Context, db, corpus string, n int) ([]benchSymbol, error) {
	all, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return nil, err
	}
	module := harness.RootModule(corpus)
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	r, err := st.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	byKind := map[graph.Kind][]benchSymbol{}
	for _, s := range all {
		if _, ok := popularQuota[s.Kind]; !ok || !eligible(s, module) {
			continue
		}
		_, total, err := r.Refs(ctx, graph.RefQuery{Targets: []string{s.Key}, IncludeTests: true, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("counting references of %s: %w", s.QualifiedName, err)
		}
		b := toBench(s)
		b.Refs = total
		byKind[s.Kind] = append(byKind[s.Kind], b)
	}
	var out []benchSymbol
	for _, kind := range []graph.Kind{graph.KindFunc, graph.KindMethod, graph.KindType} {
		cands := byKind[kind]
		sort.Slice(cands, func(i, j int) bool {
			if cands[i].Refs != cands[j].Refs {
				return cands[i].Refs > cands[j].Refs
			}
			return cands[i].Key < cands[j].Key
		})
		quota := int(popularQuota[kind]*float64(n) + 0.5)
		if kind == graph.KindType {
			quota = n - len(out)
		}
		out = append(out, locate(corpus, cands[:min(quota, len(cands))])...)
	}
	return out, nil
}

// goplsSymbol is how go_symbol_references names a symbol from its
// declaring file: Name, or Type.Method.
func goplsSymbol(s benchSymbol) string {
	if s.Kind == string(graph.KindMethod) {
		return s.Qualified
	}
	return s.Name
}

func compareMCP(ctx context.Context, o options, sextant, gopls, db string, mc *mcpCompare) error {
	// Read through a copy: opening the store upgrades its schema, which
	// an older binary of a comparison could then no longer read.
	probe := db + ".symbols"
	if err := harness.CopyDB(db, probe); err != nil {
		return err
	}
	syms, err := popular(ctx, probe, mc.Dir, o.popular)
	harness.RemoveDB(probe)
	if err != nil {
		return err
	}
	mc.Repeat = o.repeat
	logf("gopls mcp comparison on %s: %d symbols", mc.Dir, len(syms))

	client := mcp.NewClient(&mcp.Implementation{Name: "xref-bench", Version: "0.1.0"}, nil)
	scmd := exec.Command(sextant, "serve", "--db", db, mc.Dir)
	var serr bytes.Buffer
	scmd.Stderr = &serr
	sxT := &arrivalTransport{Transport: &mcp.CommandTransport{Command: scmd}}
	sx, err := client.Connect(ctx, sxT, nil)
	if err != nil {
		return fmt.Errorf("starting sextant serve: %v: %s", err, harness.Tail(serr.String()))
	}
	defer sx.Close()
	gcmd := exec.Command(gopls, "mcp")
	gcmd.Dir = mc.Dir
	gcmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	var gerr bytes.Buffer
	gcmd.Stderr = &gerr
	gpT := &arrivalTransport{Transport: &mcp.CommandTransport{Command: gcmd}}
	gp, err := client.Connect(ctx, gpT, nil)
	if err != nil {
		return fmt.Errorf("starting gopls mcp: %v: %s", err, harness.Tail(gerr.String()))
	}
	defer gp.Close()

	tools, err := gp.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("gopls mcp tools/list: %v", err)
	}
	for _, t := range tools.Tools {
		if strings.Contains(t.Name, "symbol_references") {
			mc.GoplsTool = t.Name
			if schema, err := json.Marshal(t.InputSchema); err == nil {
				var s struct{ Properties map[string]any }
				_ = json.Unmarshal(schema, &s)
				mc.GoplsToolArgs = sortedKeys(s.Properties)
			}
		}
	}
	if mc.GoplsTool == "" {
		var names []string
		for _, t := range tools.Tools {
			names = append(names, t.Name)
		}
		return fmt.Errorf("gopls mcp lists no symbol references tool: %v", names)
	}
	logf("gopls mcp: tool %s, arguments %v", mc.GoplsTool, mc.GoplsToolArgs)

	clientCPU := map[string]time.Duration{}
	clientCalls := map[string]int{}
	var lastWire time.Duration // of the last call: until its response was read
	goplsCall := func(s benchSymbol) (time.Duration, string, error) {
		args := map[string]any{"file": filepath.Join(mc.Dir, filepath.FromSlash(s.Path)), "symbol": goplsSymbol(s)}
		start, cpu := time.Now(), harness.SelfCPU()
		r, err := gp.CallTool(ctx, &mcp.CallToolParams{Name: mc.GoplsTool, Arguments: args})
		took := time.Since(start)
		lastWire = gpT.since(start)
		clientCPU[mc.GoplsTool] += harness.SelfCPU() - cpu
		clientCalls[mc.GoplsTool]++
		if err != nil {
			return took, "", err
		}
		text := textOf(r)
		if r.IsError {
			return took, text, fmt.Errorf("tool error: %s", text)
		}
		return took, text, nil
	}
	// sextantRefs pages through find_references over MCP: the time, text
	// and rows of the whole answer.
	type refsOut struct {
		Total      int     `json:"total"`
		NextCursor *string `json:"next_cursor"`
		Results    []struct {
			Path       string `json:"path"`
			References []struct {
				Line int `json:"line"`
			} `json:"references"`
		} `json:"results"`
	}
	sextantCall := func(tool string, args map[string]any) (time.Duration, string, *mcp.CallToolResult, error) {
		start, cpu := time.Now(), harness.SelfCPU()
		r, err := sx.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		took := time.Since(start)
		lastWire = sxT.since(start)
		clientCPU[tool] += harness.SelfCPU() - cpu
		clientCalls[tool]++
		if err != nil {
			return took, "", nil, err
		}
		if r.IsError {
			return took, textOf(r), r, fmt.Errorf("tool error: %s", textOf(r))
		}
		return took, textOf(r), r, nil
	}
	var refsWire time.Duration // of the last sextantRefsAll, every page
	sextantRefsAll := func(s benchSymbol) (time.Duration, string, map[string]bool, int, int, error) {
		args := map[string]any{"stable_key": s.Key, "limit": 500}
		var total time.Duration
		refsWire = 0
		var text strings.Builder
		lines := map[string]bool{}
		pages, count := 0, 0
		for {
			took, t, r, err := sextantCall("find_references", args)
			total += took
			refsWire += lastWire
			if err != nil {
				return total, text.String(), lines, pages, count, err
			}
			pages++
			text.WriteString(t)
			var out refsOut
			b, _ := json.Marshal(r.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil {
				return total, text.String(), lines, pages, count, fmt.Errorf("reading find_references: %v", err)
			}
			count = out.Total
			for _, f := range out.Results {
				for _, ref := range f.References {
					lines[fmt.Sprintf("%s:%d", f.Path, ref.Line)] = true
				}
			}
			if out.NextCursor == nil {
				return total, text.String(), lines, pages, count, nil
			}
			args["cursor"] = *out.NextCursor
		}
	}

	// Untimed first calls: gopls loads the workspace, sextant pins its
	// snapshot.
	if len(syms) > 0 {
		mc.GoplsFirst, _, _ = goplsCall(syms[0])
		logf("gopls mcp first call (workspace load): %s", mc.GoplsFirst.Round(time.Millisecond))
		_, _, _, _, _, _ = sextantRefsAll(syms[0])
	}
	files := newFileCache(mc.Dir)
	var lat, wire = map[string][]time.Duration{}, map[string][]time.Duration{}
	for i, s := range syms {
		q := mcpQuery{benchSymbol: s, GoplsSymbol: goplsSymbol(s)}
		var sxTimes, gpTimes, sxWire, gpWire []time.Duration
		var sxText, gpText string
		var sxLines map[string]bool
		failed := false
		for rep := range o.repeat {
			took, text, lines, pages, total, err := sextantRefsAll(s)
			if err != nil {
				q.Error = "sextant: " + err.Error()
				failed = true
				break
			}
			sxTimes = append(sxTimes, took)
			sxWire = append(sxWire, refsWire)
			sxText, sxLines, q.SextantPages, q.SextantTotal = text, lines, pages, total
			gt, gtext, gerr := goplsCall(s)
			if gerr != nil {
				q.Error = "gopls: " + gerr.Error()
				failed = true
				break
			}
			gpTimes = append(gpTimes, gt)
			gpWire = append(gpWire, lastWire)
			gpText = gtext
			_ = rep
		}
		if failed {
			logf("  %s: %s", s.Qualified, q.Error)
			mc.Errors = append(mc.Errors, fmt.Sprintf("%s: %s", s.Qualified, q.Error))
			mc.Queries = append(mc.Queries, q)
			continue
		}
		lat["find_references"] = append(lat["find_references"], sxTimes...)
		lat[mc.GoplsTool] = append(lat[mc.GoplsTool], gpTimes...)
		wire["find_references"] = append(wire["find_references"], sxWire...)
		wire[mc.GoplsTool] = append(wire[mc.GoplsTool], gpWire...)
		q.SextantP50, q.GoplsP50 = harness.Median(sxTimes), harness.Median(gpTimes)
		q.SextantTokens, q.GoplsTokens = len([]rune(sxText))/4, len([]rune(gpText))/4
		if o.dump != "" {
			if err := dumpAnswers(o.dump, i, s, sxText, gpText); err != nil {
				return err
			}
		}
		mc.SextantTokens += q.SextantTokens
		mc.GoplsTokens += q.GoplsTokens
		// Recall, by (file, line): gopls's text names no column.
		glines, count, outside := parseGoplsRefs(gpText, files)
		q.GoplsCount, q.GoplsOutside = count, outside
		delete(glines, fmt.Sprintf("%s:%d", s.Path, s.Line)) // go_symbol_references includes the declaration
		q.GoplsLines = len(glines)
		for _, p := range sortedKeys(glines) {
			if sxLines[p] {
				mc.Recalled++
			} else {
				q.Missed = append(q.Missed, p+"  "+files.text(p))
			}
		}
		mc.GoplsLines += q.GoplsLines

		// get_callers on functions and methods.
		if s.Kind == string(graph.KindFunc) || s.Kind == string(graph.KindMethod) {
			for _, depth := range []int{1, 5} {
				name := fmt.Sprintf("get_callers depth %d", depth)
				for range o.repeat {
					took, _, _, err := sextantCall("get_callers", map[string]any{"stable_key": s.Key, "depth": depth})
					if err != nil {
						mc.Errors = append(mc.Errors, fmt.Sprintf("%s %s: %v", name, s.Qualified, err))
						break
					}
					lat[name] = append(lat[name], took)
				}
			}
		}
		logf("  %-40s %5d refs (gopls %5d): sextant p50 %8s, %6d tokens; gopls p50 %8s, %6d tokens; missed %d lines",
			s.Qualified, q.SextantTotal, q.GoplsCount, q.SextantP50.Round(10*time.Microsecond), q.SextantTokens,
			q.GoplsP50.Round(time.Millisecond), q.GoplsTokens, len(q.Missed))
		mc.Queries = append(mc.Queries, q)
	}
	mc.Latency = map[string]harness.Latency{}
	for k, ds := range lat {
		mc.Latency[k] = harness.Summarize(ds)
	}
	mc.TokenRatio = harness.Ratio(float64(mc.SextantTokens), float64(mc.GoplsTokens))
	mc.Recall = harness.Ratio(float64(mc.Recalled), float64(mc.GoplsLines))
	mc.SpeedupP50 = harness.Ratio(float64(mc.Latency[mc.GoplsTool].P50), float64(mc.Latency["find_references"].P50))
	mc.WireLatency = map[string]harness.Latency{}
	for k, ds := range wire {
		mc.WireLatency[k] = harness.Summarize(ds)
	}
	mc.WireSpeedupP50 = harness.Ratio(float64(mc.WireLatency[mc.GoplsTool].P50), float64(mc.WireLatency["find_references"].P50))
	mc.ClientCPUPerCall = map[string]time.Duration{}
	for tool, d := range clientCPU {
		mc.ClientCPUPerCall[tool] = d / time.Duration(clientCalls[tool])
		logf("client CPU per %s call: %s", tool, d/time.Duration(clientCalls[tool]))
	}
	return nil
}

// dumpAnswers writes one symbol's two answers to dir, for reading where
// the tokens go.
func dumpAnswers(dir string, i int, s benchSymbol, sextant, gopls string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%02d-%s", i, strings.NewReplacer("/", "_", "*", "", "(", "", ")", "").Replace(s.Qualified))
	for who, text := range map[string]string{"sextant": sextant, "gopls": gopls} {
		if err := os.WriteFile(filepath.Join(dir, name+"."+who+".txt"), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// textOf joins the text content of a tool result.
var textOf = harness.ResultText

// parseGoplsRefs reads go_symbol_references's text: for each reference,
// "Located in the file: ABS" then "The reference is located on line N"
// (N 0-based). It returns the root-relative "path:line" (1-based) set,
// the number of references listed, and how many were outside the root.
func parseGoplsRefs(text string, files *fileCache) (map[string]bool, int, int) {
	out := map[string]bool{}
	count, outside := 0, 0
	file := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "Located in the file: "); ok {
			file = strings.TrimSpace(f)
			count++
			continue
		}
		if rest, ok := strings.CutPrefix(line, "The reference is located on line "); ok && file != "" {
			num, _, _ := strings.Cut(rest, ",")
			n, err := strconv.Atoi(strings.TrimSpace(num))
			if err != nil {
				continue
			}
			rel, ok := files.rel(filepath.FromSlash(file))
			if !ok {
				outside++
				file = ""
				continue
			}
			out[fmt.Sprintf("%s:%d", rel, n+1)] = true
			file = ""
		}
	}
	return out, count, outside
}
