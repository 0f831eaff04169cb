package query

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// positionOf finds the n-th (0-based) occurrence of needle on the first
// line of file that contains marker, as a 1-based line and character
// column.
func positionOf(t *testing.T, dir, file, marker, needle string, n int) (int, int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, marker) {
			continue
		}
		off := -1
		for k := 0; k <= n; k++ {
			j := strings.Index(line[off+1:], needle)
			if j < 0 {
				t.Fatalf("%q not found %d times on %s line %q", needle, n+1, file, line)
			}
			off += j + 1
		}
		return i + 1, utf8.RuneCountInString(line[:off]) + 1
	}
	t.Fatalf("no line of %s contains %q", file, marker)
	return 0, 0
}

// TestInferType asks for the type at positions of every category and
// checks the answer and the error codes of bad positions.
func TestInferType(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	cases := []struct {
		file, marker, needle string
		n                    int
		kind, typ, extra     string // extra: a substring of signature, underlying, value or type_args
	}{
		{"calc/calc.go", "func Sum(", "words", 0, "var", "[]string", ""},
		{"calc/calc.go", "for _, w := range words", "w", 0, "var", "string", ""},
		{"calc/calc.go", "a.Total += n", "Total", 0, "field", "int", ""},
		{"calc/calc.go", "a.Total += n", "n", 0, "var", "int", ""},
		{"calc/calc.go", "func (a *Acc) Add", "Add", 0, "method", "func(name string, n int) int", "func (a *Acc) Add(name string, n int) int"},
		{"calc/calc.go", "strings.HasPrefix", "HasPrefix", 0, "func", "func(s string, prefix string) bool", "func HasPrefix(s string, prefix string) bool"},
		{"calc/calc.go", "strings.HasPrefix", "strings", 0, "package", "", ""},
		{"calc/calc.go", "return Map(words", "Map", 0, "func", "func(xs []string, f func(string) int) []int", "string,int"},
		{"calc/calc.go", "func Map[", "Map", 0, "func", "func[T, U any](xs []T, f func(T) U) []U", "func Map[T, U any](xs []T, f func(T) U) []U"},
		{"calc/calc.go", "return &Acc{", "Acc", 0, "type", "Acc", "struct{Total int; Names []string}"},
		{"calc/calc.go", "return &Acc{", "{", 0, "expression", "Acc", ""},
		{"calc/calc.go", "return &Acc{", `"é→x"`, 0, "expression", "string", ""},
		{"calc/calc.go", "return &Acc{", "Names", 0, "field", "[]string", ""},
		{"calc/calc.go", "const Limit", "Limit", 0, "const", "untyped int", "10"},
		{"calc/calc.go", "func(s string) int { return scale", "scale", 0, "var", "int", ""},
		{"calc/calc.go", "make([]U", "make", 0, "builtin", "func([]U, int, int) []U", ""},
		// A package with type errors still answers from what checked; the
		// column counts the characters of "é→x" before it.
		{"broken/broken.go", "return s + 1", "s + 1", 0, "var", "string", ""},
	}
	for _, tc := range cases {
		line, col := positionOf(t, f.dir, tc.file, tc.marker, tc.needle, tc.n)
		name := fmt.Sprintf("%s:%d:%d(%s)", tc.file, line, col, tc.needle)
		ans, err := f.call(t, "infer_type", fmt.Sprintf(`{"file":%q,"line":%d,"column":%d}`, tc.file, line, col))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ti := ans.(*InferTypeOutput).Results
		if ti.Kind != tc.kind || ti.Type != tc.typ {
			t.Errorf("%s: kind %q type %q, want %q %q", name, ti.Kind, ti.Type, tc.kind, tc.typ)
		}
		if tc.extra != "" {
			all := ti.Signature + "|" + ti.Underlying + "|" + ti.Value + "|" + strings.Join(ti.TypeArgs, ",")
			if !strings.Contains(all, tc.extra) {
				t.Errorf("%s: %q lacks %q", name, all, tc.extra)
			}
		}
		if ti.Kind == "var" || ti.Kind == "field" || ti.Kind == "method" || ti.Kind == "type" {
			if ti.Definition == nil || ti.Definition.Path != tc.file || ti.Definition.Line == 0 {
				t.Errorf("%s: definition %+v, want one in %s", name, ti.Definition, tc.file)
			}
		}
	}

	blank, _ := positionOf(t, f.dir, "calc/calc.go", "// Acc accumulates.", "//", 0)
	bad := []struct {
		args string
		code graph.Code
	}{
		{`{"file":"calc/calc.go","line":999,"column":1}`, graph.CodeInvalidArgument},
		{`{"file":"calc/calc.go","line":1,"column":500}`, graph.CodeInvalidArgument},
		{`{"file":"calc/calc.go","line":0,"column":1}`, graph.CodeInvalidArgument},
		{fmt.Sprintf(`{"file":"calc/calc.go","line":%d,"column":4}`, blank), graph.CodeSymbolNotFound},
		{`{"file":"calc/nothing.go","line":1,"column":1}`, graph.CodeFileNotFound},
		{`{"file":"../calc.go","line":1,"column":1}`, graph.CodeOutsideRoots},
		{`{"file":"/etc/passwd","line":1,"column":1}`, graph.CodeOutsideRoots},
		{`{"file":" calc/calc.go","line":1,"column":1}`, graph.CodeInvalidArgument},
	}
	for _, tc := range bad {
		_, err := f.call(t, "infer_type", tc.args)
		if graph.CodeOf(err) != tc.code {
			t.Errorf("infer_type %s: %v, want %s", tc.args, err, tc.code)
		}
	}
}

// TestRenderSSA compares render_ssa's text for functions of every shape
// with golden output, and checks the JSON form and the refusals.
func TestRenderSSA(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/position.txtar")
	var b strings.Builder
	for _, qn := range []string{"Sum", "Acc.Add", "Lengths", "Map", "NewAcc"} {
		ans, err := f.call(t, "render_ssa", fmt.Sprintf(`{"qualified_name":%q}`, qn))
		if err != nil {
			t.Fatalf("render_ssa %s: %v", qn, err)
		}
		fmt.Fprintf(&b, "== %s\n%s\n", qn, ans.Text())
	}
	golden(t, "testdata/position_ssa.golden", b.String())

	ans, err := f.call(t, "render_ssa", `{"file":"calc/calc.go","name":"Lengths","format":"json"}`)
	if err != nil {
		t.Fatal(err)
	}
	fn := ans.(*RenderSSAOutput).Results
	if len(fn.Blocks) == 0 || len(fn.Closures) != 1 || len(fn.Closures[0].Blocks) == 0 {
		t.Errorf("json form of Lengths: %d blocks, %d closures", len(fn.Blocks), len(fn.Closures))
	}
	for _, tc := range []struct {
		args string
		code graph.Code
	}{
		{`{"qualified_name":"Acc"}`, graph.CodeNotAFunction},
		{`{"qualified_name":"Limit"}`, graph.CodeNotAFunction},
		{`{"qualified_name":"Nope"}`, graph.CodeSymbolNotFound},
		{`{"qualified_name":"Wrong"}`, graph.CodeCheckError},
		{`{"qualified_name":"Sum","format":"xml"}`, graph.CodeInvalidArgument},
	} {
		_, err := f.call(t, "render_ssa", tc.args)
		if graph.CodeOf(err) != tc.code {
			t.Errorf("render_ssa %s: %v, want %s", tc.args, err, tc.code)
		}
	}
}

func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// checkFileVetDifferences lists what go vet reports and check_file does
// not (+) or the other way round (-), with the reason. Keyed
// "path:line:column message".
var checkFileVetDifferences = map[string]string{
	"+vetted/vetted.go:23:2 fmt.Println arg list ends with redundant newline": "go vet runs the printf analyzer vendored in the toolchain (Go 1.26), which has this check; the golang.org/x/tools v0.52.0 printf analyzer check_file runs does not",
}

// goDiagnostic is a compiler or vet line: path:line:column: message.
var goDiagnostic = regexp.MustCompile(`^(?:\./)?([^\s:]+\.go):(\d+):(\d+): (.*)$`)

// runGo runs the go command in dir and returns its diagnostics as
// "path:line:column message", columns converted from bytes to characters,
// continuation lines joined to their message.
func runGo(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // both fail: that is the point
	var diags []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "\t") && len(diags) > 0 {
			diags[len(diags)-1] += "\n" + line
			continue
		}
		m := goDiagnostic.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		byteCol, _ := strconv.Atoi(m[3])
		data, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Split(string(data), "\n")[ln-1]
		col := utf8.RuneCountInString(text[:byteCol-1]) + 1
		// The go command writes broken\broken.go on Windows; answers use '/'.
		diags = append(diags, fmt.Sprintf("%s:%d:%d %s", filepath.ToSlash(m[1]), ln, col, m[4]))
	}
	if len(diags) == 0 {
		t.Fatalf("go %s reported nothing:\n%s", strings.Join(args, " "), out)
	}
	return diags
}

// TestCheckFileMatchesGo holds check_file to the go command on a fixture
// with type errors (go build) and vet findings (go vet): the same
// positions (columns in characters) and messages, both ways, but for the
// differences listed with their reasons above.
func TestCheckFileMatchesGo(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	used := map[string]bool{}
	for _, tc := range []struct {
		file      string
		analyzers bool
		goArgs    []string
	}{
		{"broken/broken.go", false, []string{"build", "./broken"}},
		{"vetted/vetted.go", true, []string{"vet", "./vetted"}},
	} {
		want := runGo(t, f.dir, tc.goArgs...)
		ans, err := f.call(t, "check_file", fmt.Sprintf(`{"file":%q,"analyzers":%t}`, tc.file, tc.analyzers))
		if err != nil {
			t.Fatal(err)
		}
		out := ans.(*CheckFileOutput)
		if out.OK {
			t.Errorf("%s: ok, want diagnostics", tc.file)
		}
		var got []string
		for _, d := range out.Results {
			got = append(got, fmt.Sprintf("%s:%d:%d %s", d.Path, d.Line, d.Column, d.Message))
			if d.Code == "" || d.Code == "TypeError" || d.Severity == "" {
				t.Errorf("%s: diagnostic without a stable code or severity: %+v", tc.file, d)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				if _, ok := checkFileVetDifferences["+"+w]; ok {
					used["+"+w] = true
					continue
				}
				t.Errorf("go %s reports %q; check_file does not", tc.goArgs[0], w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				if _, ok := checkFileVetDifferences["-"+g]; ok {
					used["-"+g] = true
					continue
				}
				t.Errorf("check_file reports %q; go %s does not", g, tc.goArgs[0])
			}
		}
		t.Logf("%s: go %s %d diagnostics, check_file %d", tc.file, tc.goArgs[0], len(want), len(got))
	}
	for k := range checkFileVetDifferences {
		if !used[k] {
			t.Errorf("listed difference %q no longer occurs; remove it", k)
		}
	}

	// A clean package is ok; a page of one with a cursor to the rest.
	ans, err := f.call(t, "check_file", `{"file":"calc/calc.go","analyzers":true}`)
	if err != nil || !ans.(*CheckFileOutput).OK {
		t.Errorf("calc: %v %+v", err, ans)
	}
	ans, err = f.call(t, "check_file", `{"file":"broken/broken.go","limit":2}`)
	if err != nil {
		t.Fatal(err)
	}
	page := ans.(*CheckFileOutput)
	if page.Returned != 2 || page.NextCursor == nil || page.Total <= 2 {
		t.Fatalf("page of 2: %+v", page.Envelope)
	}
	ans, err = f.call(t, "check_file", fmt.Sprintf(`{"file":"broken/broken.go","limit":2,"cursor":%q}`, *page.NextCursor))
	if err != nil || ans.(*CheckFileOutput).Results[0].Line <= page.Results[1].Line {
		t.Errorf("second page: %v", err)
	}
}

// TestVetFixes checks that an analyzer's suggested fix comes as a unified
// diff that applies to the file.
func TestVetFixes(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	ans, err := f.call(t, "check_file", `{"file":"vetted/vetted.go","analyzers":true}`)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range ans.(*CheckFileOutput).Results {
		for _, fx := range d.Fixes {
			found = true
			if !strings.HasPrefix(fx.Diff, "--- a/vetted/vetted.go\n+++ b/vetted/vetted.go\n@@ -") {
				t.Errorf("fix of %s is not a unified diff:\n%s", d.Code, fx.Diff)
			}
			if _, err := exec.LookPath("patch"); err == nil {
				cmd := exec.Command("patch", "-p1", "--dry-run")
				cmd.Dir = f.dir
				cmd.Stdin = strings.NewReader(fx.Diff)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("fix of %s does not apply: %v\n%s\n%s", d.Code, err, out, fx.Diff)
				}
			}
		}
	}
	if !found {
		t.Errorf("no analyzer offered a fix on the vet fixture")
	}
}

// TestPositionToolsSeeEdits checks that the very next call of each
// position tool after a file changed on disk answers from the new content.
func TestPositionToolsSeeEdits(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	check := func() *CheckFileOutput {
		ans, err := f.call(t, "check_file", `{"file":"broken/broken.go"}`)
		if err != nil {
			t.Fatal(err)
		}
		return ans.(*CheckFileOutput)
	}
	if check().OK {
		t.Fatal("broken package reported ok")
	}
	writeFile(t, f.dir, "broken/broken.go", "package broken\n\nfunc Wrong() int { return 1 }\n")
	if out := check(); !out.OK {
		t.Errorf("after fixing the file, check_file still reports %+v", out.Results)
	}
	writeFile(t, f.dir, "broken/extra.go", "package broken\n\nfunc Extra() string { return Wrong() }\n")
	if out := check(); out.OK || out.Results[0].Code != "IncompatibleAssign" {
		t.Errorf("after adding a file with a type error: %+v", out.Results)
	}

	line, col := positionOf(t, f.dir, "calc/calc.go", "const Limit", "Limit", 0)
	value := func() string {
		ans, err := f.call(t, "infer_type", fmt.Sprintf(`{"file":"calc/calc.go","line":%d,"column":%d}`, line, col))
		if err != nil {
			t.Fatal(err)
		}
		return ans.(*InferTypeOutput).Results.Value
	}
	if v := value(); v != "10" {
		t.Fatalf("Limit = %s", v)
	}
	ssa := func() string {
		ans, err := f.call(t, "render_ssa", `{"qualified_name":"NewAcc"}`)
		if err != nil {
			t.Fatal(err)
		}
		return ans.Text()
	}
	before := ssa()
	src, err := os.ReadFile(filepath.Join(f.dir, "calc/calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "const Limit = 10", "const Limit = 11", 1)
	edited = strings.Replace(edited, `Names: []string{"é→x"}`, `Names: []string{"é→x", "y"}`, 1)
	writeFile(t, f.dir, "calc/calc.go", edited)
	if v := value(); v != "11" {
		t.Errorf("after the edit Limit = %s, want 11", v)
	}
	if after := ssa(); after == before || !strings.Contains(after, `"y":string`) {
		t.Errorf("render_ssa did not see the edit:\n%s", after)
	}
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFilePackageErrors checks errors the go command reports for a
// package as a whole (shown on the file, without a line), and that a
// syntax error the go command and the parser both report is listed once.
func TestCheckFilePackageErrors(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	for _, tc := range []struct {
		file string
		want []string // "path:line source code" of each diagnostic
	}{
		{"mixed/b.go", []string{"mixed/b.go:0 list list", "mixed/b.go:1 type MismatchedPkgName"}},
		{"noclause/x.go", []string{"noclause/x.go:1 parse parse"}},
	} {
		ans, err := f.call(t, "check_file", fmt.Sprintf(`{"file":%q}`, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var got []string
		for _, d := range ans.(*CheckFileOutput).Results {
			got = append(got, fmt.Sprintf("%s:%d %s %s", d.Path, d.Line, d.Source, d.Code))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q\n%s", tc.file, got, tc.want, ans.Text())
		}
	}
}

// TestPositionToolsConcurrent runs the three tools at once on one package
// (one shared load, analyzers and SSA built beside type queries); with
// -race it checks that the cached package is only read.
func TestPositionToolsConcurrent(t *testing.T) {
	f := newFixture(t, "testdata/position.txtar")
	line, col := positionOf(t, f.dir, "calc/calc.go", "func Sum(", "words", 0)
	calls := [][2]string{
		{"infer_type", fmt.Sprintf(`{"file":"calc/calc.go","line":%d,"column":%d}`, line, col)},
		{"check_file", `{"file":"calc/calc.go","analyzers":true}`},
		{"render_ssa", `{"qualified_name":"Lengths"}`},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		c := calls[i%len(calls)]
		wg.Go(func() {
			if _, err := f.call(t, c[0], c[1]); err != nil {
				errs <- fmt.Errorf("%s %s: %w", c[0], c[1], err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := f.svc.sess.Live().Stats(); st.Loads != 1 {
		t.Errorf("concurrent calls on one package ran %d loads, want 1", st.Loads)
	}
}
