package position

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestOffset checks the character-column conversions both ways.
func TestOffset(t *testing.T) {
	src := []byte("ab\n→é x\n")
	for _, tc := range []struct {
		line, col, off int
		ok             bool
	}{
		{1, 1, 0, true}, {1, 3, 2, true}, {2, 2, 6, true}, {2, 4, 9, true}, {2, 6, 0, false}, {3, 1, 11, true}, {4, 1, 0, false},
	} {
		off, ok := Offset(src, tc.line, tc.col)
		if ok != tc.ok || (ok && off != tc.off) {
			t.Errorf("Offset(%d:%d) = %d, %t; want %d, %t", tc.line, tc.col, off, ok, tc.off, tc.ok)
		}
		if ok && tc.off < len(src) {
			lineStart := strings.LastIndexByte(string(src[:off]), '\n') + 1
			if got := CharColumn(src, off, off-lineStart+1); got != tc.col {
				t.Errorf("CharColumn at %d = %d, want %d", off, got, tc.col)
			}
		}
	}
}

// TestColumns checks each conversion on a table of lines with multi-byte
// characters, invalid UTF-8, CRLF endings and positions that do not fit.
func TestColumns(t *testing.T) {
	src := []byte("a→b\n😀é\r\nx\xffy\n")
	// Byte columns to character columns, by offset and by line.
	for _, tc := range []struct {
		line, byteCol, want int
	}{
		{1, 1, 1},   // a
		{1, 2, 2},   // →
		{1, 5, 3},   // b, after the three bytes of →
		{1, 6, 4},   // just past b
		{2, 5, 2},   // é, after the four bytes of 😀
		{2, 7, 3},   // the CR
		{3, 2, 2},   // the invalid byte is one character
		{3, 3, 3},   // y
		{4, 1, 1},   // the empty last line
		{4, 3, 3},   // past the end of the text: unchanged
		{9, 4, 4},   // no such line: unchanged
		{0, 4, 4},   // line 0: unchanged
		{2, 0, 0},   // column 0: unchanged
		{2, -3, -3}, // negative: unchanged
	} {
		if got := CharColumnAt(src, tc.line, tc.byteCol); got != tc.want {
			t.Errorf("CharColumnAt(%d:%d) = %d, want %d", tc.line, tc.byteCol, got, tc.want)
		}
		if got := NewLines(src).CharColumnAt(tc.line, tc.byteCol); got != tc.want {
			t.Errorf("Lines.CharColumnAt(%d:%d) = %d, want %d", tc.line, tc.byteCol, got, tc.want)
		}
		if start, ok := lineStart(src, tc.line); ok && tc.line >= 1 && tc.byteCol >= 1 {
			if got := CharColumn(src, start+tc.byteCol-1, tc.byteCol); got != tc.want {
				t.Errorf("CharColumn(%d:%d) = %d, want %d", tc.line, tc.byteCol, got, tc.want)
			}
		}
	}
	if got := CharColumn(nil, 5, 6); got != 6 {
		t.Errorf("CharColumn without text = %d, want 6", got)
	}
	if got := NewLines(nil).CharColumnAt(1, 6); got != 6 {
		t.Errorf("Lines.CharColumnAt without text = %d, want 6", got)
	}
	if got := CharColumn(src, 2, 9); got != 9 {
		t.Errorf("CharColumn with a column before the text = %d, want 9", got)
	}

	// Lines, without their endings.
	for _, tc := range []struct {
		n    int
		want string
		ok   bool
	}{
		{1, "a→b", true}, {2, "😀é", true}, {3, "x\xffy", true}, {4, "", true}, {5, "", false}, {0, "", false},
	} {
		got, ok := Line(src, tc.n)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("Line(%d) = %q, %t; want %q, %t", tc.n, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := Line(nil, 1); !ok || len(got) != 0 {
		t.Errorf("Line 1 of an empty text = %q, %t; want empty, true", got, ok)
	}

	// Character columns to language-server units and back.
	for _, tc := range []struct {
		line               string
		col                int
		utf8, utf16, utf32 int
	}{
		{"a→b", 1, 0, 0, 0},
		{"a→b", 3, 4, 2, 2},
		{"😀é", 2, 4, 2, 1},
		{"😀é", 3, 6, 3, 2},
		{"x\xffy", 3, 2, 2, 2},
		{"ab", 9, 2, 2, 2}, // past the end: clamped
	} {
		for _, c := range []struct {
			enc  Encoding
			want int
		}{{UTF8, tc.utf8}, {UTF16, tc.utf16}, {UTF32, tc.utf32}} {
			line := []byte(tc.line)
			got := Units(line, tc.col, c.enc)
			if got != c.want {
				t.Errorf("Units(%q, %d, %s) = %d, want %d", tc.line, tc.col, c.enc, got, c.want)
			}
			back := Column(line, got, c.enc)
			if want := min(tc.col, utf8.RuneCount(line)+1); back != want {
				t.Errorf("Column(%q, %d, %s) = %d, want %d", tc.line, got, c.enc, back, want)
			}
		}
	}
	// An offset inside a character is that character.
	if got := Column([]byte("a😀b"), 2, UTF16); got != 2 {
		t.Errorf("mid-pair: %d, want 2", got)
	}
	if got := Column([]byte("a😀b"), 3, UTF8); got != 2 {
		t.Errorf("mid-sequence: %d, want 2", got)
	}
	if got := Column([]byte("ab"), 40, UTF16); got != 3 {
		t.Errorf("past the end: %d, want 3", got)
	}
}

// FuzzOffset checks the position conversions on arbitrary text (source
// files are outside input): an offset found for a line and column lies
// in the text, on that line, and converts back to the same column.
func FuzzOffset(f *testing.F) {
	f.Add([]byte("ab\n→é x\n"), 2, 3)
	f.Add([]byte("\xff\xfe\n\n"), 1, 2)
	f.Fuzz(func(t *testing.T, src []byte, line, col int) {
		off, ok := Offset(src, line, col)
		if !ok {
			return
		}
		if off < 0 || off > len(src) {
			t.Fatalf("Offset(%d:%d) = %d outside %d bytes", line, col, off, len(src))
		}
		lineStart := strings.LastIndexByte(string(src[:off]), '\n') + 1
		if got := strings.Count(string(src[:off]), "\n") + 1; got != line {
			t.Fatalf("Offset(%d:%d) = %d is on line %d", line, col, off, got)
		}
		if got := CharColumn(src, off, off-lineStart+1); got != col {
			t.Fatalf("CharColumn(%d) = %d, want %d", off, got, col)
		}
	})
}

// FuzzColumns checks every conversion on arbitrary text and positions
// (files, compiler positions and server answers are outside input): none
// panics, the line table agrees with the scan, a byte column converts to
// the characters before it, and a character column survives the trip
// through every encoding, with UTF-16 counted as unicode/utf16 counts it.
func FuzzColumns(f *testing.F) {
	f.Add([]byte("a→b\n😀é\r\nx\xffy\n"), 2, 5, 3)
	f.Add([]byte(""), 1, 1, 0)
	f.Add([]byte("\xed\xa0\x80\n\xf0\x9f"), 1, 2, 1)
	f.Fuzz(func(t *testing.T, src []byte, line, byteCol, units int) {
		lines := NewLines(src)
		got := CharColumnAt(src, line, byteCol)
		if l := lines.CharColumnAt(line, byteCol); l != got {
			t.Fatalf("Lines.CharColumnAt(%d:%d) = %d, CharColumnAt = %d", line, byteCol, l, got)
		}
		start, ok := lineStart(src, line)
		if ok && line >= 1 && byteCol > 1 && start+byteCol-1 <= len(src) {
			want := utf8.RuneCount(src[start:start+byteCol-1]) + 1
			if got != want {
				t.Fatalf("CharColumnAt(%d:%d) = %d, want %d", line, byteCol, got, want)
			}
			if c := CharColumn(src, start+byteCol-1, byteCol); c != want {
				t.Fatalf("CharColumn(%d:%d) = %d, want %d", line, byteCol, c, want)
			}
		} else if got != byteCol {
			t.Fatalf("CharColumnAt(%d:%d) = %d outside the text, want it unchanged", line, byteCol, got)
		}
		_ = CharColumn(src, units, byteCol)

		text, ok := Line(src, line)
		if !ok {
			return
		}
		if bytes.ContainsRune(text, '\n') {
			t.Fatalf("Line(%d) = %q holds a line ending", line, text)
		}
		n := utf8.RuneCount(text)
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			c := Column(text, units, enc)
			if c < 1 || c > n+1 {
				t.Fatalf("Column(%q, %d, %s) = %d outside 1..%d", text, units, enc, c, n+1)
			}
			for col := 1; col <= n+1; col++ {
				u := Units(text, col, enc)
				if back := Column(text, u, enc); back != col {
					t.Fatalf("Column(Units(%q, %d, %s) = %d) = %d", text, col, enc, u, back)
				}
			}
		}
		if utf8.Valid(text) {
			if u, want := Units(text, n+1, UTF16), len(utf16.Encode([]rune(string(text)))); u != want {
				t.Fatalf("Units(%q, end, utf-16) = %d, utf16 counts %d", text, u, want)
			}
		}
	})
}

func TestCutUTF8(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"}, // é is 2 bytes: not split
		{"aé", 3, "aé"},
		{"😀x", 3, ""},
		{"", 0, ""},
	} {
		if got := CutUTF8(c.s, c.n); got != c.want {
			t.Errorf("CutUTF8(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
