package impact

import (
	"crypto/sha256"
	"encoding/hex"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// spanToken is one token of a scanned span, as tokensOf writes it.
type spanToken struct {
	tok  token.Token
	text string
	nl   bool // a line ends before it where the scanner ends a statement
}

// scanHash is the hash of the function or method name (a method as
// "Recv.Name") from span, its own lines, read by the scanner alone: the
// same hash declHash gives the declaration parsed, at a fraction of the
// parse's cost, which a get_impact call with a recording pays for every
// changed function. "" when the span is not plainly one such declaration
// whole (a receiver of another shape, another declaration on its lines,
// a layout the parser would reject): the caller parses it.
func scanHash(kind graph.Kind, name, span string) string {
	toks, ok := scanSpan(span)
	if !ok || len(toks) < 4 || toks[0].tok != token.FUNC || toks[len(toks)-1].tok != token.RBRACE {
		return ""
	}
	// The body: from the brace that matches the last one.
	open, depth := -1, 0
	for i := len(toks) - 1; i > 0; i-- {
		switch toks[i].tok {
		case token.RBRACE:
			depth++
		case token.LBRACE:
			depth--
		}
		if depth == 0 {
			open = i
			break
		}
	}
	if open < 0 || toks[open].tok != token.LBRACE || toks[open].nl {
		return ""
	}
	sig := toks[:open]
	if !plainSig(sig) {
		return ""
	}
	// The receiver, if any, and the name.
	recv, i := []spanToken(nil), 1
	if sig[1].tok == token.LPAREN {
		end := closing(sig, 1)
		if end < 0 {
			return ""
		}
		var base string
		recv, base = receiverType(sig[2:end])
		if base == "" {
			return ""
		}
		i = end + 1
		if i >= len(sig) || sig[i].tok != token.IDENT || kind != graph.KindMethod || name != base+"."+sig[i].text {
			return ""
		}
	} else if sig[1].tok != token.IDENT || kind != graph.KindFunc || name != sig[1].text || name == "init" {
		return ""
	}
	h := sha256.New()
	var b strings.Builder
	write := func(ts []spanToken) {
		for _, t := range ts {
			b.WriteString(t.text)
			b.WriteByte(' ')
		}
		b.WriteByte('\x00')
	}
	if recv != nil {
		write(recv)
	}
	write(sig)
	h.Write([]byte(b.String()))
	h.Write([]byte{1})
	b.Reset()
	write(toks[open:])
	h.Write([]byte(b.String()))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// scanSpan returns the tokens of span as tokensOf writes them (a
// semicolon the scanner inserts at a line's end is layout, dropped, and
// marks the token after it), with false on a scanning error.
func scanSpan(span string) ([]spanToken, bool) {
	var s scanner.Scanner
	src := []byte(span)
	bad := false
	s.Init(token.NewFileSet().AddFile("", -1, len(src)), src, func(token.Position, string) { bad = true }, 0)
	var out []spanToken
	nl := false
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			nl = true
			continue
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, spanToken{tok, lit, nl})
		nl = false
	}
	return out, !bad
}

// plainSig says whether sig (the tokens from func to the body's brace)
// is one signature: brackets balanced, no other func keyword, brace or
// semicolon outside them.
func plainSig(sig []spanToken) bool {
	depth := 0
	for i, t := range sig {
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			if t.tok == token.LBRACE && depth == 0 {
				return false
			}
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			if depth < 0 {
				return false
			}
		case token.FUNC:
			if i > 0 && depth == 0 {
				return false
			}
		case token.SEMICOLON:
			return false
		}
	}
	return depth == 0
}

// closing returns the index of the token closing the bracket at open,
// -1 when it has none.
func closing(ts []spanToken, open int) int {
	depth := 0
	for i := open; i < len(ts); i++ {
		switch ts[i].tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// receiverType returns the type of a receiver list's one field ("r *T",
// "*T", "t T[K]") and its base type's name; "" when it is not of those
// plain shapes.
func receiverType(list []spanToken) ([]spanToken, string) {
	if len(list) >= 2 && list[0].tok == token.IDENT {
		switch list[1].tok {
		case token.MUL, token.IDENT:
			list = list[1:] // a name, then the type
		}
	}
	typ := list
	if len(list) > 0 && list[0].tok == token.MUL {
		list = list[1:]
	}
	if len(list) == 0 || list[0].tok != token.IDENT {
		return nil, ""
	}
	switch {
	case len(list) == 1:
	case list[1].tok == token.LBRACK && closing(list, 1) == len(list)-1:
		for _, t := range list[2 : len(list)-1] {
			if t.tok != token.IDENT && t.tok != token.COMMA {
				return nil, "" // type parameters are names
			}
		}
	default:
		return nil, ""
	}
	return typ, list[0].text
}
