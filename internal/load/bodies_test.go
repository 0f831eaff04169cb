package load

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBlankBodies(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"func", "package p\n\nfunc F() int {\n\treturn 1\n}\n", "package p\n\nfunc F() int {\n         \n}\n"},
		{"method and generics", "package p\nfunc (r *T[K]) M[X any](x X) (int, error) { return 0, nil }\n",
			"package p\nfunc (r *T[K]) M[X any](x X) (int, error) {               }\n"},
		{"result types with braces", "package p\nfunc F() struct{ x int } { return struct{ x int }{} }\nfunc G() map[string]interface{ M() } { return nil }\n",
			"package p\nfunc F() struct{ x int } {                          }\nfunc G() map[string]interface{ M() } {            }\n"},
		{"func results", "package p\nfunc F() func() {}\nfunc G() func() { return nil }\n", "package p\nfunc F() func() {}\nfunc G() func() {            }\n"},
		{"assembly", "package p\nfunc F(x int) int\nfunc G() { F(1) }\n", "package p\nfunc F(x int) int\nfunc G() {      }\n"},
		{"literals stay", "package p\nvar a = [...]func(){f, g}\nvar h = func() int { return 2 }\nvar (\n\tk = func() {}\n)\n", ""},
		{"braces in strings and comments", "package p\nfunc F() { _ = \"}\"; /* } */ _ = '}' // }\n}\nfunc G() {}\n",
			"package p\nfunc F() {                              \n}\nfunc G() {}\n"},
		{"line directive", "package p\nfunc F() {\n//line x.go:1\n}\n", ""},
		{"line directive in a block comment", "package p\nfunc F() { /*line x.go:1*/ }\n", ""},
		{"mention of line directives", "package p\n\n// A //line directive moves positions.\nfunc F() { return }\n", "package p\n\n// A //line directive moves positions.\nfunc F() {        }\n"},
		{"does not scan", "package p\nfunc F() { \"unterminated }\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.src
			}
			in := []byte(c.src)
			if got := string(blankBodies(in)); got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			if string(in) != c.src {
				t.Errorf("the source was changed")
			}
		})
	}
}

// On the standard library, blanking leaves every declaration as it was:
// the same positions, the same text outside function bodies.
func TestBlankBodiesKeepsDeclarations(t *testing.T) {
	dirs := []string{"fmt", "strings", "net/http", "go/types", "runtime", "reflect", "syscall", "os"}
	if testing.Short() {
		dirs = dirs[:2]
	}
	goroot := goEnv(t, "GOROOT")
	files := 0
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(goroot, "src", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			checkSameDecls(t, name, src)
			files++
		}
	}
	if files < 100 {
		t.Errorf("compared %d files, expected the standard library's", files)
	}
}

// checkSameDecls checks that src and its blanked form declare the same
// things at the same positions, with function bodies emptied.
func checkSameDecls(t *testing.T, name string, src []byte) {
	t.Helper()
	fset := token.NewFileSet()
	whole, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return // nothing to compare with
	}
	blanked, err := parser.ParseFile(fset, name, blankBodies(src), parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: parses whole but not blanked: %v", name, err)
	}
	if len(whole.Decls) != len(blanked.Decls) {
		t.Fatalf("%s: %d declarations, %d blanked", name, len(whole.Decls), len(blanked.Decls))
	}
	for i, d := range whole.Decls {
		b := blanked.Decls[i]
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		if off(d.Pos()) != off(b.Pos()) || off(d.End()) != off(b.End()) {
			t.Errorf("%s: declaration %d moved", name, i)
		}
		if fd, ok := d.(*ast.FuncDecl); ok {
			bd := b.(*ast.FuncDecl)
			if (fd.Body == nil) != (bd.Body == nil) || (bd.Body != nil && len(bd.Body.List) != 0 && !hasLineDirective(src)) {
				t.Errorf("%s: %s: body not blanked as it should be", name, fd.Name.Name)
			}
			fd, bd = &ast.FuncDecl{Recv: fd.Recv, Name: fd.Name, Type: fd.Type}, &ast.FuncDecl{Recv: bd.Recv, Name: bd.Name, Type: bd.Type}
			d, b = fd, bd
		}
		if got, want := printed(fset, b), printed(fset, d); got != want {
			t.Errorf("%s: declaration %d differs:\n%s\nwant\n%s", name, i, got, want)
		}
	}
}

func printed(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(b.String())
}

// FuzzBlankBodies: for any source that parses, the blanked source parses
// to the same declarations at the same positions.
func FuzzBlankBodies(f *testing.F) {
	for _, s := range blankBodiesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkSameDecls(t, "fuzz.go", src)
	})
}

func goEnv(tb testing.TB, name string) string {
	tb.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		tb.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// blankBodiesSeeds are sources where a lexer may go wrong: brackets
// hidden in literals and comments, escapes, literals that do not end,
// numbers go/scanner rejects, semicolons inserted or not at the end of
// a declaration.
var blankBodiesSeeds = []string{
	"package p\nfunc F() int { return 1 }\n",
	"package p\nvar a = [...]func(){f, g}\nfunc (T) M() struct{}{ return struct{}{} }\n",
	"package p\nfunc F[T interface{ ~int }](x T) (r map[T]func() int) { if x > 0 { return nil }; return }\nfunc G()\n",
	"package p\nfunc F() { _ = \"}\"; /* } */ _ = '}' // }\n}\nfunc G() {}\n",
	"package p\nfunc F() { _ = '\\''; _ = \"\\\"}\"; _ = `}\n{` }\nfunc G() { x() }\n",
	"package p\nfunc F() { _ = \"\\x7f\\u00e9\\U0001F600\\377\\a\" }\n",
	"package p\nfunc F() { _ = \"\\400\\uD800\\U00110000\" }\n",
	"package p\nfunc F() { _ = \"\\q\" }\n",
	"package p\nfunc F() { _ = '\\\"' }\n",
	"package p\nfunc F() { _ = \"\\'\" }\n",
	"package p\nfunc F() { _ = 'ab' }\n",
	"package p\nfunc F() { _ = '' }\n",
	"package p\nfunc F() { _ = 'é' + '\\u00e9' }\n",
	"package p\nfunc F() { \"unterminated }\n",
	"package p\nfunc F() { 'x }\n}\n",
	"package p\nfunc F() { `raw }\n",
	"package p\nfunc F() { /* open }\n",
	"package p\nfunc F() { // }\n}",
	"package p\nfunc F() { x }\nfunc G() { y }\n",
	"package p\nfunc F()\nfunc G() { x }\n",
	"package p\nfunc F() { x } // after\nfunc G() { x } /* after */\nfunc H() { x } /* \n */ func I() { x }\n",
	"package p\nfunc F() /* c */ { x }\nfunc G() // c\n{ x }\n",
	"package p\nfunc F() /* c\n */ { x }\n",
	"package p\nvar x = [...]func(){f}\nfunc G(){ x }\n",
	"package p\nvar (\n\ta = 1\n\tb = func() { return }\n)\nfunc G() { return }\n",
	"package p\nimport (\n\t\"fmt\"\n)\nconst c = 1; func F() { fmt.Println() }; func G() {}\n",
	"package p\nfunc F() { x := func() { y := func() {}; y() }; x() }\n",
	"package p\nfunc F() (s struct{ a, b int }, i interface{ M() }) { return }\n",
	"package p\nfunc F() struct\n{ x int } { return }\n",
	"package p\nfunc (r *T[K, V]) M[X any, Y ~[]X](x X) (int, error) { return 0, nil }\n",
	"package p\ntype T struct { f func() }\nfunc (T) M() { x }\n",
	"package p\nfunc F() { x := 09; y := 0x; z := 1e; w := 0b12; v := 0o8; u := 1__2; _ = 0x1.0 }\n",
	"package p\nfunc F() { _ = 09.5 + 09i + 0x1p-2 + 1_000 + .5 + 1. + 0X_1F + 0b_1 + 0o_7 + 1e+9i }\n",
	"package p\nfunc F() { _ = 0b1.0 }\n",
	"package p\nfunc F() { _ = 1_ }\n",
	"package p\nfunc F() { _ = 0_x }\n",
	"package p\nfunc F() { _ = 1p5 }\n",
	"package p\nfunc F() { _ = 0x1e+5 }\n",
	"package p\nfunc F() { a...; _ = x.5; _ = ...5; _ = ..5 }\n",
	"package p\nfunc F() { ..._0x }\n",
	"package p\nfunc F() { x # y }\n",
	"package p\nfunc F() { x \\ y }\n",
	"package p\nfunc F() { x := 1\f }\n",
	"package p\nfunc F() { x\x00 }\n",
	"package p\nfunc F() { \"\xff\" }\n",
	"\ufeffpackage p\nfunc F() { x }\n",
	"package p\nfunc F() { \ufeff }\n",
	"package p\nfunc F() { π := 1; _ = x١ }\nfunc Gé() { é }\n",
	"package p\nfunc F() { ·x }\n",
	"package p\nfunc F() { ١ }\n",
	"package p\nfunc F() { “x” }\n",
	"package p\nfunc F() {\n//line x.go:1\n}\n",
	"package p\nfunc F() { /*line x.go:1*/ }\n",
	"package p\nfunc F() { x }//line x.go:0\nfunc G() { x }\n",
	"package p\r\nfunc F() {\r\n\treturn\r\n}\r\n",
	"package p\nvar x = y\n++\nfunc F() { x }\n",
	"package p\nvar x = y++\nfunc F() { x }\n",
	"package p\nvar x = a<<--b\nfunc F() { x }\n",
	"package p\nvar x = a<--b\nfunc F() { x }\n",
	"package p\nvar x = a+++b\nfunc F() { x }\n",
	"package p\nvar x = 1\nfunc\nF() { x }\n",
	"package p\nfunc F() { return } func G() { x }",
	"package p\nvar x = 1 /* a */ /* b\n */ func F() { x }\nvar y = return\nfunc G() { x }\nvar z = chan\nfunc H() { x }\n",
	"package p\nfunc F() {",
	"package p\nfunc F()",
	"package p\nfunc F() } { x\n}\n",
	"package p\nfunc F() { ] }\n",
	"package p\nvar t = []uint16{0x0041, 0x005a, 1,\n\t0b1_0, 0o17, 1e3, 'a', \"{\", `}`}\nfunc F() { x }\n",
	"package p\nvar m = map[string]func(){\"a\": func() { f() }}\nfunc F() { x }\n",
	"//line x.go:1\npackage p\nfunc F() { x }\n",
	"package p\nvar s = \"/*line x.go:1*/\"\nfunc F() { x }\n",
	"package p\nfunc F() { x }\n//line",
	"func",
	"",
}

// FuzzBlankBodiesSame: the lexer blanks exactly what go/scanner's tokens
// did, and leaves alone every source go/scanner reports an error in.
func FuzzBlankBodiesSame(f *testing.F) {
	for _, s := range blankBodiesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in := bytes.Clone(src)
		got, want := blankBodies(src), blankBodiesSlow(src)
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\ngot  %q\nwant %q", src, got, want)
		}
		if !bytes.Equal(src, in) {
			t.Errorf("the source was changed")
		}
		if got, want := hasLineDirective(src), hasLineDirectiveSlow(src); got != want {
			t.Errorf("%q: hasLineDirective %v, want %v", src, got, want)
		}
	})
}

// Sources made at random of declarations and fragments that matter to a
// lexer blank as they did with go/scanner: byte-level fuzzing finds such
// mixes slowly.
func TestBlankBodiesSameOnFragments(t *testing.T) {
	fragments := []string{
		"func", "F", "struct", "interface", "return", "chan", "break", "x", "_", "é", "i", "e", "p",
		"1", "0", "9", "0b1", "0o7", ".5", "0x1.8p1", "1e+5i", "_1", "1i2",
		".", "..", "...", "+", "-", "++", "--", "<", "<-", "<<", "=", ",", ":", "*", "/", ";",
		`'}'`, `'\''`, `"}"`, `"\""`, `"\u00e9\x7f\377"`, "`{\n`", "/*}*/", "/*\n*/", "//}\n",
		"\n", "\n", "\n", " ", " ", "\t", "\r",
	}
	// Each of these makes go/scanner report an error, or may.
	rare := []string{"#", `\`, "·", "١", "09", "1e", "1p", "0x", "1_", "'", `"`, "`", "'ab'", "''", `"\q"`, "/*", "\ufeff", "(", ")", "{", "}"}
	brackets := []string{"()", "[]", "{}"}
	separators := []string{"\n", "\n", ";", " ", "", "// c\n", "/* c */", "/*\n*/"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	var soup func(depth int)
	soup = func(depth int) {
		for range r.IntN(8) {
			switch {
			case r.IntN(40) == 0:
				b.WriteString(rare[r.IntN(len(rare))])
			case depth < 3 && r.IntN(6) == 0:
				br := brackets[r.IntN(len(brackets))]
				b.WriteByte(br[0])
				soup(depth + 1)
				b.WriteByte(br[1])
			default:
				b.WriteString(fragments[r.IntN(len(fragments))])
			}
			if r.IntN(3) == 0 {
				b.WriteString(" ")
			}
		}
	}
	n, blanked := 20000, 0
	if testing.Short() {
		n = 2000
	}
	for range n {
		b.Reset()
		b.WriteString("package p\n")
		for range 1 + r.IntN(4) {
			switch r.IntN(3) {
			case 0:
				b.WriteString("func F")
				soup(2)
				b.WriteString("{")
				soup(0)
				b.WriteString("}")
			case 1:
				b.WriteString("var x = ")
				soup(0)
			default:
				soup(0)
			}
			b.WriteString(separators[r.IntN(len(separators))])
		}
		src := []byte(b.String())
		got, want := blankBodies(src), blankBodiesSlow(src)
		if !bytes.Equal(got, want) {
			t.Fatalf("%q:\ngot  %q\nwant %q", src, got, want)
		}
		if !bytes.Equal(got, src) {
			blanked++
		}
	}
	if blanked < n/10 {
		t.Errorf("%d of %d sources blanked, too few to tell", blanked, n)
	}
}

// Every Go file of the standard library (testdata too, with its files
// that do not scan) and of golang.org/x/text (large generated tables),
// if in the module cache, blanks as it did with go/scanner.
func TestBlankBodiesSameAsScanner(t *testing.T) {
	goroot := filepath.Join(goEnv(t, "GOROOT"), "src")
	roots := []string{goroot}
	if testing.Short() {
		roots = []string{filepath.Join(goroot, "fmt"), filepath.Join(goroot, "unicode"), filepath.Join(goroot, "go", "scanner")}
	} else if text, _ := filepath.Glob(filepath.Join(goEnv(t, "GOMODCACHE"), "golang.org", "x", "text@v*")); len(text) > 0 {
		slices.Sort(text)
		roots = append(roots, text[len(text)-1])
	}
	files, blanked := 0, 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go") {
				return err
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return err
			}
			got, want := blankBodies(src), blankBodiesSlow(src)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: blanked differently from go/scanner", name)
			}
			files++
			if !bytes.Equal(got, src) {
				blanked++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d with bodies blanked", files, blanked)
	if files < 50 {
		t.Errorf("compared %d files, expected the standard library's", files)
	}
}

// BenchmarkBlankBodies compares the lexer with go/scanner on net/http
// and on a large generated table.
func BenchmarkBlankBodies(b *testing.B) {
	src := filepath.Join(goEnv(b, "GOROOT"), "src")
	http, err := filepath.Glob(filepath.Join(src, "net", "http", "*.go"))
	if err != nil || len(http) == 0 {
		b.Fatalf("net/http: %v", err)
	}
	for _, c := range []struct {
		name  string
		files []string
	}{
		{"http", http},
		{"tables", []string{filepath.Join(src, "unicode", "tables.go")}},
	} {
		var srcs [][]byte
		size := int64(0)
		for _, name := range c.files {
			s, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			srcs = append(srcs, s)
			size += int64(len(s))
		}
		for _, impl := range []struct {
			name  string
			blank func([]byte) []byte
		}{{"old", blankBodiesSlow}, {"new", blankBodies}} {
			b.Run(c.name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range srcs {
						impl.blank(s)
					}
				}
			})
		}
	}
}

// blankBodiesSlow is blankBodies as it was written with go/scanner, the
// reference for the lexer.
func blankBodiesSlow(src []byte) []byte {
	if hasLineDirectiveSlow(src) {
		return src
	}
	var s scanner.Scanner
	failed := false
	file := token.NewFileSet().AddFile("", -1, len(src))
	s.Init(file, src, func(token.Position, string) { failed = true }, 0)
	var out []byte
	start := true // at the start of a top-level declaration
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			if failed || out == nil {
				return src
			}
			return out
		case token.SEMICOLON:
			start = true
			continue
		case token.FUNC:
			if start {
				open, end, ok := funcBodySlow(&s, file)
				if !ok {
					return src
				}
				if open >= 0 && end > open+1 {
					if out == nil {
						out = bytes.Clone(src)
					}
					for i := open + 1; i < end; i++ {
						if out[i] != '\n' {
							out[i] = ' '
						}
					}
				}
				start = open < 0 // funcBodySlow read the semicolon that ends a declaration without a body
				continue
			}
		case token.LPAREN, token.LBRACE, token.LBRACK:
			// A grouped declaration (var ( ... ), import ( ... )) or an
			// initializer: nothing in it starts a func declaration.
			if _, ok := closingSlow(&s, file); !ok {
				return src
			}
		}
		start = false
	}
}

// funcBodySlow reads a func declaration's signature from just after its func
// keyword and then its body: the offsets of the body's braces, or -1 for a
// declaration without a body (one implemented in assembly). ok is false
// when the tokens end first.
func funcBodySlow(s *scanner.Scanner, file *token.File) (open, end int, ok bool) {
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, 0, false
		case token.SEMICOLON:
			return -1, -1, true
		case token.LPAREN, token.LBRACK:
			// The receiver, type parameters, parameters and results,
			// with any struct or interface types in them.
			if _, ok := closingSlow(s, file); !ok {
				return 0, 0, false
			}
		case token.STRUCT, token.INTERFACE:
			// A result type's braces are not the body.
			_, next, _ := s.Scan()
			if next != token.LBRACE {
				return 0, 0, false
			}
			if _, ok := closingSlow(s, file); !ok {
				return 0, 0, false
			}
		case token.LBRACE:
			end, ok := closingSlow(s, file)
			return file.Offset(pos), end, ok
		}
	}
}

// closingSlow reads tokens up to the one closing the bracket (parenthesis,
// brace or square bracket) just read, and returns its offset; false if
// the tokens end first.
func closingSlow(s *scanner.Scanner, file *token.File) (int, bool) {
	depth := 1
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, false
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if depth--; depth == 0 {
				return file.Offset(pos), true
			}
		}
	}
}

// hasLineDirectiveSlow is hasLineDirective as it was.
func hasLineDirectiveSlow(src []byte) bool {
	return bytes.HasPrefix(src, []byte("//line ")) || bytes.Contains(src, []byte("\n//line ")) || bytes.Contains(src, []byte("/*line "))
}
