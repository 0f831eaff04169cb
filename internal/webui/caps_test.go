package webui_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCallersCapped: a function with thousands of callers gets a page of
// bounded size, its callers' layer drawn to the cap with one node saying
// how many more, whose link doubles the cap.
func TestCallersCapped(t *testing.T) {
	const callers = 3000
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	src.WriteString("package p\n\n// Target is called from everywhere.\nfunc Target() {}\n")
	for i := range callers {
		fmt.Fprintf(&src, "\nfunc Caller%d() { Target() }\n", i)
	}
	for name, text := range map[string]string{"go.mod": "module example.com/big\n\ngo 1.22\n", "p/p.go": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := serveDir(t, dir)

	_, body := get(t, srv, "/search/results?q=Target", false)
	key := regexp.MustCompile(`/symbol\?key=[A-Z0-9]+`).FindString(body)
	if key == "" {
		t.Fatalf("no symbol page for Target in %s", body)
	}
	callerNodes := func(page string) (int, string) {
		i, j := strings.Index(page, `<section id="callers">`), strings.Index(page, `<section id="callees">`)
		if i < 0 || j < i {
			t.Fatalf("no callers section")
		}
		sec := page[i:j]
		more := regexp.MustCompile(`<g class="node more"><a href="([^"]+)"`).FindStringSubmatch(sec)
		if more == nil {
			return strings.Count(sec, `<g class="node`), ""
		}
		return strings.Count(sec, `<g class="node`), strings.ReplaceAll(more[1], "&amp;", "&")
	}
	resp, page := get(t, srv, key, false)
	if resp.StatusCode != http.StatusOK || len(page) > 256<<10 {
		t.Fatalf("Target's page: %d, %d bytes; want 200 within 256 KiB", resp.StatusCode, len(page))
	}
	n, more := callerNodes(page)
	if n != 12+2 || more == "" { // the root, 12 callers, and the node more
		t.Errorf("Target's callers drew %d nodes with more link %q, want 14 and a link", n, more)
	}
	if !strings.Contains(page, "188 more not drawn") || !strings.Contains(page, `class="note beyond"`) { // a walk of 200
		t.Errorf("the page does not say it drew 12 of a walk of 200, and that the walk stopped short of all the callers")
	}
	u, _ := url.Parse(more)
	if u.Query().Get("more") != "2" {
		t.Errorf("the node more links to %s, want more=2", more)
	}
	_, page = get(t, srv, more, false)
	if n, _ := callerNodes(page); n != 24+2 {
		t.Errorf("after show more: %d nodes, want 26", n)
	}
}

// TestDiffCapped: a working tree whose diff runs to thousands of lines
// gets an impact page of bounded size, its diff cut at the page's cap
// with a note saying how much it shows.
func TestDiffCapped(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	write := func(files map[string]string) {
		for name, text := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	long := func(word string) string {
		var b strings.Builder
		b.WriteString("package p\n\n")
		for i := range 3000 {
			fmt.Fprintf(&b, "// %s %d\n", word, i)
		}
		b.WriteString("func F() {}\n")
		return b.String()
	}
	write(map[string]string{"go.mod": "module example.com/long\n\ngo 1.22\n", "p/a.go": long("old"), "p/b.go": "package p\n\nfunc G() {}\n"})
	if err := commitAndEdit(dir); err == nil || !strings.Contains(err.Error(), "weird") {
		t.Fatalf("committing: %v", err) // commits, then finds no weird package to edit
	}
	write(map[string]string{"p/a.go": long("new"), "p/b.go": "package p\n\nfunc G() { F() }\n"})
	srv := serveDir(t, dir)
	resp, page := get(t, srv, "/impact", false)
	if resp.StatusCode != http.StatusOK || len(page) > 512<<10 {
		t.Fatalf("the impact page: %d, %d bytes; want 200 within 512 KiB", resp.StatusCode, len(page))
	}
	if n := strings.Count(page, `<span class="del">`) + strings.Count(page, `<span class="add">`); n < 1900 || n > 2000 {
		t.Errorf("the diff shows %d changed lines, want the cap's 2000 lines less the headers", n)
	}
	if !strings.Contains(page, `<p class="note cut">cut at 2000 lines or 256 KiB: 1 of 2 files shown, the last of them in part</p>`) {
		t.Errorf("the page does not say the diff is cut")
	}
	if strings.Contains(page, "b/p/b.go") {
		t.Errorf("the page shows b.go's diff, past the cap")
	}
}
