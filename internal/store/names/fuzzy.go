package names

import (
	"unicode"
)

// A fuzzy query is split into camel-case humps at upper-case letters,
// digit runs and underscores: NewSrvMux is New, Srv, Mux. A name matches
// when each query hump, in order, is a case-insensitive subsequence of a
// distinct, later name hump that begins with the same letter: New ⊂ New,
// Srv ⊂ Serve, Mux ⊂ Mux, so NewSrvMux finds NewServeMux. The match is not
// anchored: SrvMux finds NewServeMux too (ranked after ServeMux, which it
// also finds, by the usual ordering).
//
// A name is split twice, once at every upper-case letter (HTTPServer is H,
// T, T, P, Server, so HSrv and HTTPSrv match it) and once keeping acronyms
// whole (HTTP, Server, so HttpSrv matches it); either split may match.

// SplitHumps splits s into humps at upper-case letters, digit runs and
// underscores (which belong to no hump). With acronyms, a run of upper-case
// letters stays one hump, except that its last letter starts the next hump
// when a lower-case letter follows it (HTTPServer: HTTP, Server).
func SplitHumps(s string, acronyms bool) [][]rune {
	rs := []rune(s)
	var out [][]rune
	start := -1
	for i, r := range rs {
		if r == '_' {
			if start >= 0 {
				out = append(out, rs[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		var boundary bool
		switch {
		case unicode.IsDigit(r):
			boundary = !unicode.IsDigit(prev)
		case unicode.IsDigit(prev):
			boundary = true
		case unicode.IsUpper(r):
			boundary = !acronyms || !unicode.IsUpper(prev) || i+1 < len(rs) && unicode.IsLower(rs[i+1])
		}
		if boundary {
			out = append(out, rs[start:i])
			start = i
		}
	}
	if start >= 0 {
		out = append(out, rs[start:])
	}
	return out
}

// lowerRunes lower-cases humps in place, the way strings.ToLower does.
func lowerRunes(humps [][]rune) [][]rune {
	for _, h := range humps {
		for i, r := range h {
			h[i] = unicode.ToLower(r)
		}
	}
	return humps
}

// fuzzyMatcher matches names against one fuzzy query.
type fuzzyMatcher struct {
	humps [][]rune // the query's humps, lower-cased
}

func newFuzzyMatcher(query string) *fuzzyMatcher {
	return &fuzzyMatcher{humps: lowerRunes(SplitHumps(query, false))}
}

// match reports whether name matches the query.
func (m *fuzzyMatcher) match(name string) bool {
	if len(m.humps) == 0 {
		return true
	}
	if matchHumps(m.humps, lowerRunes(SplitHumps(name, false))) {
		return true
	}
	return matchHumps(m.humps, lowerRunes(SplitHumps(name, true)))
}

// matchSplit is match on a name already split both ways (Table.humps).
func (m *fuzzyMatcher) matchSplit(h entryHumps) bool {
	if len(m.humps) == 0 {
		return true
	}
	if matchHumps(m.humps, h.plain) {
		return true
	}
	return h.acronym != nil && matchHumps(m.humps, h.acronym)
}

// matchHumps reports whether each query hump is a subsequence of a distinct
// name hump with the same first rune, in order. Taking the earliest name
// hump that fits each query hump is optimal, so no backtracking is needed.
func matchHumps(query, name [][]rune) bool {
	j := 0
	for _, qh := range query {
		for j < len(name) && !(name[j][0] == qh[0] && subsequence(qh[1:], name[j][1:])) {
			j++
		}
		if j == len(name) {
			return false
		}
		j++
	}
	return true
}

// subsequence reports whether a's runes occur in b in order.
func subsequence(a, b []rune) bool {
	i := 0
	for _, r := range b {
		if i == len(a) {
			break
		}
		if r == a[i] {
			i++
		}
	}
	return i == len(a)
}
