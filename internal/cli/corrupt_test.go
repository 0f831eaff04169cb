package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// corruptPages overwrites the middle half of an SQLite file, page-aligned,
// as a failing disk or a stray write would, leaving its header and schema
// whole.
func corruptPages(t *testing.T, path string) {
	t.Helper()
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Fatalf("%s%s is still there: the database was not closed", path, side)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The schema lives in the first pages of a new file: past them, the
	// middle half holds rows.
	const page, schemaPages = 4096, 64
	pages := len(data) / page
	if pages < 4*schemaPages {
		t.Fatalf("%s has %d pages, too few to corrupt the middle of", path, pages)
	}
	for i := pages / 4 * page; i < pages*3/4*page; i++ {
		data[i] = byte(0xA5 ^ i)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cliRun runs the command line in-process and returns stdout, stderr and
// the exit code.
func cliRun(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, args)
	return out.String(), errOut.String(), code
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// TestCorruptDatabase: with pages in the middle of the database file
// overwritten, a tool answers DATABASE_CORRUPT naming the file and
// SQLite's cause, not INTERNAL; a server does not write into the file;
// and `sextant index` moves it aside as FILE.corrupt-TIME, indexes into a
// new file that passes integrity_check, and says so.
func TestCorruptDatabase(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mod, other := filepath.Join(work, "mod"), filepath.Join(work, "other")
	var src strings.Builder
	src.WriteString("package mod\n")
	for i := range 4000 { // enough rows for a file of many pages
		src.WriteString("\n// Parse" + strings.Repeat("x", i%7) + " parses the input number " + string(rune('a'+i%26)) + ".\n")
		src.WriteString("func Parse" + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + itoa(i) + "(s string) int { return len(s) }\n")
	}
	for dir, files := range map[string]map[string]string{
		mod:   {"go.mod": "module example.com/mod\n\ngo 1.22\n", "a.go": src.String()},
		other: {"go.mod": "module example.com/other\n\ngo 1.22\n", "o.go": "package other\n\nfunc Other() {}\n"},
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	db := filepath.Join(work, "sextant.db")
	if out, errOut, code := cliRun("index", "--db", db, mod); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	corruptPages(t, db)

	// A tool names the damage and the file.
	out, _, code := cliRun("search_code", "--db", db, "--root", mod, "--json", "--question", "parse the input number")
	var answer struct{ Error query.ErrorInfo }
	if err := json.Unmarshal([]byte(out), &answer); err != nil || code == 0 ||
		answer.Error.Code != "DATABASE_CORRUPT" || !strings.Contains(answer.Error.Message, db) || !strings.Contains(answer.Error.Message, "malformed") {
		t.Errorf("search_code on the damaged database: exit %d, want DATABASE_CORRUPT naming %s and SQLite's cause:\n%s", code, db, out)
	}

	// A server that would index a root into it refuses to write.
	before := fileHash(t, db)
	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("opening the damaged database: %v", err)
	}
	svc, err := newServingService(st, []string{other})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := query.LookupTool("find_symbol")
	_, callErr := tool.Call(context.Background(), svc, json.RawMessage(`{"name":"Other"}`), nil)
	svc.Close()
	st.Close()
	if info := query.ErrorOf(callErr); callErr == nil || info.Code != "DATABASE_CORRUPT" {
		t.Errorf("indexing a new root into the damaged database: %v, want DATABASE_CORRUPT", callErr)
	}
	if fileHash(t, db) != before {
		t.Errorf("the server wrote into the damaged database")
	}

	// sextant index rebuilds it, keeping the damaged file aside.
	out, errOut, code := cliRun("index", "--db", db, mod)
	aside, _ := filepath.Glob(db + ".corrupt-*")
	if code != 0 || len(aside) == 0 || !strings.Contains(errOut, "DATABASE_CORRUPT") || !strings.Contains(errOut, aside[0]) {
		t.Fatalf("index into the damaged database: exit %d, moved aside %v; want exit 0 and the move named:\n%s%s", code, aside, out, errOut)
	}
	st, err = sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	report, err := st.IntegrityCheck(context.Background())
	st.Close()
	if err != nil || report != "ok" {
		t.Errorf("integrity_check of the rebuilt database: %q, %v", report, err)
	}
	if out, errOut, code := cliRun("find_symbol", "--db", db, "--root", mod, "ParseA0"); code != 0 || !strings.Contains(out, "func ParseA0") {
		t.Errorf("find_symbol after the rebuild: exit %d\n%s%s", code, out, errOut)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
