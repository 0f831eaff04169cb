package syntax

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// TestNames checks the names of the declarations of one file, valid and
// not: what the indexer, the outline and read_source all call them.
func TestNames(t *testing.T) {
	const src = `package p

type List[T any] struct {
	T
	*Node
	pkg.Reader
	Pair[int, string]
	(Paren)
	next *List[T]
}

func F() {}
func (l List[T]) Len() int { return 0 }
func (l *List[T]) Push(T) {}
func (m *Map[K, V]) Get(K) V {}
func ((Paren)) P() {}
func (r pkg.T) Foreign() {}
func (r []int) Slice() {}
func (*) Bad() {}
`
	f, _ := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if f == nil {
		t.Fatal("no syntax")
	}
	var funcs []string
	var embedded []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, method := FuncName(d)
			if method != (d.Recv != nil) {
				t.Errorf("%s: method = %v", name, method)
			}
			funcs = append(funcs, name)
		case *ast.GenDecl:
			st := d.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
			for _, fl := range st.Fields.List {
				if len(fl.Names) == 0 {
					embedded = append(embedded, EmbeddedName(fl.Type))
				}
			}
		}
	}
	wantFuncs := []string{"F", "List.Len", "List.Push", "Map.Get", "Paren.P", "pkg.T.Foreign", "[]int.Slice", "….Bad"}
	if !slices.Equal(funcs, wantFuncs) {
		t.Errorf("function names\n got %q\nwant %q", funcs, wantFuncs)
	}
	wantEmbedded := []string{"T", "Node", "Reader", "Pair", "Paren"}
	if !slices.Equal(embedded, wantEmbedded) {
		t.Errorf("embedded names\n got %q\nwant %q", embedded, wantEmbedded)
	}
}

func TestEmbeddedIdentNone(t *testing.T) {
	for _, e := range []ast.Expr{&ast.ArrayType{Elt: ast.NewIdent("int")}, &ast.BadExpr{}, &ast.StarExpr{X: &ast.FuncType{}}} {
		if id := EmbeddedIdent(e); id != nil {
			t.Errorf("EmbeddedIdent(%T) = %v, want nil", e, id)
		}
		if n := EmbeddedName(e); n != "" {
			t.Errorf("EmbeddedName(%T) = %q, want empty", e, n)
		}
	}
}

func TestExprString(t *testing.T) {
	for _, c := range []struct {
		e    ast.Expr
		want string
	}{
		{&ast.StarExpr{X: ast.NewIdent("T")}, "*T"},
		{&ast.BadExpr{}, "…"},
		{&ast.IndexExpr{X: ast.NewIdent("List"), Index: &ast.BadExpr{}}, "List[…]"},
	} {
		if got := ExprString(c.e); got != c.want {
			t.Errorf("ExprString = %q, want %q", got, c.want)
		}
	}
}

// TestDeclIdents lists the declaring identifiers of a file in source
// order but for a method's name, which comes before its receiver; an
// embedded field by its type's name.
func TestDeclIdents(t *testing.T) {
	const src = `package p

const C, D = 1, 2

var v int

type S struct {
	A, B int
	*pkg.Embedded
	List[int]
}

type I interface {
	M(x int) (y int)
}

func (s *S) F(a string) {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range DeclIdents(f) {
		got = append(got, id.Name)
	}
	want := []string{"p", "C", "D", "v", "S", "A", "B", "Embedded", "List", "I", "M", "x", "y", "F", "s", "a"}
	if !slices.Equal(got, want) {
		t.Errorf("DeclIdents\n got %q\nwant %q", got, want)
	}
}
