package query

import (
	"cmp"
	"context"
	"slices"

	"github.com/sextant-dev/sextant/internal/graph"
)

// ScriptUse is an identifier in the source of a TypeScript, JavaScript
// or Python symbol that the index resolves: where it is (Col and EndCol
// in characters, 1-based, EndCol past the last) and the key of the
// symbol it names.
type ScriptUse struct {
	Line, Col, EndCol int
	Target            string
}

// maxScriptNames bounds the names ScriptUses looks up.
const maxScriptNames = 400

// ScriptUses lists the uses, on lines from..to of the file of the symbol
// key, of the symbols of its repository named by names (the identifiers
// those lines spell): read from the references the SCIP index recorded,
// each at the position the indexer gave it, so that a page links each
// identifier of a source view to its definition as infer_type does for
// Go. The index keeps references by the symbol used, not by file: the
// symbols a name may mean are found first, then their references in the
// file. A Go symbol has none (infer_type answers for Go); a name beyond
// the first maxScriptNames is not looked up. It is no tool: an agent
// asks find_references or lsp_definition.
func ScriptUses(ctx context.Context, s *Service, key string, from, to int, names []string) ([]ScriptUse, error) {
	v, err := s.open(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	sym, err := resolve(ctx, v, selector{StableKey: key})
	if err != nil {
		return nil, err
	}
	if sym.IsGo() {
		return nil, nil
	}
	r := v.Reader()
	var keys []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || n == "" {
			continue
		}
		seen[n] = true
		if len(seen) > maxScriptNames {
			break
		}
		syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: n, Mode: graph.MatchExact, Repositories: []string{sym.Repository}, Brief: true, Limit: 50})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "finding "+n)
		}
		for _, c := range syms {
			if c.Name == n {
				keys = append(keys, c.Key)
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: keys, PathPrefix: sym.Path, IncludeTests: true})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading references")
	}
	var out []ScriptUse
	for _, ref := range refs {
		if ref.Path != sym.Path || ref.Line < from || ref.Line > to || ref.Repository != "" && ref.Repository != sym.Repository {
			continue
		}
		out = append(out, ScriptUse{Line: ref.Line, Col: ref.Col, EndCol: ref.EndCol, Target: ref.Target})
	}
	slices.SortFunc(out, func(a, b ScriptUse) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return out, nil
}
