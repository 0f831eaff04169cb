package diff

import (
	"strconv"
	"strings"
)

// Context is the lines of unchanged text Compare keeps around each
// change, as diff -u and git diff keep them.
const Context = 3

// MaxEdit bounds the differing lines Compare searches the shortest edit
// script for, so that its work stays within the texts' length times
// MaxEdit: two texts differing by more are written as their differing
// middle removed whole and added whole, a correct diff but a longer one.
const MaxEdit = 2000

// Compare returns the diff that turns old into new, as diff -u writes it
// with Context lines of context: a File named path with no hunks when the
// texts are equal; a nil side is a file that does not exist (OldPath or
// NewPath ""). The edit script is Myers's shortest within MaxEdit.
func Compare(path string, old, new []byte) File {
	f := File{OldPath: path, NewPath: path}
	if old == nil {
		f.OldPath = ""
	}
	if new == nil {
		f.NewPath = ""
	}
	a, b := textLines(old), textLines(new)
	// The common head and tail are equal lines whatever the middle does.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]byte, 0, len(a)+len(b))
	for range pre {
		ops = append(ops, ' ')
	}
	ops = append(ops, edits(a[pre:len(a)-suf], b[pre:len(b)-suf], MaxEdit)...)
	for range suf {
		ops = append(ops, ' ')
	}
	f.Hunks = hunks(ops, a, b)
	return f
}

// textLines splits text into lines, each with its "\n" (the last one may
// have none), so that a last line without a newline differs from the
// same line with one.
func textLines(text []byte) []string {
	var out []string
	s := string(text)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// edits is the shortest edit script from a to b (Myers, "An O(ND)
// difference algorithm"): ' ' keeps a line of both, '-' removes one of a,
// '+' adds one of b. Past maxD differing lines it gives up and removes a
// whole, then adds b whole. The search keeps, for each step d, the
// furthest points of the diagonals -d-1..d+1 only, so its memory is
// quadratic in d (16 MB at MaxEdit), not in the texts.
func edits(a, b []string, maxD int) []byte {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || maxD <= 0 {
		return replaceAll(n, m)
	}
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int32 // trace[d]: v[off-d-1 .. off+d+1] before step d
	for d := 0; d <= min(n+m, maxD); d++ {
		w := make([]int32, 2*d+3)
		for i := range w {
			w[i] = int32(v[off-d-1+i])
		}
		trace = append(trace, w)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: a line of b added
			} else {
				x = v[off+k-1] + 1 // right: a line of a removed
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return replaceAll(n, m)
}

// backtrack reads the edit script back from the end point (n, m) through
// the furthest points each step reached.
func backtrack(trace [][]int32, n, m int) []byte {
	var rev []byte
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		w := trace[d]
		at := func(k int) int { return int(w[k+d+1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, ' ')
			x--
			y--
		}
		if d > 0 {
			if x == px {
				rev = append(rev, '+')
			} else {
				rev = append(rev, '-')
			}
		}
		x, y = px, py
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func replaceAll(n, m int) []byte {
	out := make([]byte, 0, n+m)
	for range n {
		out = append(out, '-')
	}
	for range m {
		out = append(out, '+')
	}
	return out
}

// hunks groups an edit script into hunks of Context lines around each
// run of changes, runs closer than twice Context sharing one.
func hunks(ops []byte, a, b []string) []Hunk {
	var out []Hunk
	i := 0
	ai, bi := 0, 0 // lines of a and b before ops[i]
	for i < len(ops) {
		if ops[i] == ' ' {
			i, ai, bi = i+1, ai+1, bi+1
			continue
		}
		// A change at i: start a hunk Context lines before it.
		back := 0
		for back < Context && i-back > 0 && ops[i-back-1] == ' ' {
			back++
		}
		h := Hunk{OldStart: ai - back + 1, NewStart: bi - back + 1}
		for j := range back {
			h.Lines = append(h.Lines, line(' ', a[ai-back+j]))
		}
		for i < len(ops) {
			switch ops[i] {
			case '-':
				h.Lines = append(h.Lines, line('-', a[ai]))
				i, ai = i+1, ai+1
				continue
			case '+':
				h.Lines = append(h.Lines, line('+', b[bi]))
				i, bi = i+1, bi+1
				continue
			}
			// Equal lines: the hunk goes on if another change comes
			// within twice Context, else ends with Context of them.
			run := 0
			for i+run < len(ops) && ops[i+run] == ' ' {
				run++
			}
			if i+run < len(ops) && run <= 2*Context {
				for range run {
					h.Lines = append(h.Lines, line(' ', a[ai]))
					i, ai, bi = i+1, ai+1, bi+1
				}
				continue
			}
			for range min(run, Context) {
				h.Lines = append(h.Lines, line(' ', a[ai]))
				i, ai, bi = i+1, ai+1, bi+1
			}
			break
		}
		for _, l := range h.Lines {
			if l.Op != '+' {
				h.OldLines++
			}
			if l.Op != '-' {
				h.NewLines++
			}
		}
		// A side with no lines names the line before the gap.
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		out = append(out, h)
	}
	return out
}

func line(op byte, text string) Line {
	t, nl := strings.CutSuffix(text, "\n")
	return Line{Op: op, Text: strings.TrimSuffix(t, "\r"), NoNewline: !nl}
}

// String writes f as a unified diff that Parse reads back: the ---
// and +++ header (a/ and b/ prefixes, /dev/null for a missing side, a
// name with control characters or quotes quoted as git quotes it), then
// each hunk. A file with no hunks writes nothing.
func (f File) String() string {
	if len(f.Hunks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + headerName("a/", f.OldPath) + "\n")
	b.WriteString("+++ " + headerName("b/", f.NewPath) + "\n")
	for _, h := range f.Hunks {
		b.WriteString("@@ -" + spellRange(h.OldStart, h.OldLines) + " +" + spellRange(h.NewStart, h.NewLines) + " @@\n")
		for _, l := range h.Lines {
			b.WriteByte(l.Op)
			b.WriteString(l.Text)
			b.WriteByte('\n')
			if l.NoNewline {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

func headerName(prefix, p string) string {
	if p == "" {
		return "/dev/null"
	}
	for _, r := range p {
		if r == '"' || r == '\\' || !strconv.IsPrint(r) {
			return strconv.Quote(prefix + p)
		}
	}
	return prefix + p
}

func spellRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}
