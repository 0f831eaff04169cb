package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
)

// writeRepo writes files under dir and commits them, so the checkout has
// a commit (HEAD) for publish to record.
func writeRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// sextant runs the command line in-process and returns stdout and the
// exit code.
func sextant(t *testing.T, vars map[string]string, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), e, args)
	if code != 0 && code != ExitNotFound {
		t.Logf("sextant %v: exit %d\n%s", args, code, errOut.String())
	}
	return out.String(), code
}

// TestOverlay publishes a repository at commit A into a shared
// PostgreSQL graph, edits the working copy (a function renamed with its
// callers, a function and a file added), and checks that find_symbol,
// get_symbol and find_references answer with the edit applied, each row
// labelled with its layer, while an unchanged file's symbols and another
// published repository come from the shared graph, and the shared graph
// itself is untouched.
func TestOverlay(t *testing.T) {
	dsn := pgtest.Schema(t)
	work := t.TempDir()
	repo := filepath.Join(work, "ov")
	other := filepath.Join(work, "other")
	for _, d := range []string{repo, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeRepo(t, repo, map[string]string{
		"go.mod":  "module example.com/ov\n\ngo 1.22\n",
		"a.go":    "package ov\n\n// Old is renamed by the edit.\nfunc Old() string { return \"old\" }\n",
		"b.go":    "package ov\n\nfunc UseOld() string { return Old() }\n",
		"keep.go": "package ov\n\n// Keep is in a file the edit leaves alone.\ntype Keep struct{}\n",
	})
	writeRepo(t, other, map[string]string{
		"go.mod": "module example.com/other\n\ngo 1.22\n",
		"o.go":   "package other\n\n// OtherThing lives only in the shared graph.\nfunc OtherThing() {}\n\nfunc CallsOther() { OtherThing(); OtherThing() }\n",
	})
	vars := map[string]string{"SEXTANT_DB": dsn, "SEXTANT_LOCAL_DB": filepath.Join(work, "local.db")}
	for _, d := range []string{repo, other} {
		if out, code := sextant(t, vars, "publish", d); code != 0 {
			t.Fatalf("publish %s: exit %d: %s", d, code, out)
		}
	}

	// The edit: Old becomes Renamed (callers follow), Added and c.go are new.
	edits := map[string]string{
		"a.go": "package ov\n\n// Renamed was Old.\nfunc Renamed() string { return \"new\" }\n\n// Added is new.\nfunc Added() int { return 1 }\n",
		"b.go": "package ov\n\nfunc UseOld() string { return Renamed() }\n",
		"c.go": "package ov\n\nfunc UseAgain() string { return Renamed() + Renamed() }\n",
	}
	for name, body := range edits {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	type symRow struct {
		Repository, Path, QualifiedName, Layer string
	}
	find := func(name string) []symRow {
		t.Helper()
		out, code := sextant(t, vars, "find_symbol", "--root", repo, "--json", "--name", name, "--mode", "exact")
		if code != 0 {
			t.Fatalf("find_symbol %s: exit %d: %s", name, code, out)
		}
		var ans struct {
			Results []struct {
				Repository    string `json:"repository"`
				Path          string `json:"path"`
				QualifiedName string `json:"qualified_name"`
				Layer         string `json:"layer"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatalf("find_symbol %s: %v\n%s", name, err, out)
		}
		var rows []symRow
		for _, r := range ans.Results {
			rows = append(rows, symRow{r.Repository, r.Path, r.QualifiedName, r.Layer})
		}
		return rows
	}
	findTests := []struct {
		name string
		want []symRow
	}{
		{"Renamed", []symRow{{"example.com/ov", "a.go", "Renamed", "local"}}},
		{"Added", []symRow{{"example.com/ov", "a.go", "Added", "local"}}},
		{"UseAgain", []symRow{{"example.com/ov", "c.go", "UseAgain", "local"}}},
		{"Old", nil}, // renamed away: the shared row of a.go is not shown
		{"Keep", []symRow{{"example.com/ov", "keep.go", "Keep", "shared"}}},
		{"OtherThing", []symRow{{"example.com/other", "o.go", "OtherThing", "shared"}}},
	}
	for _, tt := range findTests {
		got := find(tt.name)
		if len(got) != len(tt.want) || len(got) > 0 && !equalRows(got, tt.want) {
			t.Errorf("find_symbol %s = %+v, want %+v", tt.name, got, tt.want)
		}
	}

	// get_symbol sees the edit too.
	out, code := sextant(t, vars, "get_symbol", "--root", repo, "--json", "--qualified_name", "Renamed")
	if code != 0 || !strings.Contains(out, `"layer": "local"`) || !strings.Contains(out, "Renamed was Old.") {
		t.Errorf("get_symbol Renamed: exit %d\n%s", code, out)
	}
	if out, code := sextant(t, vars, "get_symbol", "--root", repo, "--qualified_name", "Old"); code != ExitNotFound {
		t.Errorf("get_symbol Old: exit %d, want %d (not found)\n%s", code, ExitNotFound, out)
	}
	if out, code := sextant(t, vars, "get_symbol", "--root", repo, "--json", "--qualified_name", "Keep"); code != 0 || !strings.Contains(out, `"layer": "shared"`) {
		t.Errorf("get_symbol Keep: exit %d\n%s", code, out)
	}

	// find_references counts the uses the edit made: b.go (changed) and
	// c.go (new), none from the shared snapshot's b.go.
	out, code = sextant(t, vars, "find_references", "--root", repo, "--json", "--qualified_name", "Renamed")
	if code != 0 {
		t.Fatalf("find_references Renamed: exit %d\n%s", code, out)
	}
	var refs struct {
		Total   int `json:"total"`
		Results []struct {
			Path       string `json:"path"`
			References []struct {
				Line  int    `json:"line"`
				Layer string `json:"layer"`
				Text  string `json:"text"`
			} `json:"references"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &refs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range refs.Results {
		for _, r := range f.References {
			if !strings.Contains(r.Text, "Renamed()") {
				t.Errorf("%s:%d: text %q does not show the use", f.Path, r.Line, r.Text)
			}
			got = append(got, fmt.Sprintf("%s:%d:%s", f.Path, r.Line, r.Layer))
		}
	}
	want := []string{"b.go:3:local", "c.go:3:local", "c.go:3:local"}
	if refs.Total != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("find_references Renamed: total %d\n%s\nwant\n%s", refs.Total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// By stable key, a shared symbol's uses come from the shared graph
	// (which reads them in the round trip of the symbol).
	out, code = sextant(t, vars, "get_symbol", "--root", repo, "--json", "--qualified_name", "OtherThing")
	var otherSym struct {
		Results struct {
			StableKey string `json:"stable_key"`
		} `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &otherSym) != nil || otherSym.Results.StableKey == "" {
		t.Fatalf("get_symbol OtherThing: exit %d\n%s", code, out)
	}
	out, code = sextant(t, vars, "find_references", "--root", repo, "--json", "--stable_key", otherSym.Results.StableKey)
	if code != 0 {
		t.Fatalf("find_references OtherThing: exit %d\n%s", code, out)
	}
	var otherRefs struct {
		Total   int `json:"total"`
		Results []struct {
			Path       string `json:"path"`
			References []struct {
				Line      int    `json:"line"`
				Column    int    `json:"column"`
				Enclosing string `json:"enclosing"`
				Layer     string `json:"layer"`
			} `json:"references"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &otherRefs); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range otherRefs.Results {
		for _, r := range f.References {
			got = append(got, fmt.Sprintf("%s:%d:%d:%s:%s", f.Path, r.Line, r.Column, r.Enclosing, r.Layer))
		}
	}
	want = []string{"o.go:6:21:CallsOther:shared", "o.go:6:35:CallsOther:shared"}
	if otherRefs.Total != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("find_references OtherThing: total %d\n%s\nwant\n%s", otherRefs.Total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Serving the working copy published nothing: the shared graph still
	// has commit A.
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old, err := r.LookupSymbols(context.Background(), graph.Lookup{QualifiedName: "Old"})
	if err != nil || len(old) != 1 {
		t.Errorf("shared graph: Old = %v, %v; want the published one", old, err)
	}
	if renamed, _ := r.LookupSymbols(context.Background(), graph.Lookup{QualifiedName: "Renamed"}); len(renamed) != 0 {
		t.Errorf("shared graph holds the unpublished Renamed: %+v", renamed)
	}
}

func equalRows[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
