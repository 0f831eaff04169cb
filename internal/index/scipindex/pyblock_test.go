package scipindex

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPyBlockEnd: the last line of a def or class statement, whatever its
// header, strings and comments.
func TestPyBlockEnd(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      int // 0-based, of the statement starting on line 0
	}{
		{"one line", "def f(x: int) -> int: ...\ndef f(x): return x\n", 0},
		{"body", "def f(x):\n    y = x\n\n    return y\nz = 1\n", 3},
		{"header over lines", "def f(\n    self,\n    x,\n) -> int:\n    return x\n\n\ndef g(): pass\n", 4},
		{"docstring at column 0", "def f():\n    s = \"\"\"\nnot code\n\"\"\"\n    return s\nx = 1\n", 4},
		{"comments", "def f():  # note: a colon\n    # inside\n    return 1\n# after\nx = 2\n", 2},
		{"brackets open", "def f():\n    return [\n1,\n]\ny = 3\n", 3},
		{"nested", "class C:\n    def m(self):\n        return 1\n\n    x = 2\nclass D: pass\n", 4},
		{"strings with quotes", "def f():\n    s = 'a:#b' + \"c\\\"\"\n    return s\ng = 1\n", 2},
		{"to the end", "def f():\n    return 1", 1},
		{"header never closes: to the end of the file", "def f(\n    x,\n", 2},
	} {
		lines := strings.Split(c.src, "\n")
		b := make([][]byte, len(lines))
		for i, l := range lines {
			b[i] = []byte(l)
		}
		if got := pyBlockEnd(b, 0); got != c.want {
			t.Errorf("%s: ends on line %d, want %d", c.name, got, c.want)
		}
	}
}

func FuzzPyBlockEnd(f *testing.F) {
	f.Add("def f(x):\n    return (x,\n\"\"\"a\n\"\"\")\ny = 1\n", 0)
	f.Add("class C:\n  def m(self): ...\n", 1)
	f.Fuzz(func(t *testing.T, src string, first int) {
		lines := strings.Split(src, "\n")
		b := make([][]byte, len(lines))
		for i, l := range lines {
			b[i] = []byte(l)
		}
		if first < 0 || first >= len(b) {
			return
		}
		if got := pyBlockEnd(b, first); got < first || got >= len(b) {
			t.Fatalf("pyBlockEnd(%d) = %d of %d lines", first, got, len(b))
		}
	})
}

// TestPyHeaders: the scope a def or class statement binds its name in is
// the def or class around it, past if, else and the other statements
// that make no scope; strings and brackets hold no statement.
func TestPyHeaders(t *testing.T) {
	src := `import typing as t
if t.TYPE_CHECKING:
    class A: pass
else:
    class A:
        def f(self): pass
        if True:
            def f(self): pass
def g():
    def f(): pass
    s = """
def h(): pass
"""
    x = [
def_ = 1,
    ]
async def k(): pass
`
	var got []string
	for _, h := range pyHeaders(bytes.Split([]byte(src), []byte("\n"))) {
		got = append(got, fmt.Sprintf("%s@%d:%d in %d", h.name, h.line, h.char, h.scope))
	}
	want := []string{"A@2:10 in -1", "A@4:10 in -1", "f@5:12 in 4", "f@7:16 in 4", "g@8:4 in -1", "f@9:8 in 8", "k@16:10 in -1"}
	if !slices.Equal(got, want) {
		t.Errorf("pyHeaders = %v, want %v", got, want)
	}
	// The two A and the two f of A's body are groups; the f of g is alone.
	written := map[[2]int]string{{2, 10}: "A#", {5, 12}: "A#f()."}
	var redecl []string
	for _, r := range pyUnwritten(bytes.Split([]byte(src), []byte("\n")), func(line, char int) string { return written[[2]int{line, char}] }) {
		redecl = append(redecl, fmt.Sprintf("%s@%d:%d", r.symbol, r.line, r.char))
	}
	if want := []string{"A#@4:10", "A#f().@7:16"}; !slices.Equal(redecl, want) {
		t.Errorf("pyUnwritten = %v, want %v", redecl, want)
	}
}

// FuzzPyUnwritten: the def and class statements found in any source are
// where their names are, and each redeclaration is of a name its group
// has written elsewhere.
func FuzzPyUnwritten(f *testing.F) {
	f.Add("if X:\n    class A: pass\nelse:\n    class A:\n        x = (1,\n2)\n")
	f.Add("def f():\n    s = \"\"\"\ndef f(): pass\n\"\"\"\ndef f(): pass\n")
	f.Fuzz(func(t *testing.T, src string) {
		lines := bytes.Split([]byte(src), []byte("\n"))
		headers := pyHeaders(lines)
		written := map[[2]int]string{}
		for i, h := range headers {
			if h.line < 0 || h.line >= len(lines) || h.char < 0 || h.char+len(h.name) > len(lines[h.line]) ||
				string(lines[h.line][h.char:h.char+len(h.name)]) != h.name || h.scope >= h.line {
				t.Fatalf("header %+v of %q", h, src)
			}
			if i%2 == 0 {
				written[[2]int{h.line, h.char}] = "sym " + h.name
			}
		}
		for _, r := range pyUnwritten(lines, func(line, char int) string { return written[[2]int{line, char}] }) {
			if r.symbol != "sym "+r.name || written[[2]int{r.line, r.char}] != "" {
				t.Fatalf("redeclaration %+v of %q", r, src)
			}
		}
	})
}

// TestPyTypeUse: a name is a type where an annotation starts, whether
// an '=' follows or not; after a compound statement's colon it is a
// target or a value.
func TestPyTypeUse(t *testing.T) {
	for _, c := range []struct {
		line string
		at   int // byte offset of the name
		want bool
	}{
		{"def make(p: Info) -> Info:", 12, true},
		{"def make(p: Info) -> Info:", 21, true},
		{"async def f(a, b: Info): pass", 18, true},
		{"    ctx: Context,", 9, true},
		{"    self.base: Base", 15, true},
		{"    made: Info", 10, true},
		{"d = {\"k\": Info}", 10, false},
		{"f = lambda x: Info", 14, false},
		{"    lambda: Info", 12, false},
		{"else: Info", 6, false},
		{"y = a[1:Info]", 8, false},
		{"print(Info)", 6, false},
		{"    made: Info = Info()", 10, true},
		{"    ctx: Context | None = None,", 9, true},
		{"def f(p: Info = d): pass", 9, true},
		{"async def f(p: Info = d): pass", 15, true},
		{"if ready: x = 1", 10, false},
		{"else: x = 1", 6, false},
		{"for i in y: total = i", 12, false},
		{"x = Info", 4, false},
		{"total = 1", 0, false},
		{"    ctx: Context | None = None,", 19, true},
		{"def f(a: t.Optional[Info], b: dict[str, Info]) -> list[Info]: pass", 11, true},
		{"def f(a: t.Optional[Info], b: dict[str, Info]) -> list[Info]: pass", 20, true},
		{"def f(a: t.Optional[Info], b: dict[str, Info]) -> list[Info]: pass", 41, true},
		{"def f(a: t.Optional[Info], b: dict[str, Info]) -> list[Info]: pass", 56, true},
		{"    made: Info = make[Info]", 22, false},
		{"x = a | Info", 8, false},
		{"for a, Info in pairs:", 7, false},
		{"if a | Info:", 7, false},
		{"print(a, Info)", 9, false},
	} {
		if got := pyTypeUse([]byte(c.line), []byte(c.line[:c.at])); got != c.want {
			t.Errorf("pyTypeUse(%q at %d) = %v, want %v", c.line, c.at, got, c.want)
		}
	}
}
