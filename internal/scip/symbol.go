package scip

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Suffix is how a descriptor ends, which says what it names.
type Suffix uint8

// The descriptor suffixes of the SCIP symbol grammar.
const (
	SuffixNamespace     Suffix = iota + 1 // name/
	SuffixType                            // name#
	SuffixTerm                            // name.
	SuffixMethod                          // name(disambiguator).
	SuffixTypeParameter                   // [name]
	SuffixParameter                       // (name)
	SuffixMeta                            // name:
	SuffixMacro                           // name!
)

// Descriptor is one step of a global symbol's path.
type Descriptor struct {
	Name          string
	Disambiguator string // methods only: tells overloads apart
	Suffix        Suffix
}

// Package is the package a global symbol belongs to; "." in the symbol
// (an empty value) is "" here.
type Package struct {
	Manager, Name, Version string
}

// Symbol is a parsed SCIP symbol string: a local one (Local set, the rest
// empty) or a global one.
type Symbol struct {
	Local       string
	Scheme      string
	Package     Package
	Descriptors []Descriptor
}

// IsLocal reports whether the symbol is local to its document.
func (s Symbol) IsLocal() bool { return s.Local != "" }

// ErrSymbol is wrapped by every error of ParseSymbol.
var ErrSymbol = errors.New("invalid scip symbol")

// IsLocalSymbol reports whether the symbol string s is a local symbol,
// without parsing it.
func IsLocalSymbol(s string) bool { return strings.HasPrefix(s, "local ") }

// ParseSymbol parses s by the grammar of scip.proto:
//
//	<symbol>     ::= <scheme> ' ' <package> ' ' (<descriptor>)+ | 'local ' <local-id>
//	<package>    ::= <manager> ' ' <package-name> ' ' <version>
//	<descriptor> ::= <name> '/' | <name> '#' | <name> '.' | <name> ':' | <name> '!'
//	               | <name> '(' (<method-disambiguator>)? ').' | '[' <name> ']' | '(' <name> ')'
//	<name>       ::= <simple-identifier> | '`' escaped, with '``' for a backtick '`'
//
// The scheme and package fields escape a space as two spaces and write an
// empty value as ".". Simple identifiers are taken to be letters and
// digits of any script besides '_', '+', '-' and '$' (the grammar says
// ASCII; indexers write identifiers of other scripts unescaped).
func ParseSymbol(s string) (Symbol, error) {
	if strings.HasPrefix(s, "local ") {
		id := s[len("local "):]
		if id == "" || !allSimple(id) {
			return Symbol{}, fmt.Errorf("%w: local id %q", ErrSymbol, id)
		}
		return Symbol{Local: id}, nil
	}
	p := symbolParser{s: s}
	var fields [4]string
	for i := range fields {
		f, err := p.spaced()
		if err != nil {
			return Symbol{}, err
		}
		fields[i] = f
	}
	if fields[0] == "" || fields[0] == "local" {
		return Symbol{}, fmt.Errorf("%w: scheme %q", ErrSymbol, fields[0])
	}
	for i := 1; i < 4; i++ {
		if fields[i] == "." {
			fields[i] = ""
		}
	}
	sym := Symbol{Scheme: fields[0], Package: Package{fields[1], fields[2], fields[3]}}
	if p.i == len(s) {
		return Symbol{}, fmt.Errorf("%w: no descriptor in %q", ErrSymbol, s)
	}
	for p.i < len(s) {
		d, err := p.descriptor()
		if err != nil {
			return Symbol{}, err
		}
		sym.Descriptors = append(sym.Descriptors, d)
	}
	return sym, nil
}

type symbolParser struct {
	s string
	i int
}

func (p *symbolParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d of %q", ErrSymbol, what, p.i, p.s)
}

// spaced reads one space-terminated field, two spaces standing for one.
func (p *symbolParser) spaced() (string, error) {
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c != ' ' {
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 < len(p.s) && p.s[p.i+1] == ' ' {
			b.WriteByte(' ')
			p.i += 2
			continue
		}
		p.i++
		if b.Len() == 0 {
			return "", p.fail("empty field")
		}
		return b.String(), nil
	}
	return "", p.fail("missing field")
}

func (p *symbolParser) descriptor() (Descriptor, error) {
	switch p.s[p.i] {
	case '[', '(':
		open := p.s[p.i]
		close, suffix := byte(']'), SuffixTypeParameter
		if open == '(' {
			close, suffix = ')', SuffixParameter
		}
		p.i++
		name, err := p.name()
		if err != nil {
			return Descriptor{}, err
		}
		if !p.eat(close) {
			return Descriptor{}, p.fail("unclosed " + string(open))
		}
		return Descriptor{Name: name, Suffix: suffix}, nil
	}
	name, err := p.name()
	if err != nil {
		return Descriptor{}, err
	}
	if p.i == len(p.s) {
		return Descriptor{}, p.fail("descriptor without suffix")
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case '/':
		return Descriptor{Name: name, Suffix: SuffixNamespace}, nil
	case '#':
		return Descriptor{Name: name, Suffix: SuffixType}, nil
	case '.':
		return Descriptor{Name: name, Suffix: SuffixTerm}, nil
	case ':':
		return Descriptor{Name: name, Suffix: SuffixMeta}, nil
	case '!':
		return Descriptor{Name: name, Suffix: SuffixMacro}, nil
	case '(':
		dis := p.simpleRun()
		if !p.eat(')') || !p.eat('.') {
			return Descriptor{}, p.fail("method without ').'")
		}
		return Descriptor{Name: name, Disambiguator: dis, Suffix: SuffixMethod}, nil
	}
	p.i--
	return Descriptor{}, p.fail(fmt.Sprintf("unknown suffix %q", c))
}

// simpleRun reads the simple identifier characters from here and returns
// them.
func (p *symbolParser) simpleRun() string {
	start := p.i
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if !simple(r) {
			break
		}
		p.i += n
	}
	return p.s[start:p.i]
}

func (p *symbolParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// name reads a simple or backtick-escaped identifier.
func (p *symbolParser) name() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '`' {
		p.i++
		var b strings.Builder
		for p.i < len(p.s) {
			c := p.s[p.i]
			p.i++
			if c != '`' {
				b.WriteByte(c)
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '`' {
				b.WriteByte('`')
				p.i++
				continue
			}
			if b.Len() == 0 {
				return "", p.fail("empty escaped name")
			}
			return b.String(), nil
		}
		return "", p.fail("unclosed backtick")
	}
	start := p.i
	p.simpleRun()
	if p.i == start {
		return "", p.fail("empty name")
	}
	return p.s[start:p.i], nil
}

// simple reports whether r may appear in a simple identifier.
func simple(r rune) bool {
	return r == '_' || r == '+' || r == '-' || r == '$' ||
		r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func allSimple(s string) bool {
	for _, r := range s {
		if !simple(r) {
			return false
		}
	}
	return s != ""
}

// String writes the symbol back in the grammar's form: ParseSymbol of it
// gives s again.
func (s Symbol) String() string {
	if s.IsLocal() {
		return "local " + s.Local
	}
	var b strings.Builder
	field := func(v string, dot bool) {
		if v == "" && dot {
			v = "."
		}
		b.WriteString(strings.ReplaceAll(v, " ", "  "))
		b.WriteByte(' ')
	}
	field(s.Scheme, false)
	field(s.Package.Manager, true)
	field(s.Package.Name, true)
	field(s.Package.Version, true)
	for _, d := range s.Descriptors {
		b.WriteString(d.String())
	}
	return b.String()
}

// String writes one descriptor with its suffix.
func (d Descriptor) String() string {
	name := escapeName(d.Name)
	switch d.Suffix {
	case SuffixNamespace:
		return name + "/"
	case SuffixType:
		return name + "#"
	case SuffixTerm:
		return name + "."
	case SuffixMeta:
		return name + ":"
	case SuffixMacro:
		return name + "!"
	case SuffixMethod:
		return name + "(" + d.Disambiguator + ")."
	case SuffixTypeParameter:
		return "[" + name + "]"
	case SuffixParameter:
		return "(" + name + ")"
	}
	return name
}

func escapeName(n string) string {
	if allSimple(n) {
		return n
	}
	return "`" + strings.ReplaceAll(n, "`", "``") + "`"
}
