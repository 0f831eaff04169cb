package scip

import "google.golang.org/protobuf/encoding/protowire"

// The encoders below write what Decode reads, field for field: tests make
// indexes with them (hostile ones included, by appending raw fields of
// their own), and a tool may write a filtered index. Each appends one
// top-level field of an Index to b.

// AppendMetadata appends m as the Index's metadata field.
func AppendMetadata(b []byte, m Metadata) []byte {
	var mb []byte
	if m.Version != 0 {
		mb = appendVarint(mb, metaVersion, uint64(m.Version))
	}
	var tb []byte
	tb = appendString(tb, toolName, m.ToolName)
	tb = appendString(tb, toolVersion, m.ToolVersion)
	for _, a := range m.ToolArguments {
		tb = appendString(tb, toolArguments, a)
	}
	mb = appendBytes(mb, metaToolInfo, tb)
	mb = appendString(mb, metaProjectRoot, m.ProjectRoot)
	if m.TextDocumentEncoding != 0 {
		mb = appendVarint(mb, metaTextEncoding, uint64(m.TextDocumentEncoding))
	}
	return appendBytes(b, indexMetadata, mb)
}

// AppendDocument appends d as one of the Index's documents.
func AppendDocument(b []byte, d *Document) []byte {
	return appendBytes(b, indexDocuments, DocumentBytes(d))
}

// AppendExternalSymbol appends s as one of the Index's external symbols.
func AppendExternalSymbol(b []byte, s SymbolInformation) []byte {
	return appendBytes(b, indexExternalSymbols, symbolInformationBytes(s))
}

// DocumentBytes is the encoding of the Document message d alone.
func DocumentBytes(d *Document) []byte {
	var db []byte
	db = appendString(db, docLanguage, d.Language)
	db = appendString(db, docRelativePath, d.RelativePath)
	for _, o := range d.Occurrences {
		db = appendBytes(db, docOccurrences, occurrenceBytes(o))
	}
	for _, s := range d.Symbols {
		db = appendBytes(db, docSymbols, symbolInformationBytes(s))
	}
	db = appendString(db, docText, d.Text)
	if d.PositionEncoding != 0 {
		db = appendVarint(db, docPositionEncoding, uint64(d.PositionEncoding))
	}
	return db
}

func occurrenceBytes(o Occurrence) []byte {
	var ob []byte
	ob = appendBytes(ob, occRange, packRange(o.Range))
	ob = appendString(ob, occSymbol, o.Symbol)
	if o.SymbolRoles != 0 {
		ob = appendVarint(ob, occSymbolRoles, uint64(o.SymbolRoles))
	}
	for _, s := range o.OverrideDocumentation {
		ob = appendString(ob, occOverrideDocumentation, s)
	}
	if o.SyntaxKind != 0 {
		ob = appendVarint(ob, occSyntaxKind, uint64(o.SyntaxKind))
	}
	if o.HasEnclosing {
		ob = appendBytes(ob, occEnclosingRange, packRange(o.EnclosingRange))
	}
	return ob
}

// packRange writes r in SCIP's packed form: three elements when it
// stays on one line.
func packRange(r Range) []byte {
	e := []int32{r.StartLine, r.StartChar, r.EndLine, r.EndChar}
	if r.StartLine == r.EndLine {
		e = []int32{r.StartLine, r.StartChar, r.EndChar}
	}
	var p []byte
	for _, x := range e {
		p = protowire.AppendVarint(p, uint64(int64(x)))
	}
	return p
}

func symbolInformationBytes(s SymbolInformation) []byte {
	var sb []byte
	sb = appendString(sb, infoSymbol, s.Symbol)
	for _, d := range s.Documentation {
		sb = appendString(sb, infoDocumentation, d)
	}
	for _, r := range s.Relationships {
		var rb []byte
		rb = appendString(rb, relSymbol, r.Symbol)
		for _, f := range []struct {
			num protowire.Number
			on  bool
		}{{relIsReference, r.IsReference}, {relIsImplementation, r.IsImplementation},
			{relIsTypeDefinition, r.IsTypeDefinition}, {relIsDefinition, r.IsDefinition}} {
			if f.on {
				rb = appendVarint(rb, f.num, 1)
			}
		}
		sb = appendBytes(sb, infoRelationships, rb)
	}
	if s.Kind != 0 {
		sb = appendVarint(sb, infoKind, uint64(s.Kind))
	}
	sb = appendString(sb, infoDisplayName, s.DisplayName)
	if s.SignatureText != "" || s.SignatureLanguage != "" {
		var db []byte
		db = appendString(db, docLanguage, s.SignatureLanguage)
		db = appendString(db, docText, s.SignatureText)
		sb = appendBytes(sb, infoSignatureDocumentation, db)
	}
	sb = appendString(sb, infoEnclosingSymbol, s.EnclosingSymbol)
	return sb
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}
