package lsp_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsp"
)

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // bodies, in order
		err  error    // after them (nil: clean EOF)
	}{
		{"one", "Content-Length: 2\r\n\r\n{}", []string{"{}"}, nil},
		{"two", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", []string{"{}", "[1]"}, nil},
		{"content type", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", []string{"{}"}, nil},
		{"type first, lower case", "content-type: x\r\ncontent-length:  2 \r\n\r\n{}", []string{"{}"}, nil},
		{"bare LF", "Content-Length: 2\n\n{}", []string{"{}"}, nil},
		{"multibyte body", "Content-Length: 4\r\n\r\n\"é\"", []string{"\"é\""}, nil},
		{"no length", "Content-Type: x\r\n\r\n{}", nil, lsp.ErrFraming},
		{"bad length", "Content-Length: -1\r\n\r\n", nil, lsp.ErrFraming},
		{"not a number", "Content-Length: 1e3\r\n\r\n", nil, lsp.ErrFraming},
		{"two lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", nil, lsp.ErrFraming},
		{"no colon", "Content-Length 2\r\n\r\n{}", nil, lsp.ErrFraming},
		{"huge", "Content-Length: 999999999999\r\n\r\n", nil, lsp.ErrFraming},
		{"short body", "Content-Length: 5\r\n\r\n{}", nil, io.ErrUnexpectedEOF},
		{"cut header", "Content-Length: 5\r\n", nil, io.ErrUnexpectedEOF},
		{"long header", "X: " + strings.Repeat("a", 5000) + "\r\n\r\n", nil, lsp.ErrFraming},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			var err error
			for {
				var b []byte
				b, err = lsp.ReadMessage(r)
				if err != nil {
					break
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("bodies = %q, want %q", got, tt.want)
			}
			want := tt.err
			if want == nil {
				want = io.EOF
			}
			if !errors.Is(err, want) {
				t.Errorf("error = %v, want %v", err, want)
			}
		})
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	bodies := []string{"{}", `{"a":"→é😀"}`, ""}
	for _, b := range bodies {
		if err := lsp.WriteMessage(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range bodies {
		got, err := lsp.ReadMessage(r)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
}

// FuzzReadMessage feeds the parser arbitrary streams: it must never panic,
// never return a body longer than announced, and what it reads must frame
// again to a message it reads back the same.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 3\r\nContent-Type: x\r\n\r\n[1]Content-Length: 0\r\n\r\n"))
	f.Add([]byte("content-length:1\n\nx"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for i := 0; i < 100; i++ {
			body, err := lsp.ReadMessage(r)
			if err != nil {
				return
			}
			if len(body) > len(data) {
				t.Fatalf("body of %d bytes from %d bytes of input", len(body), len(data))
			}
			var buf bytes.Buffer
			if err := lsp.WriteMessage(&buf, body); err != nil {
				t.Fatal(err)
			}
			again, err := lsp.ReadMessage(bufio.NewReader(&buf))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip: %q, %v; want %q", again, err, body)
			}
		}
	})
}
