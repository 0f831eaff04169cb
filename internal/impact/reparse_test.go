package impact

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestEditVersion: reading an edited file by parsing again only the
// declarations the edit touches gives what parsing the whole edited file
// gives, for edits of bodies, signatures, comments between declarations,
// added and removed declarations, imports and the package clause, and
// random bytes that may break the syntax anywhere; and most edits inside
// declarations are read that way.
func TestEditVersion(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) < 5 {
		t.Fatalf("Go files to edit: %v %v", files, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"{", "}", "(", ")", "[", "]", ";", "\n", "\"", "`", "/*", "*/", "//", "x", "1", ".", " ", "\t",
		"func f() {}\n", "\nfunc g(a int) int { return a }\n", "var v = 1\n", "import \"fmt\"\n", "type T struct{ A int }\n",
		"package q\n", "if x { y() }\n", "return\n", "'", "0x", "i", "=", ":="}
	edits, partial := 0, 0
	check := func(name string, base fileVersion, old, edited []byte) {
		t.Helper()
		edits++
		if _, ok := reparse(name, base, old, edited); ok {
			partial++
		}
		got, want := editVersion(name, base, old, edited), parseVersion(name, edited)
		if !sameVersion(got, want) {
			t.Fatalf("%s edited:\n%s\nread as an edit: %+v\nparsed whole:   %+v", name, edited, got, want)
		}
	}
	for _, name := range files {
		old, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		base := parseVersion(name, old)
		if base.tops == nil {
			t.Fatalf("%s did not parse cleanly", name)
		}
		for k := 0; k < 100; k++ {
			// Replace up to 40 bytes somewhere with up to three pieces,
			// half of the time inside one top-level declaration.
			at := rng.IntN(len(old))
			if k%2 == 0 {
				d := base.tops[rng.IntN(len(base.tops))]
				at = d.start + rng.IntN(d.end-d.start)
			}
			end := min(len(old), at+rng.IntN(40))
			var ins []byte
			for range rng.IntN(4) {
				ins = append(ins, pieces[rng.IntN(len(pieces))]...)
			}
			edited := append(append(append([]byte{}, old[:at]...), ins...), old[end:]...)
			check(name, base, old, edited)
			// Two edits apart, in a version that is itself an edit.
			if k%5 == 0 {
				next := editVersion(name, base, old, edited)
				at2 := rng.IntN(len(edited))
				again := append(append(append([]byte{}, edited[:at2]...), "\n\nfunc added() int { return 2 }\n"...), edited[at2:]...)
				check(name, next, edited, again)
			}
		}
		// The last declaration removed.
		d := base.tops[len(base.tops)-1]
		check(name, base, old, bytes.Replace(old, old[d.start:d.end], nil, 1))
		// A statement added to the body of each function: all are read
		// by parsing that function alone.
		for _, d := range base.tops {
			brace := bytes.Index(old[d.start:d.end], []byte("{\n"))
			if !bytes.HasPrefix(old[d.start:], []byte("func")) || brace < 0 {
				continue
			}
			at := d.start + brace + 1
			edited := append(append(append([]byte{}, old[:at]...), "\n\tprintln(\"changed\")"...), old[at:]...)
			before := partial
			check(name, base, old, edited)
			if partial == before {
				t.Errorf("%s: a statement added at byte %d was read by parsing the whole file", name, at)
			}
		}
	}
	t.Logf("%d of %d edits read by parsing what they touch", partial, edits)
}

// sameVersion reports whether two versions have the same package clause,
// declarations and top-level declarations, and both or neither parsed
// cleanly.
func sameVersion(a, b fileVersion) bool {
	return a.pkgName == b.pkgName && (a.tops == nil) == (b.tops == nil) &&
		len(a.decls) == len(b.decls) && (len(a.decls) == 0 || reflect.DeepEqual(a.decls, b.decls)) &&
		len(a.tops) == len(b.tops) && (len(a.tops) == 0 || reflect.DeepEqual(a.tops, b.tops))
}

// TestVersionCache: the parsed old sides kept are those used last, up to
// versionMax of content, and a kept one is what parsing gives.
func TestVersionCache(t *testing.T) {
	src := func(name string) []byte {
		return []byte("package p\n\nfunc " + name + "() int {\n\treturn 1 // " + strings.Repeat(name, 20) + "\n}\n")
	}
	a, b, c := src("A"), src("B"), src("C")
	g := &cache{versionMax: len(a) + len(b) + len(c)/2}
	kept := func() string {
		var names []string
		for k := range g.versions {
			names = append(names, k.name)
		}
		slices.Sort(names)
		return strings.Join(names, " ")
	}
	g.parseVersion("a.go", a)
	g.parseVersion("b.go", b)
	if got := g.parseVersion("a.go", a); !sameVersion(got, parseVersion("a.go", a)) {
		t.Errorf("kept a.go: %+v", got)
	}
	g.parseVersion("c.go", c)
	if got := kept(); got != "a.go c.go" {
		t.Errorf("kept %q, want a.go and c.go (b.go used least recently)", got)
	}
	if g.versionBytes != len(a)+len(c) {
		t.Errorf("kept %d bytes, want %d", g.versionBytes, len(a)+len(c))
	}
	g.parseVersion("a.go", src("AA"))
	if got := kept(); got != "a.go c.go" || g.versionBytes > g.versionMax {
		t.Errorf("after another version of a.go: kept %q, %d bytes", got, g.versionBytes)
	}
}
