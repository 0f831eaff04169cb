package load

import (
	"bytes"
	"go/scanner"
	"go/token"
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
func blankBodies(src []byte) []byte {
	if hasLineDirective(src) {
		return src
	}
	var s scanner.Scanner
	failed := false
	file := token.NewFileSet().AddFile("", -1, len(src))
	s.Init(file, src, func(token.Position, string) { failed = true }, 0)
	var out []byte
	start := true // at the start of a top-level declaration
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			if failed || out == nil {
				return src
			}
			return out
		case token.SEMICOLON:
			start = true
			continue
		case token.FUNC:
			if start {
				open, end, ok := funcBody(&s, file)
				if !ok {
					return src
				}
				if open >= 0 && end > open+1 {
					if out == nil {
						out = bytes.Clone(src)
					}
					for i := open + 1; i < end; i++ {
						if out[i] != '\n' {
							out[i] = ' '
						}
					}
				}
				start = open < 0 // funcBody read the semicolon that ends a declaration without a body
				continue
			}
		case token.LPAREN, token.LBRACE, token.LBRACK:
			// A grouped declaration (var ( ... ), import ( ... )) or an
			// initializer: nothing in it starts a func declaration.
			if _, ok := closing(&s, file); !ok {
				return src
			}
		}
		start = false
	}
}

// funcBody reads a func declaration's signature from just after its func
// keyword and then its body: the offsets of the body's braces, or -1 for a
// declaration without a body (one implemented in assembly). ok is false
// when the tokens end first.
func funcBody(s *scanner.Scanner, file *token.File) (open, end int, ok bool) {
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, 0, false
		case token.SEMICOLON:
			return -1, -1, true
		case token.LPAREN, token.LBRACK:
			// The receiver, type parameters, parameters and results,
			// with any struct or interface types in them.
			if _, ok := closing(s, file); !ok {
				return 0, 0, false
			}
		case token.STRUCT, token.INTERFACE:
			// A result type's braces are not the body.
			_, next, _ := s.Scan()
			if next != token.LBRACE {
				return 0, 0, false
			}
			if _, ok := closing(s, file); !ok {
				return 0, 0, false
			}
		case token.LBRACE:
			end, ok := closing(s, file)
			return file.Offset(pos), end, ok
		}
	}
}

// closing reads tokens up to the one closing the bracket (parenthesis,
// brace or square bracket) just read, and returns its offset; false if
// the tokens end first.
func closing(s *scanner.Scanner, file *token.File) (int, bool) {
	depth := 1
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, false
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if depth--; depth == 0 {
				return file.Offset(pos), true
			}
		}
	}
}

// hasLineDirective reports whether src may hold a line directive: //line
// at the start of a line, or /*line anywhere.
func hasLineDirective(src []byte) bool {
	return bytes.HasPrefix(src, []byte("//line ")) || bytes.Contains(src, []byte("\n//line ")) || bytes.Contains(src, []byte("/*line "))
}
