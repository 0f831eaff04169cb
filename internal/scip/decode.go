// Package scip reads SCIP index files (the Source Code Intelligence
// Protocol of scip-typescript, scip-python and others) one document at a
// time, so that what reading costs follows the largest document, not the
// file, and parses SCIP symbol strings.
//
// The decoder is written on protowire against the field numbers of the
// published scip.proto (checked against the generated code scip-typescript
// 0.4.0 ships); unknown fields are skipped, so a newer schema breaks
// nothing. An index is untrusted input: every length is checked against
// Limits before anything is allocated for it.
package scip

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Field numbers of scip.proto.
const (
	indexMetadata        = 1
	indexDocuments       = 2
	indexExternalSymbols = 3

	metaVersion      = 1
	metaToolInfo     = 2
	metaProjectRoot  = 3
	metaTextEncoding = 4

	toolName      = 1
	toolVersion   = 2
	toolArguments = 3

	docRelativePath     = 1
	docOccurrences      = 2
	docSymbols          = 3
	docLanguage         = 4
	docText             = 5
	docPositionEncoding = 6

	occRange                 = 1
	occSymbol                = 2
	occSymbolRoles           = 3
	occOverrideDocumentation = 4
	occSyntaxKind            = 5
	occDiagnostics           = 6 // skipped
	occEnclosingRange        = 7

	infoSymbol                 = 1
	infoDocumentation          = 3
	infoRelationships          = 4
	infoKind                   = 5
	infoDisplayName            = 6
	infoSignatureDocumentation = 7
	infoEnclosingSymbol        = 8

	relSymbol           = 1
	relIsReference      = 2
	relIsImplementation = 3
	relIsTypeDefinition = 4
	relIsDefinition     = 5
)

// SymbolRole bits of Occurrence.SymbolRoles.
const (
	RoleDefinition        = 1
	RoleImport            = 2
	RoleWriteAccess       = 4
	RoleReadAccess        = 8
	RoleGenerated         = 16
	RoleTest              = 32
	RoleForwardDefinition = 64
)

// Limits bound what one message of an index may cost. A Document over
// MaxDocumentBytes, or one holding a symbol string over MaxSymbolBytes or
// more than MaxOccurrences occurrences, is skipped whole and reported to
// Visitor.Skipped (the stream stays in step, so the next document is read);
// an external symbol over a limit is skipped the same way. Metadata over
// MaxDocumentBytes is an error: without it the index cannot be placed.
type Limits struct {
	MaxDocumentBytes int
	MaxSymbolBytes   int
	MaxOccurrences   int
}

// DefaultLimits are generous for generated code (scip-typescript's largest
// documents on big repositories are a few MiB) and keep a hostile index
// from taking more than a few hundred MiB.
var DefaultLimits = Limits{MaxDocumentBytes: 64 << 20, MaxSymbolBytes: 4 << 10, MaxOccurrences: 1 << 20}

// Metadata is the index's header.
type Metadata struct {
	Version              int32
	ToolName             string
	ToolVersion          string
	ToolArguments        []string
	ProjectRoot          string // a URI, file:///...
	TextDocumentEncoding int32
}

// Document is one source file's occurrences and the symbols it defines.
// Ranges are 0-based, as SCIP writes them; BadRanges counts the
// occurrences dropped because their range had the wrong number of
// elements, a negative element or an end before its start.
type Document struct {
	RelativePath     string
	Language         string
	Occurrences      []Occurrence
	Symbols          []SymbolInformation
	Text             string
	PositionEncoding int32
	BadRanges        int
}

// Range is a SCIP range: 0-based lines and characters, end exclusive.
type Range struct {
	StartLine, StartChar, EndLine, EndChar int32
}

// Contains reports whether o lies inside r.
func (r Range) Contains(o Range) bool {
	return before(r.StartLine, r.StartChar, o.StartLine, o.StartChar) &&
		before(o.EndLine, o.EndChar, r.EndLine, r.EndChar)
}

func before(l1, c1, l2, c2 int32) bool { return l1 < l2 || l1 == l2 && c1 <= c2 }

// Occurrence is one mention of a symbol. HasEnclosing says whether
// EnclosingRange was given (the whole declaration of a definition, the
// whole expression of a reference).
type Occurrence struct {
	Range                 Range
	Symbol                string
	SymbolRoles           int32
	OverrideDocumentation []string
	SyntaxKind            int32
	EnclosingRange        Range
	HasEnclosing          bool
}

// Definition reports whether the occurrence defines its symbol.
func (o Occurrence) Definition() bool { return o.SymbolRoles&RoleDefinition != 0 }

// SymbolInformation describes a symbol: its documentation (Markdown
// strings, the first often a code block with the signature), its
// relationships, kind, display name and signature.
type SymbolInformation struct {
	Symbol            string
	Documentation     []string
	Relationships     []Relationship
	Kind              int32
	DisplayName       string
	SignatureLanguage string
	SignatureText     string // signature_documentation.text
	EnclosingSymbol   string
}

// Relationship links a symbol to another: the interface method it
// implements, the type it is a definition of.
type Relationship struct {
	Symbol           string
	IsReference      bool
	IsImplementation bool
	IsTypeDefinition bool
	IsDefinition     bool
}

// Skip says why a message was skipped: its ordinal among the index's
// documents (or external symbols), its path when known, and the reason.
type Skip struct {
	Document int // 0-based ordinal of the document, -1 for an external symbol
	Path     string
	Reason   string
}

// Visitor receives an index as it is read. Each field may be nil. A struct
// of functions rather than an interface, so a new kind of message breaks
// no caller. An error a function returns stops the decoding and is
// returned as it is.
type Visitor struct {
	Metadata       func(Metadata) error
	Document       func(*Document) error
	ExternalSymbol func(SymbolInformation) error
	Skipped        func(Skip)
}

// Stats counts what Decode read.
type Stats struct {
	Bytes           int64
	Documents       int
	ExternalSymbols int
	Skipped         int
}

// parseError is the coded error of an index that is not a SCIP index, or
// is cut short.
func parseError(off int64, format string, args ...any) error {
	return graph.Errorf(graph.CodeParseError, "scip index at byte %d: %s", off, fmt.Sprintf(format, args...))
}

// Decode reads the index from r, handing each message to v as soon as it
// is read: the memory it holds at once is one message (at most
// lim.MaxDocumentBytes) and what it decodes to. Truncated or malformed
// framing is a PARSE_ERROR, a failed read a READ_ERROR; a document whose
// content is malformed or over a limit is skipped and reported (see
// Limits). Zero fields of lim take DefaultLimits'.
func Decode(ctx context.Context, r io.Reader, lim Limits, v Visitor) (Stats, error) {
	lim = lim.withDefaults()
	d := &decoder{r: bufio.NewReaderSize(r, 64<<10), lim: lim}
	var st Stats
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		start := d.off
		tag, err := d.varint()
		if err == io.EOF && d.off == start {
			st.Bytes = d.off
			return st, nil
		}
		if err != nil {
			return st, d.framing(err)
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber || num > protowire.MaxValidNumber {
			return st, parseError(start, "invalid field number %d", num)
		}
		switch {
		case typ == protowire.BytesType && (num == indexMetadata || num == indexDocuments || num == indexExternalSymbols):
			n, err := d.varint()
			if err != nil {
				return st, d.framing(err)
			}
			if num == indexDocuments {
				ord := st.Documents + st.Skipped
				if n > uint64(lim.MaxDocumentBytes) {
					if err := d.discard(n); err != nil {
						return st, err
					}
					st.Skipped++
					skip(v, Skip{Document: ord, Reason: fmt.Sprintf("document of %d bytes, over the limit of %d", n, lim.MaxDocumentBytes)})
					continue
				}
				b, err := d.read(n)
				if err != nil {
					return st, err
				}
				doc, err := decodeDocument(b, lim)
				if err != nil {
					st.Skipped++
					skip(v, Skip{Document: ord, Path: doc.RelativePath, Reason: err.Error()})
					continue
				}
				st.Documents++
				if v.Document != nil {
					if err := v.Document(doc); err != nil {
						return st, err
					}
				}
				continue
			}
			if n > uint64(lim.MaxDocumentBytes) {
				if num == indexMetadata {
					return st, parseError(start, "metadata of %d bytes, over the limit of %d", n, lim.MaxDocumentBytes)
				}
				if err := d.discard(n); err != nil {
					return st, err
				}
				st.Skipped++
				skip(v, Skip{Document: -1, Reason: fmt.Sprintf("external symbol of %d bytes, over the limit of %d", n, lim.MaxDocumentBytes)})
				continue
			}
			b, err := d.read(n)
			if err != nil {
				return st, err
			}
			if num == indexMetadata {
				m, err := decodeMetadata(b)
				if err != nil {
					return st, parseError(start, "metadata: %v", err)
				}
				if v.Metadata != nil {
					if err := v.Metadata(m); err != nil {
						return st, err
					}
				}
				continue
			}
			var in intern
			info, err := decodeSymbolInformation(b, lim, &in)
			if err != nil {
				st.Skipped++
				skip(v, Skip{Document: -1, Path: "", Reason: "external symbol: " + err.Error()})
				continue
			}
			st.ExternalSymbols++
			if v.ExternalSymbol != nil {
				if err := v.ExternalSymbol(info); err != nil {
					return st, err
				}
			}
		case num == indexMetadata || num == indexDocuments || num == indexExternalSymbols:
			return st, parseError(start, "field %d has wire type %d, want bytes", num, typ)
		default:
			if err := d.skipField(typ); err != nil {
				return st, err
			}
		}
	}
}

func skip(v Visitor, s Skip) {
	if v.Skipped != nil {
		v.Skipped(s)
	}
}

func (lim Limits) withDefaults() Limits {
	if lim.MaxDocumentBytes <= 0 {
		lim.MaxDocumentBytes = DefaultLimits.MaxDocumentBytes
	}
	if lim.MaxSymbolBytes <= 0 {
		lim.MaxSymbolBytes = DefaultLimits.MaxSymbolBytes
	}
	if lim.MaxOccurrences <= 0 {
		lim.MaxOccurrences = DefaultLimits.MaxOccurrences
	}
	return lim
}

// decoder reads the top level of an index: tags, lengths and the bytes of
// one message at a time, into a buffer reused from message to message.
type decoder struct {
	r   *bufio.Reader
	lim Limits
	off int64
	buf []byte
}

// errTruncated is an index that ends inside a field.
var errTruncated = errors.New("truncated")

func (d *decoder) framing(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF || err == errTruncated {
		return parseError(d.off, "the index ends inside a field (truncated)")
	}
	var ge *graph.Error
	if errors.As(err, &ge) {
		return err
	}
	return graph.Wrap(graph.CodeReadError, err, "reading the scip index")
}

func (d *decoder) varint() (uint64, error) {
	var x uint64
	for i := 0; i < 10; i++ {
		c, err := d.r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				return 0, errTruncated
			}
			return 0, err
		}
		d.off++
		if i == 9 && c > 1 {
			return 0, parseError(d.off, "varint overflows 64 bits")
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, parseError(d.off, "varint overflows 64 bits")
}

// read returns the next n bytes (n already checked against the limit),
// valid until the next read.
func (d *decoder) read(n uint64) ([]byte, error) {
	if uint64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		return nil, d.framing(err)
	}
	d.off += int64(n)
	return b, nil
}

func (d *decoder) discard(n uint64) error {
	for n > 0 {
		k := n
		if k > 1<<30 {
			k = 1 << 30
		}
		got, err := d.r.Discard(int(k))
		d.off += int64(got)
		if err != nil {
			return d.framing(err)
		}
		n -= k
	}
	return nil
}

// skipField skips a top-level field of a number the schema does not use.
func (d *decoder) skipField(typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		_, err := d.varint()
		if err != nil {
			return d.framing(err)
		}
		return nil
	case protowire.Fixed32Type:
		return d.discard(4)
	case protowire.Fixed64Type:
		return d.discard(8)
	case protowire.BytesType:
		n, err := d.varint()
		if err != nil {
			return d.framing(err)
		}
		return d.discard(n)
	}
	return parseError(d.off, "unsupported wire type %d at the top level", typ)
}

// intern shares the strings of a message: a document names the same
// symbols many times.
type intern map[string]string

func (in *intern) str(b []byte) string {
	if *in == nil {
		*in = make(intern)
	}
	if s, ok := (*in)[string(b)]; ok {
		return s
	}
	s := string(b)
	(*in)[s] = s
	return s
}

// fields walks the fields of one message, calling f with each field's
// number and type and the bytes of its value (for varints, the value in
// v). A malformed field stops the walk with an error.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var val []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, val); err != nil {
			return err
		}
	}
	return nil
}

func wrongType(what string, typ protowire.Type) error {
	return fmt.Errorf("%s has wire type %d", what, typ)
}

// wantBytes fails unless a field holds bytes (a string or a message).
func wantBytes(what string, typ protowire.Type) error {
	if typ != protowire.BytesType {
		return wrongType(what, typ)
	}
	return nil
}

// stringFields walks a message whose fields of interest are strings,
// passing over any field that is not bytes.
func stringFields(b []byte, f func(num protowire.Number, s string)) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
		if typ == protowire.BytesType {
			f(num, string(val))
		}
		return nil
	})
}

func decodeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		switch num {
		case metaVersion:
			if typ != protowire.VarintType {
				return wrongType("version", typ)
			}
			m.Version = int32(v)
		case metaToolInfo:
			if err := wantBytes("tool_info", typ); err != nil {
				return err
			}
			return stringFields(val, func(num protowire.Number, s string) {
				switch num {
				case toolName:
					m.ToolName = s
				case toolVersion:
					m.ToolVersion = s
				case toolArguments:
					m.ToolArguments = append(m.ToolArguments, s)
				}
			})
		case metaProjectRoot:
			if err := wantBytes("project_root", typ); err != nil {
				return err
			}
			m.ProjectRoot = string(val)
		case metaTextEncoding:
			if typ == protowire.VarintType {
				m.TextDocumentEncoding = int32(v)
			}
		}
		return nil
	})
	return m, err
}

// decodeDocument decodes one Document, checking lim. On an error the
// returned document holds the path when it was read.
func decodeDocument(b []byte, lim Limits) (*Document, error) {
	doc := &Document{}
	var in intern
	// The path and the occurrence count come first, so that a skip names
	// its document and no occurrence is decoded past the limit.
	occs := 0
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
		switch {
		case num == docRelativePath && typ == protowire.BytesType:
			doc.RelativePath = string(val)
		case num == docOccurrences && typ == protowire.BytesType:
			occs++
		}
		return nil
	})
	if err != nil {
		return doc, fmt.Errorf("malformed document: %v", err)
	}
	if occs > lim.MaxOccurrences {
		return doc, fmt.Errorf("%d occurrences, over the limit of %d", occs, lim.MaxOccurrences)
	}
	doc.Occurrences = make([]Occurrence, 0, occs)
	err = fields(b, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		switch num {
		case docRelativePath:
			if err := wantBytes("relative_path", typ); err != nil {
				return err
			}
		case docLanguage:
			if err := wantBytes("language", typ); err != nil {
				return err
			}
			doc.Language = string(val)
		case docText:
			if err := wantBytes("text", typ); err != nil {
				return err
			}
			doc.Text = string(val)
		case docPositionEncoding:
			if typ == protowire.VarintType {
				doc.PositionEncoding = int32(v)
			}
		case docOccurrences:
			if err := wantBytes("occurrence", typ); err != nil {
				return err
			}
			o, ok, err := decodeOccurrence(val, lim, &in)
			if err != nil {
				return err
			}
			if !ok {
				doc.BadRanges++
				return nil
			}
			doc.Occurrences = append(doc.Occurrences, o)
		case docSymbols:
			if err := wantBytes("symbol information", typ); err != nil {
				return err
			}
			info, err := decodeSymbolInformation(val, lim, &in)
			if err != nil {
				return err
			}
			doc.Symbols = append(doc.Symbols, info)
		}
		return nil
	})
	if err != nil {
		return doc, err
	}
	return doc, nil
}

// symbolString checks a symbol string against the limit.
func symbolString(val []byte, lim Limits, in *intern) (string, error) {
	if len(val) > lim.MaxSymbolBytes {
		return "", fmt.Errorf("symbol of %d bytes, over the limit of %d", len(val), lim.MaxSymbolBytes)
	}
	return in.str(val), nil
}

// decodeOccurrence decodes one occurrence; ok is false when its range is
// unusable.
func decodeOccurrence(b []byte, lim Limits, in *intern) (o Occurrence, ok bool, err error) {
	var rng, enc []int32
	rangeOK, encOK := true, true
	err = fields(b, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		switch num {
		case occRange, occEnclosingRange:
			dst, good := &rng, &rangeOK
			if num == occEnclosingRange {
				dst, good = &enc, &encOK
			}
			switch typ {
			case protowire.BytesType: // packed
				for len(val) > 0 {
					x, n := protowire.ConsumeVarint(val)
					if n < 0 {
						return protowire.ParseError(n)
					}
					val = val[n:]
					if len(*dst) == 4 {
						*good = false
						continue
					}
					*dst = append(*dst, int32(x))
				}
			case protowire.VarintType: // unpacked
				if len(*dst) == 4 {
					*good = false
					return nil
				}
				*dst = append(*dst, int32(v))
			default:
				return wrongType("range", typ)
			}
		case occSymbol:
			if err := wantBytes("symbol", typ); err != nil {
				return err
			}
			s, err := symbolString(val, lim, in)
			if err != nil {
				return err
			}
			o.Symbol = s
		case occSymbolRoles:
			if typ == protowire.VarintType {
				o.SymbolRoles = int32(v)
			}
		case occOverrideDocumentation:
			if typ == protowire.BytesType {
				o.OverrideDocumentation = append(o.OverrideDocumentation, string(val))
			}
		case occSyntaxKind:
			if typ == protowire.VarintType {
				o.SyntaxKind = int32(v)
			}
		}
		return nil
	})
	if err != nil {
		return o, false, err
	}
	var good bool
	o.Range, good = makeRange(rng)
	if !good || !rangeOK {
		return o, false, nil
	}
	if len(enc) > 0 {
		o.EnclosingRange, o.HasEnclosing = makeRange(enc)
		o.HasEnclosing = o.HasEnclosing && encOK
	}
	return o, true, nil
}

// makeRange turns SCIP's 3-element (one line) or 4-element range into a
// Range, refusing negative elements and an end before the start.
func makeRange(e []int32) (Range, bool) {
	var r Range
	switch len(e) {
	case 3:
		r = Range{e[0], e[1], e[0], e[2]}
	case 4:
		r = Range{e[0], e[1], e[2], e[3]}
	default:
		return r, false
	}
	if r.StartLine < 0 || r.StartChar < 0 || r.EndLine < 0 || r.EndChar < 0 ||
		!before(r.StartLine, r.StartChar, r.EndLine, r.EndChar) {
		return r, false
	}
	return r, true
}

func decodeSymbolInformation(b []byte, lim Limits, in *intern) (SymbolInformation, error) {
	var info SymbolInformation
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		switch num {
		case infoSymbol, infoEnclosingSymbol:
			if err := wantBytes("symbol", typ); err != nil {
				return err
			}
			s, err := symbolString(val, lim, in)
			if err != nil {
				return err
			}
			if num == infoSymbol {
				info.Symbol = s
			} else {
				info.EnclosingSymbol = s
			}
		case infoDocumentation:
			if typ == protowire.BytesType {
				info.Documentation = append(info.Documentation, string(val))
			}
		case infoRelationships:
			if err := wantBytes("relationship", typ); err != nil {
				return err
			}
			var rel Relationship
			err := fields(val, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
				switch num {
				case relSymbol:
					if err := wantBytes("relationship symbol", typ); err != nil {
						return err
					}
					s, err := symbolString(val, lim, in)
					if err != nil {
						return err
					}
					rel.Symbol = s
				case relIsReference:
					rel.IsReference = typ == protowire.VarintType && v != 0
				case relIsImplementation:
					rel.IsImplementation = typ == protowire.VarintType && v != 0
				case relIsTypeDefinition:
					rel.IsTypeDefinition = typ == protowire.VarintType && v != 0
				case relIsDefinition:
					rel.IsDefinition = typ == protowire.VarintType && v != 0
				}
				return nil
			})
			if err != nil {
				return err
			}
			info.Relationships = append(info.Relationships, rel)
		case infoKind:
			if typ == protowire.VarintType {
				info.Kind = int32(v)
			}
		case infoDisplayName:
			if typ == protowire.BytesType {
				info.DisplayName = string(val)
			}
		case infoSignatureDocumentation:
			if err := wantBytes("signature_documentation", typ); err != nil {
				return err
			}
			return stringFields(val, func(num protowire.Number, s string) {
				switch num {
				case docLanguage:
					info.SignatureLanguage = s
				case docText:
					info.SignatureText = s
				}
			})
		}
		return nil
	})
	return info, err
}
