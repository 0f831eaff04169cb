package textindex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Words calls fn with each token of text as SQLite's FTS5 tokenizer
// "unicode61" gives it: runs of letters, digits and private-use
// characters, folded to lower case with their diacritics removed. Stem
// makes each the term "porter unicode61" indexes. The text the stores
// index is words already (graph.SearchWords), so in practice this
// splits at spaces.
func Words(text string, fn func(word string)) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && !isASCIIWord(c) {
			i++
			continue
		}
		j, ascii := i, true
		for j < len(text) {
			c := text[j]
			if c < utf8.RuneSelf {
				if !isASCIIWord(c) {
					break
				}
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			j += size
		}
		if j == i {
			// A non-ASCII separator.
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		word := text[i:j]
		if ascii {
			word = lowerASCII(word)
		} else if word = fold(word); word == "" {
			i = j
			continue
		}
		fn(word)
		i = j
	}
}

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isWordRune is unicode61's token character outside ASCII: a letter, a
// number, a private-use character, or one of the combining marks SQLite
// counts as diacritics (kept in the token and then dropped by fold);
// any other combining mark separates tokens.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r) || isDiacritic(r)
}

// isDiacritic reports whether r is one of the combining marks of
// U+0300 to U+0331 that SQLite's unicode61 treats as diacritics.
func isDiacritic(r rune) bool {
	const low, high = 0x08029FDF, 0x000361F8 // U+0300-031F, U+0320-0331
	switch {
	case r < 0x300 || r > 0x331:
		return false
	case r < 0x320:
		return low&(1<<(r-0x300)) != 0
	}
	return high&(1<<(r-0x320)) != 0
}

func lowerASCII(w string) string {
	for i := 0; i < len(w); i++ {
		if 'A' <= w[i] && w[i] <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// fold case-folds a word holding non-ASCII characters and removes the
// diacritic of a letter made of one letter and one mark (é → e, but not
// ǡ, which has two), as unicode61 does by default.
func fold(w string) string {
	var b strings.Builder
	for _, r := range w {
		if isDiacritic(r) {
			continue
		}
		if d := []rune(norm.NFD.String(string(r))); len(d) == 2 && unicode.Is(unicode.Mn, d[1]) {
			r = d[0]
		}
		// Folded, not just lowered: µ is μ, ſ is s, ς is σ.
		b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	}
	return b.String()
}

// maxStemmed is the longest token, in bytes, FTS5's porter stemmer
// stems; a longer one, or one under three bytes, is its own term.
const maxStemmed = 64

// Stem returns the stem of a lower-case token by the Porter algorithm as
// FTS5's porter tokenizer implements it, so that a term stemmed here is
// the term SQLite's full-text index holds: its steps, in order, match the
// first rule whose suffix ends the word (leaving a stem of at least one
// letter) and apply it only when the rule's condition holds on the stem.
func Stem(w string) string {
	if len(w) < 3 || len(w) > maxStemmed {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	var again bool
	if b, again = step1b(b); again {
		if nb, ok := applyFirst(b, step1b2); ok {
			b = nb
		} else if c := b[len(b)-1]; !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && len(b) > 1 && c == b[len(b)-2] {
			b = b[:len(b)-1]
		} else if measureIs1(b) && endsCVC(b) {
			b = append(b, 'e')
		}
	}
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	for _, step := range [][]rule{step2, step3, step4} {
		b, _ = applyFirst(b, step)
	}
	if b[len(b)-1] == 'e' {
		stem := b[:len(b)-1]
		if measureOver1(stem) || measureIs1(stem) && !endsCVC(stem) {
			b = stem
		}
	}
	if len(b) > 1 && b[len(b)-1] == 'l' && b[len(b)-2] == 'l' && measureOver1(b[:len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// rule replaces a suffix with out when cond holds on the stem before it
// (nil: always).
type rule struct {
	suffix, out string
	cond        func(stem []byte) bool
}

// applyFirst applies the first rule of rules whose suffix ends b with at
// least one byte before it; it reports whether that rule's condition
// held. Later rules are not tried once a suffix matched.
func applyFirst(b []byte, rules []rule) ([]byte, bool) {
	for _, r := range rules {
		if len(b) <= len(r.suffix) || string(b[len(b)-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := b[:len(b)-len(r.suffix)]
		if r.cond != nil && !r.cond(stem) {
			return b, false
		}
		return append(stem, r.out...), true
	}
	return b, false
}

// step1a folds plurals: sses → ss, ies → i, s → "" (but not ss).
func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e' && (n > 4 && b[n-4] == 's' && b[n-3] == 's' || n > 3 && b[n-3] == 'i'):
		return b[:n-2]
	case b[n-2] == 'e':
		return b[:n-1]
	case b[n-2] != 's':
		return b[:n-1]
	}
	return b
}

// step1b folds -eed, -ed and -ing; it reports whether -ed or -ing went,
// after which step1b2 and its follow-ups run.
func step1b(b []byte) ([]byte, bool) {
	for _, r := range step1bRules {
		if len(b) <= len(r.suffix) || string(b[len(b)-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := b[:len(b)-len(r.suffix)]
		if !r.cond(stem) {
			return b, false
		}
		return append(stem, r.out...), r.suffix != "eed"
	}
	return b, false
}

var step1bRules = []rule{{"eed", "ee", measureOver0}, {"ed", "", hasVowel}, {"ing", "", hasVowel}}

var step1b2 = []rule{{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil}}

var step2 = []rule{
	{"ational", "ate", measureOver0}, {"tional", "tion", measureOver0},
	{"enci", "ence", measureOver0}, {"anci", "ance", measureOver0},
	{"izer", "ize", measureOver0},
	{"logi", "log", measureOver0},
	{"bli", "ble", measureOver0}, {"alli", "al", measureOver0}, {"entli", "ent", measureOver0},
	{"eli", "e", measureOver0}, {"ousli", "ous", measureOver0},
	{"ization", "ize", measureOver0}, {"ation", "ate", measureOver0}, {"ator", "ate", measureOver0},
	{"alism", "al", measureOver0}, {"iveness", "ive", measureOver0}, {"fulness", "ful", measureOver0},
	{"ousness", "ous", measureOver0},
	{"aliti", "al", measureOver0}, {"iviti", "ive", measureOver0}, {"biliti", "ble", measureOver0},
}

var step3 = []rule{
	{"ical", "ic", measureOver0},
	{"ness", "", measureOver0},
	{"icate", "ic", measureOver0}, {"iciti", "ic", measureOver0},
	{"ful", "", measureOver0},
	{"ative", "", measureOver0},
	{"alize", "al", measureOver0},
}

var step4 = []rule{
	{"al", "", measureOver1},
	{"ance", "", measureOver1}, {"ence", "", measureOver1},
	{"er", "", measureOver1},
	{"ic", "", measureOver1},
	{"able", "", measureOver1}, {"ible", "", measureOver1},
	{"ant", "", measureOver1}, {"ement", "", measureOver1}, {"ment", "", measureOver1}, {"ent", "", measureOver1},
	{"ion", "", func(s []byte) bool { return (s[len(s)-1] == 's' || s[len(s)-1] == 't') && measureOver1(s) }},
	{"ou", "", measureOver1},
	{"ism", "", measureOver1},
	{"ate", "", measureOver1}, {"iti", "", measureOver1},
	{"ous", "", measureOver1},
	{"ive", "", measureOver1},
	{"ize", "", measureOver1},
}

// isVowel: a, e, i, o, u, and y when yVowel (y after a consonant).
func isVowel(c byte, yVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || yVowel && c == 'y'
}

// vowelThenConsonant returns the length of the shortest prefix of s that
// holds a vowel followed by a consonant, 0 when none does; prevConsonant
// says whether the byte before s was a consonant (which makes a first y
// a vowel).
func vowelThenConsonant(s []byte, prevConsonant bool) int {
	cons := prevConsonant
	i := 0
	for ; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

// measureOver0 is Porter's m > 0: the stem holds a vowel-consonant pair.
func measureOver0(s []byte) bool { return vowelThenConsonant(s, false) > 0 }

// measureOver1 is m > 1: two such pairs.
func measureOver1(s []byte) bool {
	n := vowelThenConsonant(s, false)
	return n > 0 && vowelThenConsonant(s[n:], true) > 0
}

// measureIs1 is m = 1: exactly one.
func measureIs1(s []byte) bool {
	n := vowelThenConsonant(s, false)
	return n > 0 && vowelThenConsonant(s[n:], true) == 0
}

// endsCVC is Porter's *o: the stem ends consonant, vowel, consonant, the
// last not w, x or y.
func endsCVC(s []byte) bool {
	switch s[len(s)-1] {
	case 'w', 'x', 'y':
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is Porter's *v*: the stem holds a vowel (y counts after the
// first letter, as FTS5 reads it).
func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
