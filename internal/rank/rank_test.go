package rank

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

func TestSameWord(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"profiles", "profile", true},
		{"analysis", "analyze", true},
		{"encode", "encoder", true},
		{"delete", "deletion", true},
		{"suggest", "suggestions", true},
		{"parse", "parsing", true},
		{"execute", "executor", true},
		{"generate", "generation", true},
		{"interface", "internal", false}, // a common start is not a root
		{"transform", "transport", false},
		{"stat", "static", false},
		{"list", "listen", false},
		{"form", "format", false},
		{"run", "ran", false},
		{"hide", "hidden", true}, // irregular forms
		{"find", "found", true},
		{"write", "written", true},
		{"map", "mapper", false}, // roots shorter than four letters are not folded
	} {
		if got := sameWord(tc.a, tc.b); got != tc.want {
			t.Errorf("sameWord(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := sameWord(tc.b, tc.a); got != tc.want {
			t.Errorf("sameWord(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestResultsOf(t *testing.T) {
	for _, tc := range []struct{ sig, name, want string }{
		{"func (c *Command) ExecuteC() (cmd *Command, err error)", "ExecuteC", "(cmd *Command, err error)"},
		{"func (c *Command) Execute() error", "Execute", "error"},
		{"func Apply(src string, edits []Edit) (string, error)", "Apply", "(string, error)"},
		{"func Map[T, U any](xs []T, f func(T) U) []U", "Map", "[]U"},
		{"func (c *Command) SetOut(w io.Writer)", "SetOut", ""},
		{"type Command struct", "Command", ""},
	} {
		if got := resultsOf(tc.sig, tc.name); got != tc.want {
			t.Errorf("resultsOf(%q) = %q, want %q", tc.sig, got, tc.want)
		}
	}
}

func TestSummaryWords(t *testing.T) {
	for _, tc := range []struct {
		doc, name string
		want      []string
	}{
		{"Process formats and adjusts imports for the provided file. If opt is nil the defaults are used.", "Process",
			[]string{"formats", "and", "adjusts", "imports", "for", "the", "provided", "file"}},
		{"A Result holds the results of Rapid Type Analysis.\n\nMore.", "Result",
			[]string{"holds", "the", "results", "of", "rapid", "type", "analysis"}},
		{"Find the target command given the args and command tree", "Find",
			[]string{"the", "target", "command", "given", "the", "args", "and", "command", "tree", "arguments"}},
		{"", "X", nil},
	} {
		if got := summaryWords(tc.doc, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("summaryWords(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

func TestQuestionWords(t *testing.T) {
	words, concepts := Question("execute the root command and return the command that ran")
	if want := []string{"execute", "root", "command", "return", "ran"}; !slices.Equal(words, want) {
		t.Errorf("words = %q, want %q", words, want)
	}
	var got []string
	for _, c := range concepts {
		s := c.forms[0]
		if c.result {
			s += " (result)"
		}
		got = append(got, s)
	}
	// Words after "return" (and "command" again) are what the question
	// wants back.
	if want := []string{"execute", "root", "command (result)", "ran (result)"}; !slices.Equal(got, want) {
		t.Errorf("concepts = %q, want %q", got, want)
	}
	words, concepts = Question("walk the ast")
	if want := []string{"walk", "ast", "traverse", "visit", "syntax"}; !slices.Equal(words, want) {
		t.Errorf("words = %q, want %q", words, want)
	}
	if len(concepts) != 2 || !slices.Equal(concepts[0].forms, []string{"walk", "traverse", "visit"}) {
		t.Errorf("concepts = %v, want walk (traverse, visit) and ast (syntax)", concepts)
	}
}

func TestRankSignals(t *testing.T) {
	_, concepts := Question("execute the command and return the command")
	execC := graph.Symbol{Name: "ExecuteC", Kind: graph.KindMethod, Signature: "func (c *Command) ExecuteC() (cmd *Command, err error)"}
	exec := graph.Symbol{Name: "Execute", Kind: graph.KindMethod, Signature: "func (c *Command) Execute() error"}
	if a, b := resultBoost(deriveWords(execC), concepts), resultBoost(deriveWords(exec), concepts); a <= b {
		t.Errorf("resultBoost: ExecuteC %v, Execute %v; want ExecuteC above", a, b)
	}
	_, concepts = Question("rapid type analysis")
	full := graph.Symbol{Name: "Analyze", QualifiedName: "Analyze", Doc: "Analyze performs Rapid Type Analysis, starting at the roots."}
	part := graph.Symbol{Name: "Analyze", QualifiedName: "Analyze", Doc: "Analyze performs an analysis."}
	if a, b := coverageBoost(deriveWords(full), concepts), coverageBoost(deriveWords(part), concepts); a != 2 || b >= a {
		t.Errorf("coverageBoost: %v and %v; want 2 and less", a, b)
	}
	// A concept its signature says counts, less than one its name says:
	// "decode into a pointer v" and Unmarshal(data []byte, v any).
	_, concepts = Question("decode the data into a pointer v")
	withSig := graph.Symbol{Name: "Unmarshal", QualifiedName: "Unmarshal", Signature: "func Unmarshal(data []byte, v any) error"}
	without := graph.Symbol{Name: "Unmarshal", QualifiedName: "Unmarshal", Signature: "func Unmarshal() error"}
	named := graph.Symbol{Name: "DecodeData", QualifiedName: "DecodeData", Signature: "func DecodeData() error"}
	if a, b, c := coverageBoost(deriveWords(withSig), concepts), coverageBoost(deriveWords(without), concepts), coverageBoost(deriveWords(named), concepts); a <= b || a >= c {
		t.Errorf("coverageBoost: signature %v, none %v, name %v; want between", a, b, c)
	}
	for doc, want := range map[string]bool{
		"Deprecated: use Other.":                  true,
		"Unparen strips.\n\nDeprecated: use ast.": true,
		"It is not Deprecated: really.":           false,
		"":                                        false,
	} {
		if got := deprecated(doc); got != want {
			t.Errorf("deprecated(%q) = %v, want %v", doc, got, want)
		}
	}
}

// TestIrregularFirst: every irregular form starts with the letter of its
// verb, which sameWord's first test relies on.
func TestIrregularFirst(t *testing.T) {
	for form, verb := range irregular {
		if form[0] != verb[0] {
			t.Errorf("irregular %q → %q: first letters differ; sameWord would not match them", form, verb)
		}
		if !sameWord(form, verb) || !sameWord(verb, form) {
			t.Errorf("sameWord(%q, %q) = false", form, verb)
		}
	}
}

// TestQuestionCompounds: words a question writes apart that code writes
// as one are searched for joined, as a form of both words' concepts;
// other neighbours are not joined.
func TestQuestionCompounds(t *testing.T) {
	for _, tc := range []struct {
		question string
		joined   string // searched for, a form of the concepts of from
		from     []string
	}{
		{"look up a flag by its name", "lookup", []string{"look", "up"}},
		{"lex a multi-line string", "multiline", []string{"multi", "line"}},
		{"shut down the server", "shutdown", []string{"shut", "down"}},
		{"keys that were not decoded into the value", "undecoded", []string{"decoded"}},
	} {
		words, concepts := Question(tc.question)
		if !slices.Contains(words, tc.joined) {
			t.Errorf("%q: words %q, want %q among them", tc.question, words, tc.joined)
		}
		for _, c := range concepts {
			if slices.Contains(tc.from, c.forms[0]) != slices.Contains(c.forms, tc.joined) {
				t.Errorf("%q: concept %q has forms %q; want %q among them only for %q", tc.question, c.forms[0], c.forms, tc.joined, tc.from)
			}
		}
	}
	for _, q := range []string{"get the string value of a flag", "lexer state for the top level", "Not Decoded", "look"} {
		words, _ := Question(q)
		if n := len(words); n != len(unjoined(q)) {
			t.Errorf("%q: words %q; want no word joined", q, words)
		}
	}
}

// unjoined is the question's words as Question finds them without joining
// any: each non-stop word once, with synonyms.
func unjoined(q string) []string {
	var out []string
	for _, w := range graph.SearchWords(q) {
		if !stopWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
			out = append(out, synonyms[w]...)
		}
	}
	return out
}

// TestKindWeight: the kind's fitted weight ranks a function above a
// field its full-text score matches, by kindWeight cubed.
func TestKindWeight(t *testing.T) {
	_, concepts := Question("retry policy")
	score := func(k graph.Kind) float64 {
		sym := graph.Symbol{Name: "Policy", QualifiedName: "Client.Policy", Kind: k, Exported: true, PackagePath: "example.com/retry"}
		f := hitFeatures(graph.TextHit{Symbol: sym, Score: 10}, deriveWords(sym), concepts, "rp")
		return f.score()
	}
	fn, field := score(graph.KindFunc), score(graph.KindField)
	if want := math.Pow(1/0.6, 3); math.Abs(fn/field-want) > 1e-9 {
		t.Errorf("function %v, field %v: ratio %v, want %v", fn, field, fn/field, want)
	}
}

// TestTrace: a ranking's trace line names its question as TraceKey does
// and holds every hit's features in FeatureNames' order.
func TestTrace(t *testing.T) {
	const q = "look up a flag by its name"
	_, concepts := Question(q)
	hits := []graph.TextHit{
		{Symbol: graph.Symbol{PackagePath: "p", QualifiedName: "FlagSet.Lookup"}, Score: 3},
		{Symbol: graph.Symbol{PackagePath: "p", QualifiedName: "Lookup"}, Score: 2},
	}
	fs := []features{{1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1}}
	var b bytes.Buffer
	if err := writeTrace(&b, concepts, []scored{{hits[0], fs[0]}, {hits[1], fs[1]}}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b.Bytes(), []byte("\n")); n != 1 {
		t.Fatalf("%d lines, want 1:\n%s", n, b.String())
	}
	var line TraceLine
	if err := json.Unmarshal(b.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line.Question != TraceKey(q) || !slices.Equal(line.Features, FeatureNames()) || len(line.Hits) != 2 {
		t.Fatalf("line %+v", line)
	}
	for i, h := range line.Hits {
		if h.QualifiedName != hits[i].Symbol.QualifiedName || !slices.Equal(h.Features, fs[i][:]) {
			t.Errorf("hit %d: %+v, want %s with %v", i, h, hits[i].Symbol.QualifiedName, fs[i])
		}
	}
}
