package query

import (
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// languageTools are the tools that answer for a symbol of any indexed
// language (Go, TypeScript, JavaScript, Python), from the graph.
const languageTools = "find_symbol, get_symbol, get_file_outline, read_source, find_references, find_implementations, get_callers, get_callees, search_code"

// goOnly is the UNSUPPORTED_LANGUAGE error of a tool that reads Go's
// types or SSA (explain_effects, explain_type, infer_type, render_ssa)
// asked about a symbol of another language; nil for a Go symbol.
func goOnly(sym graph.Symbol, tool string) error {
	if sym.IsGo() {
		return nil
	}
	return unsupported(sym.Lang(), sym.QualifiedName+" ("+sym.Path+")", tool)
}

// goOnlyFile is goOnly for a file named by its path: nil unless its
// extension is one of another indexed language's.
func goOnlyFile(p, tool string) error {
	if lang := graph.LanguageOf(p); lang != "" && lang != graph.LanguageGo {
		return unsupported(lang, p, tool)
	}
	return nil
}

func unsupported(lang, what, tool string) error {
	return graph.Errorf(graph.CodeUnsupportedLanguage,
		"%s is %s; %s reads Go's types and answers for Go alone; for %s use %s",
		what, graph.LanguageName(lang), tool, graph.LanguageName(lang), languageTools).
		WithData("language", lang).WithData("tools", strings.Split(languageTools, ", "))
}
