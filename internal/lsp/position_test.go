package lsp_test

import (
	"testing"

	"github.com/sextant-dev/sextant/internal/lsp"
)

func TestPositions(t *testing.T) {
	// Each case: a line of text, an agent's column on it, and the
	// character offsets the servers count in UTF-8 and UTF-16.
	tests := []struct {
		name        string
		text        string
		line, col   int
		utf8, utf16 int
	}{
		{"ascii start", "hello world", 1, 1, 0, 0},
		{"ascii", "hello world", 1, 7, 6, 6},
		{"after é", "café x", 1, 6, 6, 5},
		{"é itself", "café x", 1, 4, 3, 3},
		{"CJK", "世界 x", 1, 4, 7, 3},
		{"emoji (surrogate pair)", "a😀b", 1, 3, 5, 3},
		{"emoji itself", "a😀b", 1, 2, 1, 1},
		{"combining mark", "e\u0301x", 1, 3, 3, 2},
		{"combining mark itself", "e\u0301x", 1, 2, 1, 1},
		{"second line, CRLF", "é\r\n→😀x\r\n", 2, 3, 7, 3},
		{"end of line", "ab\ncd", 1, 3, 2, 2},
		{"empty file", "", 1, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := []byte(tt.text)
			p := lsp.Point{Line: tt.line, Column: tt.col}
			for _, c := range []struct {
				enc  lsp.Encoding
				want int
			}{{lsp.UTF8, tt.utf8}, {lsp.UTF16, tt.utf16}} {
				pos, ok := lsp.ToLSP(text, p, c.enc)
				if !ok || pos.Line != tt.line-1 || pos.Character != c.want {
					t.Errorf("%s: ToLSP = %+v, %v; want line %d character %d", c.enc, pos, ok, tt.line-1, c.want)
				}
				if back := lsp.FromLSP(text, pos, c.enc); back != p {
					t.Errorf("%s: FromLSP(%+v) = %+v, want %+v", c.enc, pos, back, p)
				}
			}
		})
	}
}

func TestPositionEdges(t *testing.T) {
	text := []byte("a😀b\nx")
	// Past the end of the line: clamped to just after its last character.
	if pos, ok := lsp.ToLSP(text, lsp.Point{Line: 1, Column: 40}, lsp.UTF16); !ok || pos.Character != 4 {
		t.Errorf("clamp: %+v %v", pos, ok)
	}
	// A line that does not exist.
	if _, ok := lsp.ToLSP(text, lsp.Point{Line: 3, Column: 1}, lsp.UTF16); ok {
		t.Error("line 3 of a two-line file converted")
	}
	// The middle of a surrogate pair is the emoji's column.
	if p := lsp.FromLSP(text, lsp.Position{Line: 0, Character: 2}, lsp.UTF16); p.Column != 2 {
		t.Errorf("mid-pair: column %d, want 2", p.Column)
	}
	// The middle of a UTF-8 sequence is the character's column.
	if p := lsp.FromLSP(text, lsp.Position{Line: 0, Character: 3}, lsp.UTF8); p.Column != 2 {
		t.Errorf("mid-sequence: column %d, want 2", p.Column)
	}
}
