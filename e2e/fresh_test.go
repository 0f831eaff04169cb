package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFreshnessNoRefresh edits a copy of cobra under a server started
// with --refresh=false: answers from the index say they are stale and
// why, the outline (read from disk) stays current, and after `sextant
// index` the answers are fresh again and describe the edit.
func TestFreshnessNoRefresh(t *testing.T) {
	dir := freshCopy(t)
	db := filepath.Join(t.TempDir(), "fresh.db")
	stdout, _ := runCLI(t, 0, "index", "--db", db, dir)
	if !strings.Contains(stdout, cobraModule) || !strings.Contains(stdout, "symbols") {
		t.Errorf("sextant index printed no summary: %q", stdout)
	}
	cs := connect(t, "", nil, db, "--refresh=false", dir)
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

// TestReadYourWrites edits, adds, renames and deletes files of a copy of
// cobra under a running server, and breaks and mends its go.mod: the very
// next call of each tool describes the disk as it is, from a new
// snapshot, or (go.mod broken) keeps serving the last good snapshot,
// marked stale with the error.
func TestReadYourWrites(t *testing.T) {
	dir := freshCopy(t)
	db := filepath.Join(t.TempDir(), "ryw.db")
	runCLI(t, 0, "index", "--db", db, dir)
	cs := connect(t, "", nil, db, dir)
	exact := func(name string) map[string]any { return map[string]any{"name": name, "mode": "exact"} }

	before, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2EAdded"))
	if !before.Fresh || before.Total != 0 {
		t.Fatalf("before the edit: %+v", before.envelope)
	}

	// An edit: a new function, and a use of it in another file.
	appendFile(t, filepath.Join(dir, "command.go"), "\n// E2EAdded was added by the e2e test.\nfunc E2EAdded() {}\n")
	appendFile(t, filepath.Join(dir, "args.go"), "\nfunc e2eUser() { E2EAdded() }\n")
	got, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2EAdded"))
	if !got.Fresh || got.Total != 1 || got.SnapshotID <= before.SnapshotID {
		t.Fatalf("find_symbol after the edit: fresh=%v total=%d snapshot %d (was %d) reasons=%v", got.Fresh, got.Total, got.SnapshotID, before.SnapshotID, got.StaleReasons)
	}
	refs, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "E2EAdded"})
	if !refs.Fresh || refs.Total != 1 || len(refs.Results) != 1 || refs.Results[0].Path != "args.go" {
		t.Errorf("find_references after the edit: fresh=%v total=%d results=%+v", refs.Fresh, refs.Total, refs.Results)
	}
	callers, _ := callOK[callGraphOut](t, cs, "get_callers", map[string]any{"qualified_name": "E2EAdded"})
	if !callers.Fresh || callers.Total != 1 {
		t.Errorf("get_callers after the edit: fresh=%v total=%d", callers.Fresh, callers.Total)
	}

	// A rename: the old name is gone, the new one is there.
	cmdGo := filepath.Join(dir, "command.go")
	data, err := os.ReadFile(cmdGo)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cmdGo, strings.ReplaceAll(string(data), "func E2EAdded()", "func E2ERenamed()"))
	writeFile(t, filepath.Join(dir, "args.go"), strings.ReplaceAll(readString(t, filepath.Join(dir, "args.go")), "E2EAdded()", "E2ERenamed()"))
	old, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2EAdded"))
	renamed, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": "E2ERenamed"})
	if old.Total != 0 || !old.Fresh || !renamed.Fresh || renamed.Results == nil || renamed.Results.Path != "command.go" {
		t.Errorf("after the rename: old name found %d times (fresh=%v); new name fresh=%v: %+v", old.Total, old.Fresh, renamed.Fresh, renamed.Results)
	}

	// An edit inside bodies (lines inserted above e2eUser, a second call
	// in it) declares nothing new: the snapshot is amended, not indexed
	// whole, and still answers the truth at once. Calls through
	// interfaces wait for the whole index that follows in the
	// background, which get_callers says until it has published.
	// The edits above were amended too, and the whole index that follows
	// them may be running: wait for it, or it might read this edit first.
	waitWhole(t, cs)
	userBefore, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": "e2eUser"})
	argsGo := filepath.Join(dir, "args.go")
	body := strings.Replace(readString(t, argsGo), "func e2eUser() { E2ERenamed() }", "// Three\n// more\n// lines.\nfunc e2eUser() { E2ERenamed(); E2ERenamed(); fmt.Println() }", 1)
	writeFile(t, argsGo, body)
	// First get_callers, which refreshes, so that its blind spot is read
	// before the whole index that follows the amend can replace it.
	amended, _ := callOK[callGraphOut](t, cs, "get_callers", map[string]any{"qualified_name": "E2ERenamed"})
	// On Windows (under Wine, where a process takes seconds to start) a
	// whole pass that an earlier amend scheduled can still be reading the
	// files when the edit is written, and publish it first: the answer is
	// then that whole snapshot's, as true, and no amend is seen. The
	// native run holds the amend to the letter.
	wholeFirst := runtime.GOOS == "windows" && amended.Fresh && amended.Total == 1 && !containsSubstring(amended.BlindSpots, "amended")
	if wholeFirst {
		t.Logf("a whole index read the body edit before its amend: snapshot %d", amended.SnapshotID)
	} else if !amended.Fresh || amended.Total != 1 || !containsSubstring(amended.BlindSpots, "amended") {
		t.Errorf("get_callers after a body edit: fresh=%v total=%d blind spots %v", amended.Fresh, amended.Total, amended.BlindSpots)
	}
	user, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": "e2eUser"})
	if !user.Fresh || user.Results == nil || userBefore.Results == nil || user.Results.StartLine != userBefore.Results.StartLine+3 ||
		user.SnapshotID <= userBefore.SnapshotID {
		t.Fatalf("get_symbol e2eUser after a body edit: %+v (before: %+v)", user, userBefore)
	}
	twice, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "E2ERenamed"})
	if !twice.Fresh || twice.Total != 2 {
		t.Errorf("find_references after a body edit: fresh=%v total=%d", twice.Fresh, twice.Total)
	}
	fx, _ := callOK[explainEffectsOut](t, cs, "explain_effects", map[string]any{"qualified_name": "e2eUser"})
	if !fx.Fresh || !fx.Analysed || len(fx.Results) == 0 || fx.Results[0].Effect != "stdio" {
		t.Errorf("explain_effects after a body edit: fresh=%v analysed=%v results=%+v", fx.Fresh, fx.Analysed, fx.Results)
	}
	// The whole index publishes a snapshot with no edit asking for it.
	waitWhole(t, cs)
	again, _ := callOK[callGraphOut](t, cs, "get_callers", map[string]any{"qualified_name": "E2ERenamed"})
	if (again.SnapshotID <= amended.SnapshotID && !wholeFirst) || !again.Fresh || again.Total != 1 || containsSubstring(again.BlindSpots, "amended") {
		t.Errorf("get_callers after the whole index: snapshot %d (amended: %d) fresh=%v total=%d blind spots %v",
			again.SnapshotID, amended.SnapshotID, again.Fresh, again.Total, again.BlindSpots)
	}

	// A new file, then its removal.
	newGo := filepath.Join(dir, "doc", "e2e_new.go")
	writeFile(t, newGo, "package doc\n\n// E2ENew is new.\nfunc E2ENew() {}\n")
	added, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2ENew"))
	if !added.Fresh || added.Total != 1 {
		t.Errorf("after adding doc/e2e_new.go: fresh=%v total=%d", added.Fresh, added.Total)
	}
	if err := os.Remove(newGo); err != nil {
		t.Fatal(err)
	}
	gone, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2ENew"))
	if !gone.Fresh || gone.Total != 0 {
		t.Errorf("after deleting doc/e2e_new.go: fresh=%v total=%d", gone.Fresh, gone.Total)
	}

	// A broken go.mod: the last good snapshot keeps serving, marked stale
	// with the error; mended, the answers are fresh again.
	goMod := filepath.Join(dir, "go.mod")
	good := readString(t, goMod)
	writeFile(t, goMod, good+"\nthis is not a go.mod directive\n")
	broken, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2ERenamed"))
	if broken.Fresh || broken.Total != 1 || !containsSubstring(broken.StaleReasons, "refreshing failed") || !containsSubstring(broken.StaleReasons, "go.mod") {
		t.Errorf("with go.mod broken: fresh=%v total=%d reasons=%v", broken.Fresh, broken.Total, broken.StaleReasons)
	}
	writeFile(t, goMod, good)
	mended, _ := callOK[findSymbolOut](t, cs, "find_symbol", exact("E2ERenamed"))
	if !mended.Fresh || mended.Total != 1 || mended.SnapshotID <= broken.SnapshotID {
		t.Errorf("with go.mod mended: fresh=%v total=%d snapshot %d (was %d) reasons=%v", mended.Fresh, mended.Total, mended.SnapshotID, broken.SnapshotID, mended.StaleReasons)
	}
}

// waitWhole waits, up to a minute, until the repository's snapshot is no
// longer an amended one: the whole index that follows amends has run.
func waitWhole(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		repos, _ := callOK[listRepositoriesOut](t, cs, "list_repositories", map[string]any{})
		if len(repos.Results) == 1 && len(repos.Results[0].Amended) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no whole index followed the amend within a minute: %+v", repos.Results)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
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

// TestIndexWatch runs `sextant index --watch` on a copy of cobra, edits a
// file, and waits for the watch to publish a new snapshot that has the
// edit, with no call asking for it.
func TestIndexWatch(t *testing.T) {
	dir := freshCopy(t)
	db := filepath.Join(t.TempDir(), "watch.db")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "index", "--watch", "--db", db, dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stoppable(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Not checked here: the clean stop is TestStreamableHTTP's. Wine
		// sends no console control event, and Wait would otherwise last
		// until ctx ends.
		if stop(cmd) != nil {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(what string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("sextant index --watch ended before %s\nstderr:\n%s", what, stderr.String())
				}
				if strings.Contains(l, what) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no %q from sextant index --watch\nstderr:\n%s", what, stderr.String())
			}
		}
	}
	// The first index publishes its syntax stage first, as a snapshot of
	// its own: the complete one's id is the one the summary names.
	var first int
	if _, err := fmt.Sscanf(strings.SplitN(waitFor(": snapshot "), ": snapshot ", 2)[1], "%d:", &first); err != nil {
		t.Fatalf("no snapshot id in the summary: %v", err)
	}
	appendFile(t, filepath.Join(dir, "command.go"), "\nfunc E2EWatched() {}\n")
	waitFor(fmt.Sprintf("snapshot %d (files changed)", first+1))
	stdout, _ := runCLI(t, 0, "find_symbol", "--db", db, "--name", "E2EWatched", "--mode", "exact", "--root", dir)
	if !strings.Contains(stdout, "command.go") {
		t.Errorf("find_symbol after the watch refreshed:\n%s", stdout)
	}
}
