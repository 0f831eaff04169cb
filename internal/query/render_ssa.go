package query

import (
	"bytes"
	"context"
	"fmt"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
)

// RenderSSAInput selects a function as get_symbol does, and the form.
type RenderSSAInput struct {
	SymbolSelector
	Format string `json:"format,omitempty" jsonschema:"text (default: go/ssa's notation) or json (adds blocks and instructions)"`
	Wait   Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// paramDocs says the selector in a function's words.
func (RenderSSAInput) paramDocs() map[string]string {
	return map[string]string{
		"stable_key":     "durable key of the function or method",
		"qualified_name": "Name or Type.Method, optionally prefixed by package name or import path",
		"repository":     "narrows qualified_name to one repository",
		"path":           "narrows qualified_name to files under this repo-relative prefix",
		"file":           "a Go file; name is resolved as its source would",
		"name":           "with file: a local name or pkg.Name",
	}
}

// SSAInstr is one instruction.
type SSAInstr struct {
	Value string `json:"value,omitempty" jsonschema:"the register it defines (t3), if any"`
	Type  string `json:"type,omitempty" jsonschema:"the type of that register"`
	Text  string `json:"text" jsonschema:"the instruction in go/ssa notation"`
}

// SSABlock is one basic block.
type SSABlock struct {
	Index   int        `json:"index" jsonschema:"block number"`
	Comment string     `json:"comment,omitempty" jsonschema:"what the block is (if.then, for.body, ...)"`
	Preds   []int      `json:"preds,omitempty" jsonschema:"predecessor blocks"`
	Succs   []int      `json:"succs,omitempty" jsonschema:"successor blocks"`
	Instrs  []SSAInstr `json:"instrs" jsonschema:"instructions in order"`
}

// SSAFunction is one function in SSA form.
type SSAFunction struct {
	Name      string       `json:"name" jsonschema:"the function, as go/ssa names it"`
	Signature string       `json:"signature" jsonschema:"its signature"`
	Path      string       `json:"path" jsonschema:"repo-relative file"`
	Line      int          `json:"line" jsonschema:"1-based line of its declaration"`
	Text      string       `json:"text" jsonschema:"the function in go/ssa notation, its closures after it"`
	Truncated bool         `json:"truncated,omitempty" jsonschema:"text was cut at 64 KB"`
	Blocks    []SSABlock   `json:"blocks,omitempty" jsonschema:"format json: the blocks"`
	Closures  []SSAClosure `json:"closures,omitempty" jsonschema:"format json: its closures, nested ones included"`
}

// SSAClosure is a function literal inside the rendered function.
type SSAClosure struct {
	Name      string     `json:"name" jsonschema:"the closure, as go/ssa names it (F$1)"`
	Signature string     `json:"signature" jsonschema:"its signature"`
	Blocks    []SSABlock `json:"blocks" jsonschema:"its blocks"`
}

// RenderSSAOutput is the answer of render_ssa.
type RenderSSAOutput struct {
	Envelope
	Results *SSAFunction `json:"results,omitempty" jsonschema:"the function"`
}

const maxSSAText = 64 << 10

// RenderSSA renders one function's SSA form, built from the files on
// disk.
func RenderSSA(ctx context.Context, s *Service, in RenderSSAInput, progress func(Progress)) (*RenderSSAOutput, error) {
	asJSON := false
	switch in.Format {
	case "", "text":
	case "json":
		asJSON = true
	default:
		return nil, invalid("format", "must be text or json (got %q)", in.Format)
	}
	v, sym, err := openSymbol(ctx, s, in.selector(), progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if err := goOnly(sym, "render_ssa"); err != nil {
		return nil, err
	}
	if sym.Kind != graph.KindFunc && sym.Kind != graph.KindMethod {
		return nil, graph.Errorf(graph.CodeNotAFunction, "%s is a %s, not a function or method with a body", sym.QualifiedName, sym.Kind)
	}
	repo, err := v.Repo(sym.Repository)
	if err != nil {
		return nil, err
	}
	p, err := s.sess.Live().Get(ctx, repo.Root, sym.Path)
	if err != nil {
		return nil, err
	}
	obj := lookupFunc(p.Pkg.Types, sym.QualifiedName)
	if obj == nil {
		return nil, graph.Errorf(graph.CodeSymbolNotFound, "%s is no longer in %s on disk; the index is older than the file (call again once it is re-indexed)", sym.QualifiedName, sym.Path)
	}
	spkg, err := p.SSA()
	if err != nil {
		return nil, err
	}
	fn := spkg.Prog.FuncValue(obj)
	if fn == nil {
		return nil, graph.Errorf(graph.CodeNotAFunction, "%s has no SSA function", sym.QualifiedName)
	}
	out := &RenderSSAOutput{Envelope: liveEnvelope(), Results: ssaFunction(p.Root, fn, asJSON)}
	out.Page(1, 0, 1, "", "")
	return out, nil
}

// lookupFunc finds Name or Type.Method in pkg.
func lookupFunc(pkg *types.Package, qn string) *types.Func {
	if pkg == nil {
		return nil
	}
	typ, name, isMethod := strings.Cut(qn, ".")
	if !isMethod {
		fn, _ := pkg.Scope().Lookup(qn).(*types.Func)
		return fn
	}
	tn, _ := pkg.Scope().Lookup(typ).(*types.TypeName)
	if tn == nil {
		return nil
	}
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, pkg, name)
	fn, _ := obj.(*types.Func)
	return fn
}

// relLocations rewrites the "# Location:" lines of go/ssa's text, which
// give the absolute file, to the path under root, with '/' on every
// platform (on Windows go/ssa writes C:\repo\calc\calc.go), as every
// answer gives paths.
func relLocations(text, root string) string {
	const label = "# Location: "
	prefix := label + root + string(filepath.Separator)
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			lines[i] = label + filepath.ToSlash(rest)
		}
	}
	return strings.Join(lines, "")
}

func ssaFunction(root string, fn *ssa.Function, asJSON bool) *SSAFunction {
	var buf bytes.Buffer
	_, _ = fn.WriteTo(&buf)
	var anon func(f *ssa.Function)
	anon = func(f *ssa.Function) {
		for _, a := range f.AnonFuncs {
			buf.WriteString("\n")
			_, _ = a.WriteTo(&buf)
			anon(a)
		}
	}
	anon(fn)
	text := relLocations(buf.String(), root)
	out := &SSAFunction{Name: fn.String(), Signature: fn.Signature.String(), Text: text}
	if len(out.Text) > maxSSAText {
		out.Text = cutUTF8(out.Text, maxSSAText)
		out.Truncated = true
	}
	if pos := fn.Prog.Fset.Position(fn.Pos()); pos.IsValid() {
		out.Path, _ = relPath(root, pos.Filename)
		out.Line = pos.Line
	}
	if !asJSON {
		return out
	}
	out.Blocks = ssaBlocks(fn)
	var closures func(f *ssa.Function)
	closures = func(f *ssa.Function) {
		for _, a := range f.AnonFuncs {
			out.Closures = append(out.Closures, SSAClosure{Name: a.String(), Signature: a.Signature.String(), Blocks: ssaBlocks(a)})
			closures(a)
		}
	}
	closures(fn)
	return out
}

func ssaBlocks(fn *ssa.Function) []SSABlock {
	var blocks []SSABlock
	for _, b := range fn.Blocks {
		sb := SSABlock{Index: b.Index, Comment: b.Comment, Instrs: []SSAInstr{}}
		for _, x := range b.Preds {
			sb.Preds = append(sb.Preds, x.Index)
		}
		for _, x := range b.Succs {
			sb.Succs = append(sb.Succs, x.Index)
		}
		for _, instr := range b.Instrs {
			in := SSAInstr{Text: instr.String()}
			if v, ok := instr.(ssa.Value); ok {
				in.Value = v.Name()
				in.Type = v.Type().String()
				in.Text = fmt.Sprintf("%s = %s", v.Name(), instr.String())
			}
			sb.Instrs = append(sb.Instrs, in)
		}
		blocks = append(blocks, sb)
	}
	return blocks
}

// Text renders the SSA text with where the function is.
func (o *RenderSSAOutput) Text() string {
	f := o.Results
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d %s\n", f.Path, f.Line, f.Name)
	for _, l := range strings.Split(strings.TrimRight(f.Text, "\n"), "\n") {
		b.WriteString(quoteContent(l) + "\n")
	}
	if f.Truncated {
		b.WriteString("\n(cut at 64 KB)\n")
	}
	return b.String()
}
