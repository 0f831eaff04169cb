package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFreshness edits a copy of cobra under a running server: answers
// from the index say they are stale and why, the outline (read from disk)
// stays current, and after `sextant index` the answers are fresh again and
// describe the edit.
func TestFreshness(t *testing.T) {
	dir := freshCopy(t)
	db := filepath.Join(t.TempDir(), "fresh.db")
	stdout, _ := runCLI(t, 0, "index", "--db", db, dir)
	if !strings.Contains(stdout, cobraModule) || !strings.Contains(stdout, "symbols") {
		t.Errorf("sextant index printed no summary: %q", stdout)
	}
	cs := connect(t, "", nil, db, dir)
	const added = "E2EAddedLater"
	lookup := map[string]any{"name": added, "mode": "exact"}

	before, _ := callOK[findSymbolOut](t, cs, "find_symbol", lookup)
	if !before.Fresh || len(before.StaleReasons) != 0 || before.Total != 0 || before.SnapshotID == 0 {
		t.Fatalf("before the edit: %+v", before.envelope)
	}

	// Edit command.go: a new function at the end, and a modification time
	// clearly after the snapshot whatever the file system's resolution.
	cmdGo := filepath.Join(dir, "command.go")
	appendFile(t, cmdGo, "\n// "+added+" was added by the e2e test.\nfunc "+added+"() {}\n")

	stale, a := callOK[findSymbolOut](t, cs, "find_symbol", lookup)
	if stale.Fresh || !containsSubstring(stale.StaleReasons, "command.go") {
		t.Errorf("after editing command.go: fresh=%v reasons=%v", stale.Fresh, stale.StaleReasons)
	}
	if !strings.Contains(a.text, "STALE") || !strings.Contains(a.text, "command.go") {
		t.Errorf("the text does not warn that the answer is stale:\n%s", a.text)
	}
	repos, _ := callOK[listRepositoriesOut](t, cs, "list_repositories", map[string]any{})
	if repos.Fresh || len(repos.Results) != 1 || repos.Results[0].Fresh {
		t.Errorf("list_repositories after the edit: %+v", repos)
	}
	sym, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": "Command"})
	if sym.Fresh || !containsSubstring(sym.StaleReasons, "command.go") {
		t.Errorf("get_symbol after the edit: fresh=%v reasons=%v", sym.Fresh, sym.StaleReasons)
	}
	// The outline reads the disk, so it already shows the edit.
	outline, _ := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": "command.go"})
	if !outline.Fresh || outline.Results[0].entry(added) == nil {
		t.Errorf("outline after the edit: fresh=%v, %s listed: %v", outline.Fresh, added, outline.Results[0].entry(added) != nil)
	}

	runCLI(t, 0, "index", "--db", db, dir)
	after, _ := callOK[findSymbolOut](t, cs, "find_symbol", lookup)
	if !after.Fresh || after.SnapshotID <= before.SnapshotID || after.Total != 1 {
		t.Errorf("after re-indexing: fresh=%v snapshot %d (was %d), %s found %d times", after.Fresh, after.SnapshotID, before.SnapshotID, added, after.Total)
	}
	if after.Total == 1 && (after.Results[0].Path != "command.go" || after.Results[0].Kind != "func") {
		t.Errorf("after re-indexing: %+v", after.Results[0])
	}

	// A new file, then its removal, make answers stale too.
	newGo := filepath.Join(dir, "doc", "e2e_new.go")
	writeFile(t, newGo, "package doc\n\n// E2ENew is new.\nfunc E2ENew() {}\n")
	added2, _ := callOK[findSymbolOut](t, cs, "find_symbol", lookup)
	if added2.Fresh || !containsSubstring(added2.StaleReasons, "doc") {
		t.Errorf("after adding doc/e2e_new.go: fresh=%v reasons=%v", added2.Fresh, added2.StaleReasons)
	}
	runCLI(t, 0, "index", "--db", db, dir)
	found, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "E2ENew", "mode": "exact"})
	if !found.Fresh || found.Total != 1 {
		t.Errorf("after indexing the new file: fresh=%v total=%d", found.Fresh, found.Total)
	}
	if err := os.Remove(newGo); err != nil {
		t.Fatal(err)
	}
	gone, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "E2ENew", "mode": "exact"})
	if gone.Fresh || !containsSubstring(gone.StaleReasons, "e2e_new.go") {
		t.Errorf("after deleting doc/e2e_new.go: fresh=%v reasons=%v", gone.Fresh, gone.StaleReasons)
	}
}

// appendFile appends text to the file at p and moves its modification time
// two seconds ahead.
func appendFile(t *testing.T, p, text string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, string(data)+text)
}

// writeFile writes the file at p with a modification time two seconds
// ahead, so that no file system's timestamp resolution can hide the change.
// The directory's own time is left alone: it changes when a file is added
// or removed, which is how a new file is noticed.
func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
}

// containsSubstring reports whether any of list contains sub.
func containsSubstring(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
