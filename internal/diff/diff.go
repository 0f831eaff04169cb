// Package diff parses unified diffs, as git diff and diff -u write them,
// into files and hunks, and applies their hunks in either direction; it
// writes the diff between two texts too (Compare), for a reader that has
// both and must not ask git for one.
//
// The input is outside data (a diff an agent pastes, git's output on a
// repository nobody vetted): Parse never panics, bounds what it keeps, and
// fails with an error naming the line that does not fit the format.
package diff

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxFiles bounds the files one diff may describe.
const MaxFiles = 10000

// File is what a diff says about one file. OldPath is "" for a file the
// diff adds and NewPath "" for one it deletes; paths are as the diff
// spells them, without git's a/ and b/ prefixes.
type File struct {
	OldPath, NewPath string
	Binary           bool // git's "Binary files ... differ": no hunks
	Hunks            []Hunk
}

// Hunk is one @@ section: the old lines from OldStart (OldLines of them)
// become the new lines from NewStart (NewLines). Starts are 1-based; a
// hunk with no old (new) lines has the start of the line before the gap,
// 0 at the top of the file, as diff -u writes it.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Line is one line of a hunk: Op ' ' (context), '-' (old only) or '+'
// (new only); Text without its newline. NoNewline marks a line that ends
// its file without a newline ("\ No newline at end of file").
type Line struct {
	Op        byte
	Text      string
	NoNewline bool
}

// Path is the file's path in the new tree, or in the old one for a
// deleted file.
func (f File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Parse reads a unified diff. Text before the first file header and
// between files (commit messages, git's "diff --git" and "index" lines)
// is skipped; a hunk whose line counts do not add up is an error.
func Parse(data []byte) ([]File, error) {
	lines := splitLines(data)
	var files []File
	var cur *File
	gitOld, gitNew := "", "" // paths of the last "diff --git" line
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			gitOld, gitNew = gitPaths(strings.TrimPrefix(l, "diff --git "))
			if len(files) >= MaxFiles {
				return nil, fmt.Errorf("line %d: more than %d files", i+1, MaxFiles)
			}
			files = append(files, File{OldPath: gitOld, NewPath: gitNew})
			cur = &files[len(files)-1]
		case cur != nil && gitOld != "" && strings.HasPrefix(l, "new file mode"):
			cur.OldPath = ""
		case cur != nil && gitOld != "" && strings.HasPrefix(l, "deleted file mode"):
			cur.NewPath = ""
		case cur != nil && strings.HasPrefix(l, "rename from "):
			cur.OldPath = unquote(strings.TrimPrefix(l, "rename from "))
		case cur != nil && strings.HasPrefix(l, "rename to "):
			cur.NewPath = unquote(strings.TrimPrefix(l, "rename to "))
		case cur != nil && strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
			cur.Binary = true
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			oldP := headerPath(strings.TrimPrefix(l, "--- "))
			newP := headerPath(strings.TrimPrefix(lines[i+1], "+++ "))
			i++
			if cur == nil || len(cur.Hunks) > 0 || gitOld == "" {
				// A plain diff -u file, or a second header after hunks.
				if len(files) >= MaxFiles {
					return nil, fmt.Errorf("line %d: more than %d files", i+1, MaxFiles)
				}
				files = append(files, File{})
				cur = &files[len(files)-1]
			}
			cur.OldPath, cur.NewPath = oldP, newP
			gitOld = ""
		case strings.HasPrefix(l, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("line %d: hunk before any file header", i+1)
			}
			h, err := parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			n, err := readHunk(&h, lines[i+1:])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1+n, err)
			}
			cur.Hunks = append(cur.Hunks, h)
			i += n
		}
	}
	return files, nil
}

// splitLines splits data into lines without their "\n" (and a "\r"
// before it).
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	parts := strings.Split(string(data), "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return parts
}

// readHunk reads the body of h from lines and returns how many it used.
func readHunk(h *Hunk, lines []string) (int, error) {
	oldLeft, newLeft := h.OldLines, h.NewLines
	n := 0
	for n < len(lines) && (oldLeft > 0 || newLeft > 0) {
		l := lines[n]
		if l == "" {
			l = " " // some tools drop the space of an empty context line
		}
		switch l[0] {
		case ' ':
			oldLeft--
			newLeft--
		case '-':
			oldLeft--
		case '+':
			newLeft--
		case '\\':
			markNoNewline(h)
			n++
			continue
		default:
			return n, fmt.Errorf("hunk ends early: %d old and %d new lines missing", max(oldLeft, 0), max(newLeft, 0))
		}
		if oldLeft < 0 || newLeft < 0 {
			return n, errors.New("hunk has more lines than its header counts")
		}
		h.Lines = append(h.Lines, Line{Op: l[0], Text: l[1:]})
		n++
	}
	if oldLeft > 0 || newLeft > 0 {
		return n, fmt.Errorf("hunk ends early: %d old and %d new lines missing", oldLeft, newLeft)
	}
	if n < len(lines) && strings.HasPrefix(lines[n], `\`) {
		markNoNewline(h)
		n++
	}
	return n, nil
}

func markNoNewline(h *Hunk) {
	if len(h.Lines) > 0 {
		h.Lines[len(h.Lines)-1].NoNewline = true
	}
}

// parseHunkHeader reads "@@ -a,b +c,d @@ ...".
func parseHunkHeader(l string) (Hunk, error) {
	var h Hunk
	rest := strings.TrimPrefix(l, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return h, errors.New("hunk header has no closing @@")
	}
	fields := strings.Fields(rest[:end])
	if len(fields) != 2 || !strings.HasPrefix(fields[0], "-") || !strings.HasPrefix(fields[1], "+") {
		return h, fmt.Errorf("hunk header %q is not -a,b +c,d", rest[:end])
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(fields[0][1:]); err != nil {
		return h, err
	}
	if h.NewStart, h.NewLines, err = parseRange(fields[1][1:]); err != nil {
		return h, err
	}
	return h, nil
}

// maxLine bounds the line numbers a hunk may name.
const maxLine = 1 << 26

func parseRange(s string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err = strconv.Atoi(a)
	if err != nil || start < 0 || start > maxLine {
		return 0, 0, fmt.Errorf("bad line number %q", a)
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(b)
		if err != nil || count < 0 || count > maxLine {
			return 0, 0, fmt.Errorf("bad line count %q", b)
		}
	}
	return start, count, nil
}

// headerPath reads the path of a "---" or "+++" line: /dev/null is "",
// git's a/ or b/ prefix is dropped, a tab and what follows (a time stamp)
// is cut.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return ""
	}
	return stripPrefix(s)
}

func stripPrefix(s string) string {
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// gitPaths reads the two paths of "diff --git a/x b/x". With spaces in the
// names the split is ambiguous; the "---"/"+++" lines, when present,
// replace what it guesses.
func gitPaths(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil {
			rest := strings.TrimSpace(s[len(q):])
			return stripPrefix(unquote(q)), stripPrefix(unquote(rest))
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return stripPrefix(s[:i]), stripPrefix(s[i+1:])
	}
	a, b, _ := strings.Cut(s, " ")
	return stripPrefix(a), stripPrefix(b)
}

// unquote undoes git's C-style quoting of unusual file names.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// Range is the lines From to To (1-based, inclusive) of one side of a
// diff. An empty range (To < From) marks a place between lines: a
// deletion seen from the new side, an insertion from the old.
type Range struct{ From, To int }

// Changed returns, for each side, the line ranges the file's hunks
// change: the old lines removed and the new lines added. Where a hunk
// only deletes, the new side gets an empty range at the gap, and where it
// only inserts, the old side does, so that each side sees every change.
func (f File) Changed() (old, new []Range) {
	for _, h := range f.Hunks {
		o, n := h.OldStart, h.NewStart
		if h.OldLines == 0 {
			o++ // the start names the line before the gap
		}
		if h.NewLines == 0 {
			n++
		}
		for i := 0; i < len(h.Lines); {
			if h.Lines[i].Op == ' ' {
				o++
				n++
				i++
				continue
			}
			ro, rn := Range{From: o, To: o - 1}, Range{From: n, To: n - 1}
			for ; i < len(h.Lines) && h.Lines[i].Op != ' '; i++ {
				if h.Lines[i].Op == '-' {
					ro.To = o
					o++
				} else {
					rn.To = n
					n++
				}
			}
			old = append(old, ro)
			new = append(new, rn)
		}
	}
	return old, new
}

// ErrNoMatch is returned by Apply when the text is not the side of the
// diff it applies from.
var ErrNoMatch = errors.New("the diff does not match the text")

// Apply applies the file's hunks to text, which must be the old side
// (reverse false) or the new side (reverse true), and returns the other
// side. Every context and removed line must match exactly at the line the
// hunk names; otherwise the error wraps ErrNoMatch and names the line.
func (f File) Apply(text []byte, reverse bool) ([]byte, error) {
	// starts: the offset each line of text starts at, a last line
	// without a newline included.
	var starts []int
	for i := 0; i < len(text); {
		starts = append(starts, i)
		n := bytes.IndexByte(text[i:], '\n')
		if n < 0 {
			break
		}
		i += n + 1
	}
	lines := len(starts)
	// offset is where line k starts (the end of text for k == lines).
	offset := func(k int) int {
		if k < lines {
			return starts[k]
		}
		return len(text)
	}
	grow := 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			grow += len(l.Text) + 1
		}
	}
	out := make([]byte, 0, len(text)+grow)
	pos := 0 // 0-based index of the next source line to copy
	from, to := byte('-'), byte('+')
	if reverse {
		from, to = '+', '-'
	}
	for _, h := range f.Hunks {
		start, count := h.OldStart, h.OldLines
		if reverse {
			start, count = h.NewStart, h.NewLines
		}
		at := start - 1
		if count == 0 {
			at = start // the start names the line before the gap
		}
		if at < pos || at > lines {
			return nil, fmt.Errorf("hunk at line %d: %w", start, ErrNoMatch)
		}
		out = append(out, text[offset(pos):offset(at)]...)
		pos = at
		for _, l := range h.Lines {
			switch l.Op {
			case ' ', from:
				if pos >= lines {
					return nil, fmt.Errorf("line %d: %w", pos+1, ErrNoMatch)
				}
				line := text[offset(pos):offset(pos+1)]
				if string(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))) != l.Text {
					return nil, fmt.Errorf("line %d: %w", pos+1, ErrNoMatch)
				}
				if l.Op == ' ' {
					out = append(out, line...)
				}
				pos++
			case to:
				out = append(out, l.Text...)
				if !l.NoNewline {
					out = append(out, '\n')
				}
			}
		}
	}
	return append(out, text[offset(pos):]...), nil
}
