package load

import (
	"bytes"
	"encoding/binary"
	"go/token"
	"unicode"
	"unicode/utf8"
)

// blankBodies returns src with the inside of each function declaration's
// body blanked: every byte between its braces but line feeds turned into
// a space, so that every position outside the bodies stays where it was.
// A dependency is type-checked without its function bodies
// (types.Config.IgnoreFuncBodies), and parsing them was most of the
// parser's work and memory on a first load; a blank body parses at the
// scanner's speed into an empty block.
//
// Only the bodies of top-level func declarations are blanked: a brace
// after func elsewhere may open a composite literal of a func-typed array
// ([...]func(){f, g}), whose length is part of a type. A file with a line
// directive (//line at the start of a line, /*line) is returned as it is: one inside a body
// would move the positions after it. A file that does not scan is left
// for the parser to report. src itself is never changed.
//
// The source is read with the small lexer below rather than go/scanner,
// which spent as much time tokenizing the bodies, allocating a string per
// identifier, as the parse saved. It finds the same tokens, and an error
// wherever go/scanner reports one.
func blankBodies(src []byte) []byte { return blankFuncBodies(src, false) }

// declarationsOnly is blankBodies for a file checked with its package's
// function bodies (LargeFileLimit): each blanked body holds an empty
// loop, "for{}", a terminating statement, so a function with results
// still checks without the statements that were there. A body with
// results always has room for it on one line (a return statement is
// longer); a shorter one stays blank.
func declarationsOnly(src []byte) []byte { return blankFuncBodies(src, true) }

// blankFuncBodies is blankBodies, with an empty loop in each blanked body
// when loop is set (see declarationsOnly).
func blankFuncBodies(src []byte, loop bool) []byte {
	if hasLineDirective(src) || !scannableBytes(src) {
		return src
	}
	l := lexer{src: src}
	if bytes.HasPrefix(src, bom) {
		l.off = len(bom) // as go/scanner, which skips it
	}
	var out []byte
	start := true // at the start of a top-level declaration
	for {
		_, tok := l.scan()
		switch tok {
		case token.ILLEGAL:
			return src
		case token.EOF:
			if out == nil {
				return src
			}
			return out
		case token.SEMICOLON:
			start = true
			continue
		case token.FUNC:
			if start {
				open, end, ok := l.funcBody()
				if !ok {
					return src
				}
				if open >= 0 && end > open+1 {
					if out == nil {
						out = bytes.Clone(src)
					}
					blank(out[open+1 : end])
					if loop {
						emptyLoop(out[open+1 : end])
					}
				}
				start = open < 0 // funcBody read the semicolon that ends a declaration without a body
				continue
			}
		case token.LPAREN, token.LBRACE, token.LBRACK:
			// A grouped declaration (var ( ... ), import ( ... )) or an
			// initializer: nothing in it starts a func declaration.
			if _, ok := l.closing(); !ok {
				return src
			}
		}
		start = false
	}
}

// blank turns every byte of b but line feeds into a space, eight bytes
// at a time: bodies are most of a file.
func blank(b []byte) {
	const ones = 0x0101010101010101
	const lows = 0x7f * ones
	for ; len(b) >= 8; b = b[8:] {
		x := binary.LittleEndian.Uint64(b) ^ '\n'*ones // a zero byte for each line feed
		lf := ^((x&lows + lows) | x | lows) >> 7       // 1 in each of these bytes, 0 elsewhere
		binary.LittleEndian.PutUint64(b, ' '*ones^lf*(' '^'\n'))
	}
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
}

// emptyLoop writes "for{}" at the start of the first run of five bytes of
// the blanked body b that no line feed breaks, if there is one.
func emptyLoop(b []byte) {
	const stmt = "for{}"
	for i := 0; i+len(stmt) <= len(b); {
		j := bytes.IndexByte(b[i:i+len(stmt)], '\n')
		if j < 0 {
			copy(b[i:], stmt)
			return
		}
		i += j + 1
	}
}

// funcBody reads a func declaration's signature from just after its func
// keyword and then its body: the offsets of the body's braces, or -1 for a
// declaration without a body (one implemented in assembly). ok is false
// when the tokens end first.
func (l *lexer) funcBody() (open, end int, ok bool) {
	for {
		pos, tok := l.scan()
		switch tok {
		case token.EOF, token.ILLEGAL:
			return 0, 0, false
		case token.SEMICOLON:
			return -1, -1, true
		case token.LPAREN, token.LBRACK:
			// The receiver, type parameters, parameters and results,
			// with any struct or interface types in them.
			if _, ok := l.closing(); !ok {
				return 0, 0, false
			}
		case token.STRUCT, token.INTERFACE:
			// A result type's braces are not the body.
			if _, next := l.scan(); next != token.LBRACE {
				return 0, 0, false
			}
			if _, ok := l.closing(); !ok {
				return 0, 0, false
			}
		case token.LBRACE:
			end, ok := l.closing()
			return pos, end, ok
		}
	}
}

// hasLineDirective reports whether src may hold a line directive: //line
// at the start of a line, or /*line anywhere. It looks at each slash,
// which is faster than looking for each form.
func hasLineDirective(src []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(src[i:], '/')
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(src) && (src[i+1] == '*' || src[i+1] == '/' && (i == 0 || src[i-1] == '\n')) && bytes.HasPrefix(src[i+2:], []byte("line ")) {
			return true
		}
	}
}

var bom = []byte("\uFEFF")

// scannableBytes reports whether src is free of what go/scanner reports
// wherever it is, even in a comment or a string: a NUL byte, invalid
// UTF-8, a byte order mark after the first character. The lexer then
// need not look for them.
func scannableBytes(src []byte) bool {
	return bytes.IndexByte(src, 0) < 0 && utf8.Valid(src) && !bytes.Contains(bytes.TrimPrefix(src, bom), bom)
}

// A lexer reads Go source as go/scanner does, for the few tokens
// blankBodies looks at, and stops at the first error go/scanner would
// report. It relies on scannableBytes.
type lexer struct {
	src  []byte
	off  int  // where the next token is looked for
	semi bool // a line feed or the end of src is a semicolon (go/scanner's insertSemi)
}

// scan returns the offset and kind of the next token: token.EOF,
// token.SEMICOLON (written or inserted at a line end), a bracket,
// token.FUNC, token.STRUCT, token.INTERFACE, token.ILLEGAL for a scan
// error, or token.IDENT for any other token.
func (l *lexer) scan() (int, token.Token) {
	src := l.src
	for l.off < len(src) {
		i := l.off
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.off++
			continue
		case c == '\n':
			l.off++
			if l.semi {
				l.semi = false
				return i, token.SEMICOLON
			}
			continue
		case c == '/' && (at(src, i+1) == '/' || at(src, i+1) == '*'):
			// A line comment ends before its line feed, which is then the
			// semicolon if there is one; a general comment holding a line
			// feed is one.
			end, ok := comment(src, i)
			if !ok {
				return i, token.ILLEGAL
			}
			l.off = end
			if l.semi && src[i+1] == '*' && bytes.IndexByte(src[i:end], '\n') >= 0 {
				l.semi = false
				return i, token.SEMICOLON
			}
			continue
		}
		return i, l.token()
	}
	if l.semi {
		l.semi = false
		return l.off, token.SEMICOLON
	}
	return l.off, token.EOF
}

// token reads the token at l.off, which is not a space or a comment, and
// sets l.semi as go/scanner sets insertSemi after it.
func (l *lexer) token() token.Token {
	src, i := l.src, l.off
	c := src[i]
	switch {
	case byteClass[c] == classLetter || c >= utf8.RuneSelf && startsWord(src[i:]):
		l.off = word(src, i)
		tok := token.IDENT
		if w := src[i:l.off]; len(w) > 1 && len(w) <= len("fallthrough") {
			tok = token.Lookup(string(w))
		}
		switch tok {
		case token.FUNC, token.STRUCT, token.INTERFACE:
			l.semi = false
			return tok
		case token.IDENT, token.BREAK, token.CONTINUE, token.FALLTHROUGH, token.RETURN:
			l.semi = true
		default:
			l.semi = false
		}
		return token.IDENT
	case isDecimal(c) || c == '.' && isDecimal(at(src, i+1)):
		return l.pastLiteral(number(src, i))
	case c == '"' || c == '\'' || c == '`':
		return l.pastLiteral(literal(src, i))
	}
	tok, width := token.IDENT, 1
	l.semi = false
	switch {
	case c == '(':
		tok = token.LPAREN
	case c == '[':
		tok = token.LBRACK
	case c == '{':
		tok = token.LBRACE
	case c == ')':
		tok, l.semi = token.RPAREN, true
	case c == ']':
		tok, l.semi = token.RBRACK, true
	case c == '}':
		tok, l.semi = token.RBRACE, true
	case c == ';':
		tok = token.SEMICOLON
	case (c == '+' || c == '-') && at(src, i+1) == c:
		width, l.semi = 2, true // ++ or --
	case c == '<' && (at(src, i+1) == '-' || at(src, i+1) == '<'):
		width = 2 // not to read the - of <- or <<- as the start of --
	case c == '.' && at(src, i+1) == '.' && at(src, i+2) == '.':
		width = 3
	case byteClass[c] == classOperator || c == '/' || c == '.':
		// The other bytes of an operator starting with c change nothing.
	default:
		return token.ILLEGAL
	}
	l.off += width
	return tok
}

// pastLiteral moves past a number, string or rune literal ending at end,
// or reports the error in it.
func (l *lexer) pastLiteral(end int, ok bool) token.Token {
	if !ok {
		return token.ILLEGAL
	}
	l.off, l.semi = end, true
	return token.IDENT
}

// closing reads up to the bracket closing the one just read and returns
// its offset; false if src ends first or does not scan. Nothing inside
// matters but brackets and where tokens start and end, so spaces,
// identifiers and most operators are skipped a byte at a time, and only
// what may hide a bracket or hold an error is read token by token.
func (l *lexer) closing() (int, bool) {
	src := l.src
	depth := 1
	i := l.off
	numEnd := -1 // where the last number ended
	// inWord reports whether the character at i continues an identifier,
	// being after a letter, a digit or '_' but not where a number ended
	// (1i2 is two numbers). A digit after a non-ASCII letter is read with
	// it by word and never gets here.
	inWord := func(i int) bool {
		return i > 0 && i != numEnd && (byteClass[src[i-1]] == classLetter || byteClass[src[i-1]] == classDigit)
	}
	ok := true
	for i < len(src) {
		if plain[src[i]] {
			i++
			continue
		}
		switch c := src[i]; byteClass[c] {
		case classDigit:
			if inWord(i) {
				i = word(src, i)
			} else {
				i, ok = number(src, i)
				numEnd = i
			}
		case classOpen:
			depth++
			i++
		case classClose:
			if depth--; depth == 0 {
				l.off, l.semi = i+1, true
				return i, true
			}
			i++
		case classQuote:
			i, ok = literal(src, i)
		case classSlash:
			if next := at(src, i+1); next == '/' || next == '*' {
				i, ok = comment(src, i)
			} else {
				i++
			}
		case classDot:
			switch {
			case isDecimal(at(src, i+1)):
				i, ok = number(src, i)
				numEnd = i
			case at(src, i+1) == '.' && at(src, i+2) == '.':
				i += 3 // not to read the last . of ... as the start of a number
			default:
				i++
			}
		case classNonASCII:
			r, _ := utf8.DecodeRune(src[i:])
			if !unicode.IsLetter(r) && !(unicode.IsDigit(r) && inWord(i)) {
				return 0, false
			}
			i = word(src, i)
		default:
			return 0, false
		}
		if !ok {
			return 0, false
		}
	}
	return 0, false
}

// Classes of bytes, for the lexer's loops.
const (
	classIllegal  = iota // where go/scanner reports an illegal character
	classSpace           // ' ', '\t', '\n', '\r'
	classLetter          // an ASCII letter, '_'
	classDigit           // '0' to '9'
	classOpen            // '(', '[', '{'
	classClose           // ')', ']', '}'
	classQuote           // '"', '\'', '`'
	classSlash           // '/'
	classDot             // '.'
	classOperator        // another byte of an operator or punctuation
	classNonASCII        // a byte of a character beyond ASCII
)

var byteClass = func() (class [256]uint8) {
	set := func(bytes string, c uint8) {
		for _, b := range []byte(bytes) {
			class[b] = c
		}
	}
	set(" \t\n\r", classSpace)
	set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", classLetter)
	set("0123456789", classDigit)
	set("([{", classOpen)
	set(")]}", classClose)
	set("\"'`", classQuote)
	set("/", classSlash)
	set(".", classDot)
	set("+-*%&|^<>=!:,;~", classOperator)
	for b := utf8.RuneSelf; b < len(class); b++ {
		class[b] = classNonASCII
	}
	return class
}()

// plain tells the bytes closing skips one at a time: spaces, ASCII
// letters and the operators but . and / (which may start a number or a
// comment).
var plain = func() (plain [256]bool) {
	for b, c := range byteClass {
		plain[b] = c == classSpace || c == classLetter || c == classOperator
	}
	return plain
}()

// at returns src[i], or 0 past its end (scannableBytes rules out a NUL).
func at(src []byte, i int) byte {
	if i < len(src) {
		return src[i]
	}
	return 0
}

func isDecimal(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool     { return isDecimal(c) || 'a' <= lower(c) && lower(c) <= 'f' }
func lower(c byte) byte     { return 'a' - 'A' | c } // lower case for an ASCII letter

// startsWord reports whether the non-ASCII character at the start of src
// may start an identifier; go/scanner reports any other as illegal.
func startsWord(src []byte) bool {
	r, _ := utf8.DecodeRune(src)
	return unicode.IsLetter(r)
}

// word returns the end of the identifier starting at src[i].
func word(src []byte, i int) int {
	for i < len(src) {
		switch byteClass[src[i]] {
		case classLetter, classDigit:
			i++
		case classNonASCII:
			r, w := utf8.DecodeRune(src[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return i
			}
			i += w
		default:
			return i
		}
	}
	return i
}

// comment returns the end of the comment starting at src[i], before the
// line feed ending a line comment; false for a general comment not
// terminated.
func comment(src []byte, i int) (int, bool) {
	if src[i+1] == '/' {
		if j := bytes.IndexByte(src[i+2:], '\n'); j >= 0 {
			return i + 2 + j, true
		}
		return len(src), true
	}
	j := bytes.Index(src[i+2:], []byte("*/"))
	return i + 2 + j + 2, j >= 0
}

// literal returns the end of the string, raw string or rune literal
// starting at src[i], and false where go/scanner reports an error in it
// (scanString, scanRawString, scanRune).
func literal(src []byte, i int) (int, bool) {
	quote := src[i]
	i++
	if quote == '`' {
		j := bytes.IndexByte(src[i:], '`')
		return i + j + 1, j >= 0
	}
	n := 0 // characters: a rune literal holds one
	for i < len(src) {
		c := src[i]
		switch c {
		case quote:
			return i + 1, quote == '"' || n == 1
		case '\n':
			return i, false
		case '\\':
			var ok bool
			if i, ok = escape(src, i+1, quote); !ok {
				return i, false
			}
			n++
		default:
			i++
			if utf8.RuneStart(c) {
				n++
			}
		}
	}
	return i, false
}

// escape returns the end of the escape sequence after the backslash at
// src[i-1] in a literal quoted by quote, and false where go/scanner's
// scanEscape reports an error.
func escape(src []byte, i int, quote byte) (int, bool) {
	var n int
	var base, max uint32
	switch at(src, i) {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', quote:
		return i + 1, true
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, base, max = 3, 8, 255
	case 'x':
		i++
		n, base, max = 2, 16, 255
	case 'u':
		i++
		n, base, max = 4, 16, unicode.MaxRune
	case 'U':
		i++
		n, base, max = 8, 16, unicode.MaxRune
	default:
		return i, false
	}
	var x uint32
	for ; n > 0; n-- {
		d := digitVal(at(src, i))
		if d >= base {
			return i, false
		}
		x = x*base + d
		i++
	}
	return i, x <= max && (x < 0xD800 || x >= 0xE000)
}

func digitVal(c byte) uint32 {
	switch {
	case isDecimal(c):
		return uint32(c - '0')
	case isHex(c):
		return uint32(lower(c) - 'a' + 10)
	}
	return 16 // larger than any digit
}

// number returns the end of the number literal starting at src[i], and
// false where go/scanner's scanNumber reports an error in it.
func number(src []byte, i int) (int, bool) {
	// Most are a decimal without a leading 0, or 0, or a hexadecimal,
	// that nothing after continues.
	j := i
	if src[j] != '0' {
		for j < len(src) && isDecimal(src[j]) {
			j++
		}
	} else if j++; lower(at(src, j)) == 'x' {
		for j++; j < len(src) && isHex(src[j]); j++ {
		}
		if j == i+2 {
			j = i // no digits
		}
	}
	if j > i {
		if c := byteClass[at(src, j)]; c != classLetter && c != classDigit && c != classDot {
			return j, true
		}
	}

	start := i
	base := 10
	prefix := byte(0) // one of 0 (decimal), '0' (0-octal), 'x', 'o' or 'b'
	digsep := 0       // bit 0: a digit, bit 1: a '_'
	invalid := false  // a digit not of the base
	tok := token.ILLEGAL
	if at(src, i) != '.' {
		tok = token.INT
		if at(src, i) == '0' {
			i++
			switch lower(at(src, i)) {
			case 'x':
				i++
				base, prefix = 16, 'x'
			case 'o':
				i++
				base, prefix = 8, 'o'
			case 'b':
				i++
				base, prefix = 2, 'b'
			default:
				base, prefix = 8, '0'
				digsep = 1 // the leading 0
			}
		}
		var ds int
		i, ds, invalid = digits(src, i, base)
		digsep |= ds
	}
	if at(src, i) == '.' {
		tok = token.FLOAT
		if prefix == 'o' || prefix == 'b' {
			return i, false
		}
		var ds int
		var inv bool
		i, ds, inv = digits(src, i+1, base)
		digsep |= ds
		invalid = invalid || inv
	}
	if digsep&1 == 0 {
		return i, false
	}
	if e := lower(at(src, i)); e == 'e' || e == 'p' {
		if e == 'e' && prefix != 0 && prefix != '0' || e == 'p' && prefix != 'x' {
			return i, false
		}
		i++
		tok = token.FLOAT
		if c := at(src, i); c == '+' || c == '-' {
			i++
		}
		var ds int
		i, ds, _ = digits(src, i, 10)
		if ds&1 == 0 {
			return i, false
		}
		digsep |= ds
	} else if prefix == 'x' && tok == token.FLOAT {
		return i, false
	}
	if at(src, i) == 'i' {
		tok = token.IMAG
		i++
	}
	if tok == token.INT && invalid || digsep&2 != 0 && !validSeparators(src[start:i]) {
		return i, false
	}
	return i, true
}

// digits reads { digit | '_' } from src[i] and returns its end and
// digsep: bit 0 for a digit, bit 1 for a '_'. For a base up to 10 it
// reads any decimal digit, and invalid tells of one not of the base.
func digits(src []byte, i, base int) (end, digsep int, invalid bool) {
	max := uint32(10)
	if base == 16 {
		max = 16
	}
	for ; i < len(src); i++ {
		c := src[i]
		if d := digitVal(c); d < max {
			digsep |= 1
			invalid = invalid || d >= uint32(base)
		} else if c == '_' {
			digsep |= 2
		} else {
			break
		}
	}
	return i, digsep, invalid
}

// validSeparators reports whether every '_' in the number literal x
// separates successive digits (go/scanner's invalidSep).
func validSeparators(x []byte) bool {
	x1 := byte(' ') // the prefix's letter, which matters only if it is 'x'
	d := byte('.')  // the previous character: '_', '0' for a digit, '.' for anything else
	i := 0
	if len(x) >= 2 && x[0] == '0' {
		x1 = lower(x[1])
		if x1 == 'x' || x1 == 'o' || x1 == 'b' {
			d = '0' // a prefix counts as a digit
			i = 2
		}
	}
	for ; i < len(x); i++ {
		p := d
		d = x[i]
		switch {
		case d == '_':
			if p != '0' {
				return false
			}
		case isDecimal(d) || x1 == 'x' && isHex(d):
			d = '0'
		default:
			if p == '_' {
				return false
			}
			d = '.'
		}
	}
	return d != '_'
}
