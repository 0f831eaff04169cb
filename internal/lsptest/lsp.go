// Package lsptest is a minimal Language Server Protocol client, enough to
// ask gopls for references and implementations from a benchmark. It is a
// copy of the client in e2e/lsp_test.go that reports errors instead of
// failing a test.
package lsptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Client is a Language Server Protocol client over a child process's
// stdin and stdout: JSON-RPC 2.0 messages framed by a Content-Length
// header. Requests are sent one at a time, notifications from the server
// are dropped, and the requests a server makes of its client
// (configuration, progress tokens, capability registration) are answered
// with empty results.
type Client struct {
	Cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	nextID int
}

// Position is an LSP position: 0-based line and UTF-16 character.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Location is an LSP location.
type Location struct {
	URI   string `json:"uri"`
	Range struct {
		Start Position `json:"start"`
		End   Position `json:"end"`
	} `json:"range"`
}

// Start starts bin with args in root and runs the initialize handshake
// with root as the workspace.
func Start(bin, root string, args ...string) (*Client, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	// The local toolchain, so that gopls never tries to download another.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", bin, err)
	}
	c := &Client{Cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<16)}
	uri := FileURI(root)
	if err := c.Call("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
		},
	}, nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %v", err)
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialized: %v", err)
	}
	return c, nil
}

// Close asks the server to shut down and exit, and kills it if it does
// not within a few seconds.
func (c *Client) Close() {
	done := make(chan error, 1)
	go func() {
		_ = c.Call("shutdown", nil, nil)
		_ = c.notify("exit", nil)
		_ = c.stdin.Close()
		done <- c.Cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.Cmd.Process.Kill()
		<-done
	}
}

// Notify sends a notification (didOpen, didChange, ...).
func (c *Client) Notify(method string, params any) error { return c.notify(method, params) }

// write sends one framed message.
func (c *Client) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(c.stdin, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.stdin.Write(body)
	return err
}

// read receives one framed message.
func (c *Client) read() (map[string]json.RawMessage, error) {
	length := -1
	for {
		line, err := c.stdout.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad header %q", line)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("message without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.stdout, body); err != nil {
		return nil, err
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return nil, fmt.Errorf("bad message %q: %v", body, err)
	}
	return msg, nil
}

func (c *Client) notify(method string, params any) error {
	msg := map[string]any{"method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.write(msg)
}

// Call sends a request and waits for its response, decoding the result
// into result (when not nil). Messages that arrive meanwhile are
// notifications (dropped) or requests from the server (answered).
func (c *Client) Call(method string, params, result any) error {
	c.nextID++
	id := c.nextID
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.write(msg); err != nil {
		return err
	}
	for {
		in, err := c.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		rawID, hasID := in["id"]
		rawMethod, isRequest := in["method"]
		switch {
		case hasID && isRequest:
			if err := c.answer(rawID, rawMethod, in["params"]); err != nil {
				return err
			}
		case hasID:
			var got int
			if json.Unmarshal(rawID, &got) != nil || got != id {
				continue // a response to something else
			}
			if e, ok := in["error"]; ok && !bytes.Equal(e, []byte("null")) {
				return fmt.Errorf("%s: %s", method, e)
			}
			if result == nil || len(in["result"]) == 0 {
				return nil
			}
			return json.Unmarshal(in["result"], result)
		}
	}
}

// answer replies to a request the server made of the client.
func (c *Client) answer(id, rawMethod, params json.RawMessage) error {
	var method string
	_ = json.Unmarshal(rawMethod, &method)
	var result any
	if method == "workspace/configuration" {
		var p struct{ Items []any }
		_ = json.Unmarshal(params, &p)
		result = make([]any, len(p.Items)) // no settings: the defaults
	}
	return c.write(map[string]any{"id": id, "result": result})
}

// FileURI is the file: URI of an absolute path.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// URIPath is the path of a file: URI.
func URIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %q", uri)
	}
	return filepath.FromSlash(u.Path), nil
}

// UTF16Column converts a 1-based column counting characters in line to
// LSP's 0-based column counting UTF-16 code units.
func UTF16Column(line string, col int) int {
	units := 0
	for i, r := range []rune(line) {
		if i == col-1 {
			break
		}
		units += utf16.RuneLen(r)
	}
	return units
}

// CharColumn converts LSP's 0-based UTF-16 column in line to a 1-based
// column counting characters.
func CharColumn(line string, units int) int {
	col := 1
	for _, r := range line {
		if units <= 0 {
			break
		}
		n := utf16.RuneLen(r)
		if n < 0 {
			n = 1
		}
		units -= n
		col++
	}
	return col
}

// ByteToCharColumn converts a 1-based byte column in line to a 1-based
// character column.
func ByteToCharColumn(line string, byteCol int) int {
	if byteCol-1 > len(line) {
		return utf8.RuneCountInString(line) + 1
	}
	return utf8.RuneCountInString(line[:byteCol-1]) + 1
}
