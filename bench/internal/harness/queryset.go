package harness

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

// Call is one tool call of the latency benchmark.
type Call struct {
	Tool string         `json:"tool"` // find_symbol or get_symbol
	Mode string         `json:"mode"` // how the call selects; see FindSymbolModes and GetSymbolModes
	Args map[string]any `json:"args"` // the tool's JSON arguments
}

// FindSymbolModes are the find_symbol match modes, each given the same
// share of the calls.
var FindSymbolModes = []string{"exact", "prefix", "substring", "fuzzy"}

// GetSymbolModes are the get_symbol selector forms, each given the same
// share of the calls:
//
//   - key: stable_key of the symbol;
//   - qualified: its bare qualified name (Name or Type.Method), which is
//     ambiguous when several packages declare it, and then answers
//     AMBIGUOUS_SYMBOL, as an agent would see;
//   - import_path: its qualified name behind its import path
//     (golang.org/x/tools/go/packages.Load), which names one symbol;
//   - file: file + name, resolved as that file's source would.
var GetSymbolModes = []string{"key", "qualified", "import_path", "file"}

// FindSymbolCalls returns n find_symbol calls built from the names of
// syms, cycling through FindSymbolModes. Every query comes from a real
// name: the name itself (exact), its first few characters (prefix), a few
// characters from inside it (substring), or a camel-case abbreviation of
// it such as NwSrvMx for NewServeMux (fuzzy).
func FindSymbolCalls(syms []graph.Symbol, n int, rng *rand.Rand) []Call {
	pool := usable(syms, func(s graph.Symbol) bool { return utf8.RuneCountInString(s.Name) >= 2 })
	if len(pool) == 0 {
		return nil
	}
	calls := make([]Call, 0, n)
	for i := range n {
		mode := FindSymbolModes[i%len(FindSymbolModes)]
		name := pool[rng.IntN(len(pool))].Name
		var q string
		switch mode {
		case "exact":
			q = name
		case "prefix":
			q = prefix(name, 2+rng.IntN(4))
		case "substring":
			q = substring(name, 3+rng.IntN(3), rng)
		case "fuzzy":
			q = Abbreviate(name, rng)
		}
		calls = append(calls, Call{Tool: "find_symbol", Mode: mode, Args: map[string]any{"name": q, "mode": mode}})
	}
	return calls
}

// GetSymbolCalls returns n get_symbol calls for symbols picked from syms,
// cycling through GetSymbolModes. Package symbols are only looked up by
// key: their name is the package's, which no qualified form selects.
func GetSymbolCalls(syms []graph.Symbol, n int, rng *rand.Rand) []Call {
	all := usable(syms, func(graph.Symbol) bool { return true })
	named := usable(syms, func(s graph.Symbol) bool { return s.Kind != graph.KindPackage })
	if len(all) == 0 || len(named) == 0 {
		return nil
	}
	calls := make([]Call, 0, n)
	for i := range n {
		mode := GetSymbolModes[i%len(GetSymbolModes)]
		var args map[string]any
		switch mode {
		case "key":
			args = map[string]any{"stable_key": all[rng.IntN(len(all))].Key}
		case "qualified":
			args = map[string]any{"qualified_name": named[rng.IntN(len(named))].QualifiedName}
		case "import_path":
			s := named[rng.IntN(len(named))]
			args = map[string]any{"qualified_name": s.PackagePath + "." + s.QualifiedName}
		case "file":
			s := named[rng.IntN(len(named))]
			args = map[string]any{"file": s.Path, "name": s.QualifiedName}
		}
		calls = append(calls, Call{Tool: "get_symbol", Mode: mode, Args: args})
	}
	return calls
}

// usable returns the symbols that a query can be built from and that keep.
// The blank identifier and names that need quoting are left out.
// KeyCalls builds n calls of tool, each naming by its stable key a
// function, method or type declared outside tests, drawn from syms by rng:
// the questions of find_references and get_impact.
func KeyCalls(tool string, syms []graph.Symbol, n int, rng *rand.Rand) []Call {
	code := usable(syms, func(s graph.Symbol) bool {
		return !s.TestOnly && (s.Kind == graph.KindFunc || s.Kind == graph.KindMethod || s.Kind == graph.KindType)
	})
	if len(code) == 0 {
		return nil
	}
	calls := make([]Call, n)
	for i := range calls {
		calls[i] = Call{Tool: tool, Mode: "key", Args: map[string]any{"stable_key": code[rng.IntN(len(code))].Key}}
	}
	return calls
}

func usable(syms []graph.Symbol, keep func(graph.Symbol) bool) []graph.Symbol {
	var out []graph.Symbol
	for _, s := range syms {
		if s.Name == "" || s.Name == "_" || strings.TrimSpace(s.Name) != s.Name || !keep(s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// prefix returns the first n characters of s (all of s when shorter).
func prefix(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

// substring returns n characters of s starting at a random offset (all of
// s when shorter).
func substring(s string, n int, rng *rand.Rand) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	at := rng.IntN(len(r) - n + 1)
	return string(r[at : at+n])
}

// Abbreviate shortens name the way a person types a fuzzy camel-case
// query: each hump (NewServeMux: New, Serve, Mux) keeps its first letter
// and, in order, a random choice of up to two more, so the result is
// always a hump-wise subsequence of name (NwSrvMx, NSM, NeSeMu). Digit
// runs are kept whole; humps after an underscore stay separated by one.
func Abbreviate(name string, rng *rand.Rand) string {
	var b strings.Builder
	for i, h := range humps(name) {
		if i > 0 && h.afterUnderscore {
			b.WriteByte('_')
		}
		r := h.runes
		if unicode.IsDigit(r[0]) {
			b.WriteString(string(r))
			continue
		}
		b.WriteRune(r[0])
		rest := r[1:]
		keep := min(rng.IntN(3), len(rest))
		// Choose keep of the remaining letters, in order.
		for j := 0; j < len(rest) && keep > 0; j++ {
			if rng.IntN(len(rest)-j) < keep {
				b.WriteRune(rest[j])
				keep--
			}
		}
	}
	return b.String()
}

type hump struct {
	runes           []rune
	afterUnderscore bool
}

// humps splits name at upper-case letters, digit runs and underscores,
// keeping acronyms whole (HTTPServer: HTTP, Server), as the name table's
// fuzzy match does.
func humps(name string) []hump {
	var out []hump
	for i, part := range strings.Split(name, "_") {
		for j, h := range names.SplitHumps(part, true) {
			out = append(out, hump{h, i > 0 && j == 0})
		}
	}
	return out
}
