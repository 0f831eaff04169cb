package textindex

import (
	"database/sql"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the FTS5 the terms are held to
)

func TestStem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"caresses", "caress"}, {"ponies", "poni"}, {"cats", "cat"}, {"caress", "caress"},
		{"agreed", "agre"}, {"plastered", "plaster"}, {"motoring", "motor"}, {"sing", "sing"},
		{"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"},
		{"falling", "fall"}, {"filing", "file"}, {"happy", "happi"}, {"relational", "relat"},
		{"conditional", "condit"}, {"retries", "retri"}, {"retry", "retri"}, {"configuration", "configur"},
		{"configures", "configur"}, {"generalization", "gener"}, {"hopefulness", "hope"},
		{"go", "go"}, {"is", "is"}, {"ed", "ed"}, {strings.Repeat("ing", 22), strings.Repeat("ing", 22)},
	} {
		if got := Stem(c.in); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWords(t *testing.T) {
	var got []string
	Words("parse config  ParseConfig_v2 café naïve—x ÉTÉ 3d", func(w string) { got = append(got, w) })
	want := []string{"parse", "config", "parseconfig", "v2", "cafe", "naive", "x", "ete", "3d"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// TestTermsAsFTS5 holds Words and Stem to SQLite's own tokenizer: every
// distinct word of the Go standard library's sources, as FTS5 "porter
// unicode61" indexes it, is the term they make.
func TestTermsAsFTS5(t *testing.T) {
	words := map[string]bool{}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	for _, dir := range []string{"net/http", "go/types", "encoding/json", "strings", "os", "unicode"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			b, err := os.ReadFile(p)
			Words(string(b), func(w string) { words[w] = true })
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []string{"ing", "eed", "aed", "yed", "eying", "ies", "sses", "ss", "y", "yy", "bled", "sized"} {
		words[w] = true
	}
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	slices.Sort(list)
	if len(list) < 10000 {
		t.Fatalf("only %d words read from %s", len(list), root)
	}
	got := fts5Terms(t, list)
	bad := 0
	for i, w := range list {
		if want := got[i]; Stem(w) != want {
			if bad++; bad <= 20 {
				t.Errorf("Stem(%q) = %q, FTS5 has %q", w, Stem(w), want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d words stemmed otherwise than FTS5", bad, len(list))
	}
}

// fts5Table returns an in-memory database with an FTS5 table w of one
// column x, tokenized by "porter unicode61", and v, the terms of each
// of its rows (fts5vocab, instance), closed at the end of the test.
func fts5Table(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	for _, q := range []string{
		`CREATE VIRTUAL TABLE w USING fts5(x, tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// fts5Terms returns the term FTS5's "porter unicode61" makes of each of
// words, each a row of its own.
func fts5Terms(t *testing.T, words []string) []string {
	t.Helper()
	db := fts5Table(t)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		if _, err := tx.Exec(`INSERT INTO w (rowid, x) VALUES (?, ?)`, i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([]string, len(words))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		if out[doc-1] != "" {
			t.Fatalf("FTS5 made two terms of %q: %q and %q", words[doc-1], out[doc-1], term)
		}
		out[doc-1] = term
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzTerms holds Words and Stem to FTS5 on any text in the Latin
// scripts: the terms they make of it are the terms SQLite's "porter
// unicode61" indexes, in order. Beyond them, which characters are
// letters and how they fold follows Go's Unicode tables, which are newer
// than SQLite's (Ԯ, of Unicode 7, is a capital letter to Go and no
// letter of a case to SQLite); the stores' search rows are words Go's
// tables split (graph.SearchWords) either way.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"retries parsing ParseConfig", "agreed exceed sized hopping", "café µs ſ ς", "a ed ing eed yy", "x\u0301y 3d v2"} {
		f.Add(s)
	}
	db := fts5Table(f)
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
			return // SQLite reads text as UTF-8 up to a NUL
		}
		if strings.ContainsFunc(text, func(r rune) bool { return r >= 0x370 }) {
			return // past the Latin scripts and their diacritics
		}
		var got []string
		Words(text, func(w string) { got = append(got, Stem(w)) })
		if _, err := db.Exec(`DELETE FROM w`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO w (rowid, x) VALUES (1, ?)`, text); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT term FROM v ORDER BY offset`)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				t.Fatal(err)
			}
			want = append(want, term)
		}
		rows.Close()
		if !slices.Equal(got, want) {
			t.Errorf("terms of %q: %q, FTS5 %q", text, got, want)
		}
	})
}
