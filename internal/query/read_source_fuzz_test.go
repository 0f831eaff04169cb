package query

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzSplitRef feeds arbitrary refs to splitRef: it never panics, and what
// it accepts re-assembles to the input.
func FuzzSplitRef(f *testing.F) {
	for _, s := range []string{"a.go::Server.Start", "a.go:1-2", "dir/x.go:10-400", "::", ":", "a.go:-1--2", "a::b::c", "a.go:1-", "é.go:3-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		p, name, from, to, err := splitRef(ref)
		if err != nil {
			if e, ok := asError(err); !ok || e.Code != "INVALID_ARGUMENT" {
				t.Fatalf("splitRef(%q): %v is not INVALID_ARGUMENT", ref, err)
			}
			return
		}
		if p == "" {
			t.Fatalf("splitRef(%q) accepted an empty path", ref)
		}
		if name != "" {
			if p+"::"+name != ref {
				t.Fatalf("splitRef(%q) = %q :: %q", ref, p, name)
			}
			return
		}
		if got := fmt.Sprintf("%s:%d-%d", p, from, to); got != ref && !strings.ContainsAny(ref, "+0") {
			t.Fatalf("splitRef(%q) = %q", ref, got)
		}
	})
}

// FuzzParseReadCont feeds arbitrary continuations to parseReadCont: it
// never panics, refuses with CURSOR_INVALID, and what it accepts is
// within the bounds read_source itself issues.
func FuzzParseReadCont(f *testing.F) {
	f.Add(encodeReadCont(readCont{V: 1, Repo: "r", Snap: 3, Key: "K", Depth: 2, Block: 1, Line: 4}))
	f.Add(encodeReadCont(readCont{V: 1, Repo: "r", Snap: 3, Path: "a/b.go", From: 1, To: 9, Hash: "abcd"}))
	f.Add(encodeReadCont(readCont{V: 1, Repo: "r", Path: "../x.go", From: 1, To: 2}))
	f.Add("not base64!")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseReadCont(s)
		if err != nil {
			if e, ok := asError(err); !ok || e.Code != "CURSOR_INVALID" {
				t.Fatalf("parseReadCont(%q): %v is not CURSOR_INVALID", s, err)
			}
			return
		}
		if c.Depth > maxSourceDepth || c.Ctx > maxContextLines || c.Block < 0 || c.Line < 0 {
			t.Fatalf("parseReadCont(%q) accepted %+v", s, c)
		}
		if c.Path != "" && (strings.HasPrefix(c.Path, "/") || strings.Contains("/"+c.Path+"/", "/../") || c.To-c.From >= maxRangeLines) {
			t.Fatalf("parseReadCont(%q) accepted path %q lines %d-%d", s, c.Path, c.From, c.To)
		}
	})
}
