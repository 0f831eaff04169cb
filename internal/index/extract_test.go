package index

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// hermetic makes the go command see the fixtures the same way on every
// machine: Linux (the fixtures have a linux-only file) and no network.
func hermetic(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod") // must be replaced by -mod=readonly
}

// loadFixture discovers and loads every unit of the module tree in dir.
func loadFixture(t *testing.T, dir string) (load.Plan, []*packages.Package) {
	t.Helper()
	plan, err := load.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []*packages.Package
	for _, u := range plan.Units {
		ps, err := load.Load(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, ps...)
	}
	return plan, pkgs
}

func TestExtractGolden(t *testing.T) {
	hermetic(t)
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) == 0 {
		t.Fatal("no fixtures in testdata")
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			plan, pkgs := loadFixture(t, dir)
			repo := "example.com/" + name
			var recs []PackageRecords
			err := Extract(repo, dir, plan.Modules, pkgs, Sink{Package: func(r PackageRecords) error {
				recs = append(recs, r)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, repo, recs)
			got := render(repo, recs)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/index -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("records differ from %s (run go test ./internal/index -update and review the diff):\n%s",
					golden, txtartest.LineDiff(string(want), got))
			}
		})
	}
}

// checkInvariants asserts what must hold for any repository, whatever
// the golden file says.
func checkInvariants(t *testing.T, repo string, recs []PackageRecords) {
	t.Helper()
	keys := map[string]string{}
	files := map[string]bool{}
	for _, r := range recs {
		for _, f := range r.Files {
			if files[f.Path] {
				t.Errorf("file %s recorded twice", f.Path)
			}
			files[f.Path] = true
			if f.ModTimeNS <= 0 || len(f.Hash) != 64 {
				t.Errorf("file %s: mtime %d hash %q", f.Path, f.ModTimeNS, f.Hash)
			}
		}
		for _, s := range r.Symbols {
			if !graph.ValidKey(s.Key) {
				t.Errorf("%s: invalid key %q", s.QualifiedName, s.Key)
			}
			if prev, dup := keys[s.Key]; dup {
				t.Errorf("key of %s %s repeats %s", s.Kind, s.QualifiedName, prev)
			}
			keys[s.Key] = string(s.Kind) + " " + s.QualifiedName
			if s.Repository != repo || s.PackagePath != r.Package.Path || s.ModulePath != r.Package.ModulePath {
				t.Errorf("%s: repository/package/module %q %q %q", s.QualifiedName, s.Repository, s.PackagePath, s.ModulePath)
			}
			if s.StartLine < 1 || s.StartCol < 1 || s.EndLine < s.StartLine || s.EndLine == s.StartLine && s.EndCol <= s.StartCol {
				t.Errorf("%s: bad range %d:%d-%d:%d", s.QualifiedName, s.StartLine, s.StartCol, s.EndLine, s.EndCol)
			}
			if !files[s.Path] {
				t.Errorf("%s: file %s is not among the package's files", s.QualifiedName, s.Path)
			}
		}
	}
	for _, r := range recs {
		for _, s := range r.Symbols {
			if s.Parent != "" && keys[s.Parent] == "" {
				t.Errorf("%s: parent %s is no symbol", s.QualifiedName, s.Parent)
			}
		}
	}
}

// render prints records as stable, reviewable text: hashes shortened,
// modification times left out, keys replaced by what they are keys of.
func render(repo string, recs []PackageRecords) string {
	names := map[string]string{}
	for _, r := range recs {
		for _, s := range r.Symbols {
			names[s.Key] = string(s.Kind) + ":" + s.QualifiedName
		}
	}
	var b strings.Builder
	for _, r := range recs {
		p := r.Package
		fmt.Fprintf(&b, "== package %s\n", p.Path)
		fmt.Fprintf(&b, "name=%s module=%s dir=%s hash=%s errors=%d", p.Name, p.ModulePath, p.Dir, short(p.Hash), p.Errors)
		if p.TestOnly {
			b.WriteString(" test-only")
		}
		b.WriteString("\n-- files\n")
		for _, f := range r.Files {
			fmt.Fprintf(&b, "%s package=%s size=%d sha=%s", f.Path, f.Package, f.Size, short(f.Hash))
			if f.Test {
				b.WriteString(" test")
			}
			if f.Ignored {
				b.WriteString(" ignored")
			}
			b.WriteByte('\n')
		}
		b.WriteString("-- symbols\n")
		for _, s := range r.Symbols {
			fmt.Fprintf(&b, "%s %s %s:%d:%d-%d:%d", s.Kind, s.QualifiedName, s.Path, s.StartLine, s.StartCol, s.EndLine, s.EndCol)
			if s.Name != lastSegment(s.QualifiedName) {
				fmt.Fprintf(&b, " name=%s", s.Name)
			}
			if s.Exported {
				b.WriteString(" exported")
			}
			if s.TestOnly {
				b.WriteString(" test")
			}
			if s.Receiver != "" {
				fmt.Fprintf(&b, " recv=%s", s.Receiver)
			}
			if s.Parent != "" {
				fmt.Fprintf(&b, " parent=%s", names[s.Parent])
			}
			if v := keyVariant(repo, s); v != "" {
				fmt.Fprintf(&b, " key-variant=%s", v)
			}
			fmt.Fprintf(&b, " | %s", s.Signature)
			if s.Doc != "" {
				doc, _, _ := strings.Cut(s.Doc, "\n")
				fmt.Fprintf(&b, " | %s", doc)
			}
			b.WriteByte('\n')
		}
		if len(r.Diagnostics) > 0 {
			b.WriteString("-- diagnostics\n")
			for _, d := range r.Diagnostics {
				fmt.Fprintf(&b, "%s %s:%d:%d %s\n", d.Kind, d.Path, d.Line, d.Col, d.Message)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func short(hash string) string { return hash[:min(len(hash), 12)] }

// lastSegment returns the name part of a qualified name without any
// "#n" numbering ("init#2" → "init", "T.M" → "M").
func lastSegment(qn string) string {
	qn, _, _ = strings.Cut(qn, "#")
	if i := strings.LastIndexByte(qn, '.'); i >= 0 && !strings.Contains(qn, "/") {
		return qn[i+1:]
	}
	return qn
}

// keyVariant recomputes the symbol's key from its identity and returns
// the variant that produces it: "" for "" or "test" as the file implies,
// "#2", "test#3", ... for numbered duplicates, "?" when none does.
func keyVariant(repo string, s graph.Symbol) string {
	base := ""
	if s.TestOnly {
		base = "test"
	}
	id := graph.Identity{Language: "go", Repository: repo, PackagePath: s.PackagePath,
		QualifiedName: s.QualifiedName, Kind: s.Kind, Variant: base}
	if graph.StableKey(id) == s.Key {
		return ""
	}
	for n := 2; n < 10; n++ {
		id.Variant = fmt.Sprintf("%s#%d", base, n)
		if graph.StableKey(id) == s.Key {
			return id.Variant
		}
	}
	return "?"
}
