package query

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// longLineFixture indexes a module whose function Big is written on one
// line of about 2 MiB (generated code, embedded data), and Mid on one
// line of a few kilobytes of two-byte characters.
func longLineFixture(t *testing.T) (f *fixture, big, mid string) {
	t.Helper()
	big = "func Big() string { return \"" + strings.Repeat("0123456789abcdef", 2<<16) + "\" }"
	mid = "func Mid() string { return \"" + strings.Repeat("é", 1500) + "\" }"
	f = indexFixture(t, func() string {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"go.mod": "module example.com/long\n\ngo 1.22\n",
			"big.go": "package long\n\n" + big + "\n",
			"mid.go": "package long\n\n" + mid + "\n\n// After follows.\nfunc After() {}\n",
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	})
	return f, big, mid
}

// readAll follows read_source's continuations from args at budget and
// returns the source of the blocks joined as they were cut, failing when
// an answer is over its budget or makes no progress.
func readAll(t *testing.T, f *fixture, args string, budget, maxCalls int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; ; i++ {
		if i == maxCalls {
			t.Fatalf("%s: continuations do not end after %d calls", args, i)
		}
		o := ok[*ReadSourceOutput](t, f, "read_source", args)
		if n := len(o.Text()); n > budget*4 {
			t.Fatalf("answer %d: %d bytes, over the %d-token budget", i, n, budget)
		}
		if len(o.Results) != 1 {
			t.Fatalf("answer %d: %d blocks", i, len(o.Results))
		}
		blk := o.Results[0]
		if blk.Source == "" || !utf8.ValidString(blk.Source) {
			t.Fatalf("answer %d: source %q is empty or splits a character", i, blk.Source)
		}
		if i > 0 && cutBytes(t, o)[0] == 0 {
			b.WriteByte('\n') // a piece from the start of its line
		}
		b.WriteString(blk.Source)
		if !o.Truncated {
			return b.String()
		}
		if o.Continuation == "" {
			t.Fatalf("answer %d truncated without a continuation", i)
		}
		args = fmt.Sprintf(`{"continuation":%q,"budget":%d}`, o.Continuation, budget)
	}
}

// TestReadSourceCutsLongLine: a declaration on one line longer than the
// budget is cut inside the line, marked as cut, and continued from
// inside the line until all of it was read; no answer is over its budget.
func TestReadSourceCutsLongLine(t *testing.T) {
	f, big, mid := longLineFixture(t)
	o := ok[*ReadSourceOutput](t, f, "read_source", `{"qualified_name":"Big","budget":150}`)
	if n := len(o.Text()); n > 600 || !o.Truncated || o.Continuation == "" {
		t.Fatalf("Big at budget 150: %d bytes, truncated %v, continuation %q; want at most 600 bytes, cut, with a continuation",
			n, o.Truncated, o.Continuation)
	}
	blk, cut := o.Results[0], cutBytes(t, o)
	if !strings.HasPrefix(big, blk.Source) || cut[1] != len(blk.Source) || blk.StartLine != 3 || blk.EndLine != 3 {
		t.Errorf("Big at budget 150: block %d-%d cut at byte %d with %d bytes of source; want line 3 cut where its source ends",
			blk.StartLine, blk.EndLine, cut[1], len(blk.Source))
	}
	if !strings.Contains(o.Text(), fmt.Sprintf("byte %d", cut[1])) {
		t.Errorf("the text does not say where the line was cut:\n%s", o.Text())
	}
	raw, _ := json.Marshal(o)
	if len(raw) > 2000 {
		t.Errorf("structured answer of %d bytes at budget 150", len(raw))
	}
	// Continued at the largest budget, the pieces make up the line.
	if got := readAll(t, f, `{"qualified_name":"Big","budget":8000}`, 8000, 200); got != big {
		t.Errorf("Big read in pieces: %d bytes, want the %d of its line", len(got), len(big))
	}
	// At the smallest one, cuts between characters, then the next lines.
	want := mid + "\n\n// After follows.\nfunc After() {}"
	if got := readAll(t, f, `{"ref":"mid.go:3-6","budget":150}`, 150, 100); got != want {
		t.Errorf("mid.go:3-6 read in pieces:\n%q\nwant\n%q", got, want)
	}
	// A continuation is refused when its byte is not inside the line.
	for _, off := range []int{-1, len(big), len(big) + 10} {
		fails(t, f, "read_source", fmt.Sprintf(`{"continuation":%q}`, withByte(t, o.Continuation, off)), "CURSOR_INVALID")
	}
}

// cutBytes returns the first block's start_byte and end_byte as the
// structured answer has them (0 when absent).
func cutBytes(t *testing.T, o *ReadSourceOutput) [2]int {
	t.Helper()
	raw, _ := json.Marshal(o)
	var v struct {
		Results []struct {
			StartByte int `json:"start_byte"`
			EndByte   int `json:"end_byte"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || len(v.Results) == 0 {
		t.Fatalf("decoding the answer: %v", err)
	}
	return [2]int{v.Results[0].StartByte, v.Results[0].EndByte}
}

// withByte returns a continuation with its byte offset set to off.
func withByte(t *testing.T, cont string, off int) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cont)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("continuation %q: %v", cont, err)
	}
	m["o"] = off
	b, _ = json.Marshal(m)
	return base64.RawURLEncoding.EncodeToString(b)
}
