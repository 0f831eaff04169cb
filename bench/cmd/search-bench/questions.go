package main

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
)

// question is one question with its answer: the symbol (package path
// and qualified name; any of its definitions, per platform, counts).
type question struct {
	Kind     string   `json:"kind"` // "generated" or "written"
	Question string   `json:"question"`
	Package  string   `json:"package"`
	Answer   string   `json:"answer"`         // qualified name
	Also     []string `json:"also,omitempty"` // other answers that count (written questions; PKG#QN in another package)
	// Key is the answer's stable key (generated questions): its doc
	// comment is masked while the question is asked.
	Key string `json:"key,omitempty"`
}

// minDocWords is how long a doc comment must be for its symbol to get a
// generated question.
const minDocWords = 8

// minQuestionWords is how many words besides stop words a generated
// question must keep once the symbol's name is removed; fewer say
// nothing anyone could search for ("will the to the", "one to another").
const minQuestionWords = 3

// generate makes a question of each documented exported function,
// method and type outside tests and commands, and returns a seeded
// sample of at most n of them (all when n <= 0) with how many were
// eligible. Definitions of one name (per platform) make one question;
// a question asked alike of several names is dropped.
func generate(syms []graph.Symbol, n int, seed uint64) ([]question, int) {
	var out []question
	seen := map[string]bool{}
	for _, s := range syms {
		switch s.Kind {
		case graph.KindFunc, graph.KindMethod, graph.KindType, graph.KindInterface:
		default:
			continue
		}
		if !s.Exported || s.TestOnly || s.PackageName == "main" || len(strings.Fields(s.Doc)) < minDocWords {
			continue
		}
		id := s.PackagePath + "." + s.QualifiedName
		if seen[id] {
			continue
		}
		seen[id] = true
		q := questionOf(s.Doc, s.Name)
		if len(queryWords(q)) < minQuestionWords {
			continue
		}
		out = append(out, question{Kind: "generated", Question: q, Package: s.PackagePath, Answer: s.QualifiedName, Key: s.Key})
	}
	// A question that several symbols' comments make alike ("defines a
	// flag with specified name, default value, and usage string", said
	// of forty functions) has no one answer: none of them is asked.
	times := map[string]int{}
	for _, q := range out {
		times[q.Question]++
	}
	out = slices.DeleteFunc(out, func(q question) bool { return times[q.Question] > 1 })
	eligible := len(out)
	slices.SortFunc(out, func(a, b question) int {
		return cmp.Or(strings.Compare(a.Package, b.Package), strings.Compare(a.Answer, b.Answer))
	})
	if n > 0 && len(out) > n {
		rng := rand.New(rand.NewPCG(seed, 0x5eec4))
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:n]
		slices.SortFunc(out, func(a, b question) int {
			return cmp.Or(strings.Compare(a.Package, b.Package), strings.Compare(a.Answer, b.Answer))
		})
	}
	return out, eligible
}

// questionOf is the question a doc comment's first sentence asks of
// the symbol name: the sentence without the name and without any word
// of the name ("ParseDuration parses a duration string" asks "parses a
// string"), nor code in backquotes naming it.
func questionOf(doc, name string) string {
	first := firstSentence(doc)
	drop := map[string]bool{strings.ToLower(name): true}
	for _, w := range graph.SearchWords(name) {
		drop[w] = true
	}
	var kept []string
	for _, f := range strings.Fields(first) {
		word := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if word == "" {
			continue
		}
		lw := strings.ToLower(word)
		if drop[lw] || drop[strings.TrimSuffix(lw, "s")] || drop[strings.TrimSuffix(lw, "'s")] {
			continue
		}
		// An identifier holding a word of the name (Client.Do, doRequest)
		// goes too.
		if parts := graph.SearchWords(word); len(parts) > 1 && slices.ContainsFunc(parts, func(p string) bool { return drop[p] }) {
			continue
		}
		kept = append(kept, word)
	}
	return strings.Join(kept, " ")
}

// firstSentence is a doc comment's first sentence: up to the first
// period followed by a space or the end, within its first paragraph.
func firstSentence(doc string) string {
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	for i := 0; i < len(doc); i++ {
		if doc[i] == '.' && (i+1 == len(doc) || doc[i+1] == ' ') {
			return doc[:i]
		}
	}
	return doc
}

// matches reports whether a result (package path, qualified name) is
// q's answer.
func (q question) matches(pkg, qn string) bool {
	return harness.AnswerMatches(q.Package, q.Answer, q.Also, pkg, qn)
}
