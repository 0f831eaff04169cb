// Package lspfake is a fake language server for the bridge's tests and
// benchmarks: a real process speaking LSP over stdio, whose behaviour the
// files it is given choose. A test binary becomes the fake by calling Main
// when the environment variable Env is set.
//
// Behaviour, by what a file holds:
//   - ERROR anywhere on a line: a diagnostic there (its column in the
//     negotiated encoding), published DELAY ms after each change when a
//     line says "DELAY ms", with a work-done progress for BUSY ms before
//     it when a line says "BUSY ms".
//   - hover on a line holding HANG never answers (and creates FILE.hanging
//     beside the file); on DIE, the process
//     exits mid-request; on ALLOC n, it allocates and touches n MiB more
//     (kept), answering how much it holds.
//   - hover answers the character at the position and its unit offset;
//     definition and references find the word at the position (first
//     occurrence; every occurrence) in every open file.
//   - documentSymbol outlines "func NAME" lines, "  method NAME" nested.
//
// The environment: LSPFAKE_ENCODING=utf-16 refuses utf-8;
// LSPFAKE_STDERR=N writes N bytes to stderr at start and per request;
// LSPFAKE_NO_HOVER=1 announces no hover provider; LSPFAKE_NO_INIT=1 never
// answers initialize; LSPFAKE_EXTRA_REFS is a
// space-separated list of URI#LINE:CHARACTER (0-based) appended to every
// references answer: places a real server may point at that are not open,
// such as a library outside the roots.
package lspfake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/lsp"
)

// Env is the variable that makes a test binary the fake server.
const Env = "SEXTANT_LSPFAKE"

type fake struct {
	wmu       sync.Mutex
	out       *bufio.Writer
	mu        sync.Mutex
	enc       lsp.Encoding
	docs      map[string][]byte
	versions  map[string]int
	cancelled []json.RawMessage
	held      [][]byte
	flood     int
}

// Main runs the fake on stdin and stdout until exit or end of input.
func Main() {
	f := &fake{out: bufio.NewWriter(os.Stdout), enc: lsp.UTF16, docs: map[string][]byte{}, versions: map[string]int{}}
	f.flood, _ = strconv.Atoi(os.Getenv("LSPFAKE_STDERR"))
	f.stderr()
	in := bufio.NewReader(os.Stdin)
	for {
		body, err := lsp.ReadMessage(in)
		if err != nil {
			os.Exit(0)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil || m.Method == "" {
			continue // broken, or a response to one of ours
		}
		f.handle(m.ID, m.Method, m.Params)
	}
}

func (f *fake) stderr() {
	if f.flood <= 0 {
		return
	}
	line := bytes.Repeat([]byte("flood "), 20)
	line = append(line, '\n')
	for n := 0; n < f.flood; n += len(line) {
		os.Stderr.Write(line)
	}
}

func (f *fake) send(m map[string]any) {
	m["jsonrpc"] = "2.0"
	b, _ := json.Marshal(m)
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_ = lsp.WriteMessage(f.out, b)
	_ = f.out.Flush()
}

func (f *fake) reply(id json.RawMessage, result any) {
	f.send(map[string]any{"id": id, "result": result})
}

func (f *fake) notify(method string, params any) {
	f.send(map[string]any{"method": method, "params": params})
}

type docPos struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position lsp.Position `json:"position"`
}

func (f *fake) handle(id json.RawMessage, method string, params json.RawMessage) {
	if len(id) > 0 {
		f.stderr()
	}
	switch method {
	case "initialize":
		if os.Getenv("LSPFAKE_NO_INIT") != "" {
			fmt.Fprintln(os.Stderr, "lspfake: not answering initialize")
			return
		}
		var p struct {
			Capabilities struct {
				General struct {
					PositionEncodings []string `json:"positionEncodings"`
				} `json:"general"`
			} `json:"capabilities"`
		}
		_ = json.Unmarshal(params, &p)
		caps := map[string]any{
			"textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true,
			"documentSymbolProvider": true, "completionProvider": map[string]any{},
		}
		if os.Getenv("LSPFAKE_NO_HOVER") == "" {
			caps["hoverProvider"] = true
		}
		if os.Getenv("LSPFAKE_ENCODING") != "utf-16" {
			for _, e := range p.Capabilities.General.PositionEncodings {
				if e == "utf-8" {
					f.enc = lsp.UTF8
				}
			}
		}
		caps["positionEncoding"] = string(f.enc)
		f.reply(id, map[string]any{"capabilities": caps, "serverInfo": map[string]any{"name": "lspfake", "version": "1"}})
	case "initialized":
	case "shutdown":
		f.reply(id, nil)
	case "exit":
		os.Exit(0)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(params, &p)
		f.mu.Lock()
		f.cancelled = append(f.cancelled, p.ID)
		f.mu.Unlock()
	case "fake/cancelled":
		f.mu.Lock()
		ids := append([]json.RawMessage{}, f.cancelled...)
		f.mu.Unlock()
		f.reply(id, ids)
	case "fake/pid":
		f.reply(id, os.Getpid())
	case "textDocument/didOpen", "textDocument/didChange":
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Text    string `json:"text"`
				Version int    `json:"version"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		_ = json.Unmarshal(params, &p)
		text := p.TextDocument.Text
		if len(p.ContentChanges) > 0 {
			text = p.ContentChanges[len(p.ContentChanges)-1].Text
		}
		f.mu.Lock()
		f.docs[p.TextDocument.URI] = []byte(text)
		f.versions[p.TextDocument.URI] = p.TextDocument.Version
		f.mu.Unlock()
		go f.publish(p.TextDocument.URI, []byte(text), p.TextDocument.Version)
	case "textDocument/didClose":
		var p docPos
		_ = json.Unmarshal(params, &p)
		f.mu.Lock()
		delete(f.docs, p.TextDocument.URI)
		f.mu.Unlock()
	case "textDocument/hover":
		var p docPos
		_ = json.Unmarshal(params, &p)
		line := f.line(p.TextDocument.URI, p.Position.Line)
		switch {
		case bytes.Contains(line, []byte("HANG")):
			// Never answered; a file beside the document tells a test the
			// request arrived.
			if p := lsp.URIPath(p.TextDocument.URI); p != "" {
				_ = os.WriteFile(p+".hanging", nil, 0o644)
			}
			return
		case bytes.Contains(line, []byte("DIE")):
			fmt.Fprintln(os.Stderr, "fake: dying as asked, mid-request")
			os.Exit(3)
		case bytes.Contains(line, []byte("ALLOC")):
			n, _ := strconv.Atoi(strings.TrimSpace(string(line[bytes.Index(line, []byte("ALLOC"))+5:])))
			b := make([]byte, n<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			f.mu.Lock()
			f.held = append(f.held, b)
			total := 0
			for _, h := range f.held {
				total += len(h)
			}
			f.mu.Unlock()
			f.reply(id, map[string]any{"contents": fmt.Sprintf("holding %d MiB", total>>20)})
			return
		}
		ch, unit := charAt(line, p.Position.Character, f.enc)
		f.reply(id, map[string]any{"contents": map[string]any{"kind": "plaintext",
			"value": fmt.Sprintf("char %q at unit %d", ch, unit)}})
	case "textDocument/definition", "textDocument/references":
		var p docPos
		_ = json.Unmarshal(params, &p)
		word := wordAt(f.line(p.TextDocument.URI, p.Position.Line), p.Position.Character, f.enc)
		locs := []any{}
		if word != "" {
			locs = f.find(word, method == "textDocument/definition")
		}
		if method == "textDocument/references" {
			locs = append(locs, extraRefs()...)
		}
		f.reply(id, locs)
	case "textDocument/documentSymbol":
		var p docPos
		_ = json.Unmarshal(params, &p)
		f.reply(id, f.symbols(p.TextDocument.URI))
	case "textDocument/completion":
		items := []any{}
		for i := 0; i < 60; i++ {
			items = append(items, map[string]any{"label": fmt.Sprintf("item%02d", i), "kind": 3, "detail": "func()"})
		}
		f.reply(id, map[string]any{"isIncomplete": false, "items": items})
	default:
		if len(id) > 0 {
			f.send(map[string]any{"id": id, "error": map[string]any{"code": lsp.CodeMethodNotFound, "message": "fake: no " + method}})
		}
	}
}

// extraRefs parses LSPFAKE_EXTRA_REFS.
func extraRefs() []any {
	var out []any
	for _, ref := range strings.Fields(os.Getenv("LSPFAKE_EXTRA_REFS")) {
		uri, pos, _ := strings.Cut(ref, "#")
		l, c, _ := strings.Cut(pos, ":")
		line, _ := strconv.Atoi(l)
		char, _ := strconv.Atoi(c)
		p := lsp.Position{Line: line, Character: char}
		out = append(out, map[string]any{"uri": uri, "range": lsp.Range{Start: p, End: lsp.Position{Line: line, Character: char + 1}}})
	}
	return out
}

func (f *fake) line(uri string, n int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	lines := bytes.Split(f.docs[uri], []byte("\n"))
	if n < 0 || n >= len(lines) {
		return nil
	}
	return lines[n]
}

var directive = regexp.MustCompile(`(DELAY|BUSY) (\d+)`)

// publish sends the diagnostics of one version of a file, after the delay
// and the busy period the file asks for.
func (f *fake) publish(uri string, text []byte, version int) {
	var delay, busy int
	for _, m := range directive.FindAllSubmatch(text, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		if string(m[1]) == "DELAY" {
			delay = n
		} else {
			busy = n
		}
	}
	if busy > 0 {
		token := fmt.Sprintf("busy-%d", version)
		f.send(map[string]any{"id": "create-" + token, "method": "window/workDoneProgress/create", "params": map[string]any{"token": token}})
		f.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "begin", "title": "fake analysis"}})
		time.Sleep(time.Duration(busy) * time.Millisecond)
		f.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end"}})
	}
	time.Sleep(time.Duration(delay) * time.Millisecond)
	f.mu.Lock()
	stale := f.versions[uri] != version
	f.mu.Unlock()
	if stale {
		return
	}
	diags := []any{}
	for i, line := range bytes.Split(text, []byte("\n")) {
		if j := bytes.Index(line, []byte("ERROR")); j >= 0 {
			start := units(line[:j], f.enc)
			diags = append(diags, map[string]any{
				"range":    lsp.Range{Start: lsp.Position{Line: i, Character: start}, End: lsp.Position{Line: i, Character: start + 5}},
				"severity": 1, "source": "fake", "code": "E1", "message": "found ERROR"})
		}
	}
	f.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": version, "diagnostics": diags})
}

func units(b []byte, enc lsp.Encoding) int {
	if enc == lsp.UTF8 {
		return len(b)
	}
	n := 0
	for _, r := range string(b) {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// charAt returns the character at unit offset u of line, and the offset.
func charAt(line []byte, u int, enc lsp.Encoding) (string, int) {
	at := 0
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		n := size
		if enc != lsp.UTF8 {
			n = 1
			if r >= 0x10000 {
				n = 2
			}
		}
		if at+n > u {
			return string(r), u
		}
		at += n
		line = line[size:]
	}
	return "", u
}

func isWord(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
}

// wordAt returns the identifier-like word around unit offset u of line.
func wordAt(line []byte, u int, enc lsp.Encoding) string {
	at := 0
	rs := []rune(string(line))
	idx := -1
	for i, r := range rs {
		n := utf8.RuneLen(r)
		if enc != lsp.UTF8 {
			n = 1
			if r >= 0x10000 {
				n = 2
			}
		}
		if at+n > u {
			idx = i
			break
		}
		at += n
	}
	if idx < 0 || !isWord(rs[idx]) {
		return ""
	}
	s, e := idx, idx
	for s > 0 && isWord(rs[s-1]) {
		s--
	}
	for e < len(rs) && isWord(rs[e]) {
		e++
	}
	return string(rs[s:e])
}

// find returns the occurrences of word as a whole word in the open files.
func (f *fake) find(word string, first bool) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	uris := make([]string, 0, len(f.docs))
	for u := range f.docs {
		uris = append(uris, u)
	}
	sortStrings(uris)
	var out []any
	for _, uri := range uris {
		for i, line := range bytes.Split(f.docs[uri], []byte("\n")) {
			rs := []rune(string(line))
			w := []rune(word)
			for j := 0; j+len(w) <= len(rs); j++ {
				if string(rs[j:j+len(w)]) != word || (j > 0 && isWord(rs[j-1])) || (j+len(w) < len(rs) && isWord(rs[j+len(w)])) {
					continue
				}
				start := units([]byte(string(rs[:j])), f.enc)
				end := units([]byte(string(rs[:j+len(w)])), f.enc)
				out = append(out, map[string]any{"uri": uri, "range": lsp.Range{Start: lsp.Position{Line: i, Character: start}, End: lsp.Position{Line: i, Character: end}}})
				if first {
					return out
				}
			}
		}
	}
	return out
}

func (f *fake) symbols(uri string) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []any
	var last map[string]any
	for i, line := range bytes.Split(f.docs[uri], []byte("\n")) {
		s := string(line)
		mk := func(name string, kind int) map[string]any {
			col := units([]byte(s[:strings.Index(s, name)]), f.enc)
			r := lsp.Range{Start: lsp.Position{Line: i, Character: col}, End: lsp.Position{Line: i, Character: col + units([]byte(name), f.enc)}}
			return map[string]any{"name": name, "kind": kind, "range": r, "selectionRange": r}
		}
		if name, ok := strings.CutPrefix(s, "func "); ok {
			last = mk(strings.TrimSpace(name), 12)
			out = append(out, last)
		} else if name, ok := strings.CutPrefix(s, "  method "); ok && last != nil {
			kids, _ := last["children"].([]any)
			last["children"] = append(kids, mk(strings.TrimSpace(name), 6))
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
