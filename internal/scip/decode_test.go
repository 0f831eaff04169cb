package scip_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/scip"
)

// The example indexes in testdata were written by scip-typescript 0.4.0
// and scip-python 0.6.6 (see e2e/lsp/package.json) from a two-file
// TypeScript project and a two-file Python package.

type collected struct {
	meta  scip.Metadata
	docs  []*scip.Document
	ext   []scip.SymbolInformation
	skips []scip.Skip
}

func decodeAll(t testing.TB, b []byte, lim scip.Limits) (collected, scip.Stats, error) {
	t.Helper()
	var c collected
	st, err := scip.Decode(context.Background(), bytes.NewReader(b), lim, scip.Visitor{
		Metadata:       func(m scip.Metadata) error { c.meta = m; return nil },
		Document:       func(d *scip.Document) error { c.docs = append(c.docs, d); return nil },
		ExternalSymbol: func(s scip.SymbolInformation) error { c.ext = append(c.ext, s); return nil },
		Skipped:        func(s scip.Skip) { c.skips = append(c.skips, s) },
	})
	return c, st, err
}

func TestDecodeExamples(t *testing.T) {
	for _, tc := range []struct {
		file, tool, firstPath string
		docs, ext             int
		occ0                  string
	}{
		{"testdata/ts.scip", "scip-typescript", "src/a.ts", 2, 0, "scip-typescript npm . . src/`a.ts`/"},
		{"testdata/py.scip", "scip-python", "pkg/__init__.py", 2, 1, "scip-python python demo 0.1 pkg/__init__:"},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		c, st, err := decodeAll(t, b, scip.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if c.meta.ToolName != tc.tool || len(c.docs) != tc.docs || len(c.ext) != tc.ext || st.Bytes != int64(len(b)) {
			t.Errorf("%s: tool %q, %d docs, %d external, %d bytes of %d", tc.file, c.meta.ToolName, len(c.docs), len(c.ext), st.Bytes, len(b))
		}
		if c.docs[0].RelativePath != tc.firstPath || c.docs[0].Occurrences[0].Symbol != tc.occ0 {
			t.Errorf("%s: first document %q, first occurrence %q", tc.file, c.docs[0].RelativePath, c.docs[0].Occurrences[0].Symbol)
		}
	}
}

// TestDecodeRoundTrip: what the encoder writes, the decoder reads back
// whole, both range forms included.
func TestDecodeRoundTrip(t *testing.T) {
	doc := &scip.Document{RelativePath: "a/b.ts", Language: "typescript", Text: "x", PositionEncoding: 1,
		Occurrences: []scip.Occurrence{
			{Range: scip.Range{StartLine: 1, StartChar: 2, EndLine: 1, EndChar: 5}, Symbol: "s a b c d#", SymbolRoles: scip.RoleDefinition,
				EnclosingRange: scip.Range{StartLine: 0, StartChar: 0, EndLine: 3, EndChar: 1}, HasEnclosing: true, SyntaxKind: 6,
				OverrideDocumentation: []string{"o"}},
			{Range: scip.Range{StartLine: 2, StartChar: 0, EndLine: 4, EndChar: 1}, Symbol: "local 1", SymbolRoles: scip.RoleWriteAccess},
		},
		Symbols: []scip.SymbolInformation{{Symbol: "s a b c d#", Documentation: []string{"```ts\nclass d\n```", "doc"}, Kind: 7,
			DisplayName: "d", SignatureLanguage: "ts", SignatureText: "class d", EnclosingSymbol: "s a b c e#",
			Relationships: []scip.Relationship{{Symbol: "s a b c i#", IsImplementation: true, IsReference: true, IsTypeDefinition: true, IsDefinition: true}}}},
	}
	var b []byte
	b = scip.AppendMetadata(b, scip.Metadata{Version: 1, ToolName: "t", ToolVersion: "1", ToolArguments: []string{"x"}, ProjectRoot: "file:///r", TextDocumentEncoding: 1})
	b = scip.AppendDocument(b, doc)
	b = scip.AppendExternalSymbol(b, scip.SymbolInformation{Symbol: "s a b c x#"})
	c, _, err := decodeAll(t, b, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 1 || len(c.ext) != 1 || c.meta.ProjectRoot != "file:///r" || c.meta.ToolArguments[0] != "x" {
		t.Fatalf("got %+v", c)
	}
	got := c.docs[0]
	if got.RelativePath != doc.RelativePath || got.Language != doc.Language || got.Text != "x" || got.PositionEncoding != 1 ||
		len(got.Occurrences) != 2 || len(got.Symbols) != 1 {
		t.Fatalf("document %+v", got)
	}
	for i, o := range got.Occurrences {
		w := doc.Occurrences[i]
		if o.Range != w.Range || o.Symbol != w.Symbol || o.SymbolRoles != w.SymbolRoles || o.HasEnclosing != w.HasEnclosing ||
			o.EnclosingRange != w.EnclosingRange || o.SyntaxKind != w.SyntaxKind || len(o.OverrideDocumentation) != len(w.OverrideDocumentation) {
			t.Errorf("occurrence %d: got %+v, want %+v", i, o, w)
		}
	}
	s, w := got.Symbols[0], doc.Symbols[0]
	if s.Symbol != w.Symbol || len(s.Documentation) != 2 || s.Kind != 7 || s.DisplayName != "d" || s.SignatureText != "class d" ||
		s.SignatureLanguage != "ts" || s.EnclosingSymbol != w.EnclosingSymbol || len(s.Relationships) != 1 || s.Relationships[0] != w.Relationships[0] {
		t.Errorf("symbol: got %+v, want %+v", s, w)
	}
}

func field(num protowire.Number, payload []byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

func occ(rng []uint64, sym string) []byte {
	var p []byte
	for _, x := range rng {
		p = protowire.AppendVarint(p, x)
	}
	o := field(1, p)
	return append(o, field(2, []byte(sym))...)
}

// TestDecodeHostile: each broken input is an error with its code, or a
// document skipped with a reason while the rest is read.
func TestDecodeHostile(t *testing.T) {
	good := scip.AppendDocument(nil, &scip.Document{RelativePath: "ok.ts"})
	neg := uint64(1<<64 - 1) // -1 as an int32 varint
	for _, tc := range []struct {
		name     string
		in       []byte
		lim      scip.Limits
		code     graph.Code // "" when no error is expected
		skips    int
		docs     int
		badRange int
	}{
		{name: "empty", in: nil},
		{name: "garbage", in: []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), code: graph.CodeParseError},
		{name: "text", in: []byte("hello, this is not an index"), code: graph.CodeParseError},
		{name: "truncated length", in: []byte{0x12}, code: graph.CodeParseError},
		{name: "truncated document", in: good[:len(good)-1], code: graph.CodeParseError},
		{name: "truncated varint", in: []byte{0x12, 0x80}, code: graph.CodeParseError},
		{name: "documents as varint", in: []byte{0x10, 0x01}, code: graph.CodeParseError},
		{name: "field zero", in: []byte{0x02, 0x00}, code: graph.CodeParseError},
		{name: "huge length", in: append([]byte{0x12}, protowire.AppendVarint(nil, 1<<62)...), code: graph.CodeParseError, skips: 0},
		{name: "unknown fields skipped", in: append(append(protowire.AppendVarint([]byte{0x48}, 7), field(10, []byte("zz"))...), good...), docs: 1},
		{name: "document over limit", in: append(scip.AppendDocument(nil, &scip.Document{RelativePath: strings.Repeat("x", 200)}), good...),
			lim: scip.Limits{MaxDocumentBytes: 100}, skips: 1, docs: 1},
		{name: "symbol over limit", in: append(field(2, append(field(1, []byte("a.ts")), field(2, occ([]uint64{0, 0, 1}, strings.Repeat("s", 300)))...)), good...),
			lim: scip.Limits{MaxSymbolBytes: 256}, skips: 1, docs: 1},
		{name: "occurrences over limit", in: append(field(2, bytes.Repeat(field(2, occ([]uint64{0, 0, 1}, "local 1")), 5)), good...),
			lim: scip.Limits{MaxOccurrences: 4}, skips: 1, docs: 1},
		{name: "malformed document", in: append(field(2, []byte{0x0a, 0x05, 'a'}), good...), skips: 1, docs: 1},
		{name: "bad ranges dropped", in: field(2, bytes.Join([][]byte{
			field(2, occ([]uint64{1, 2}, "local 1")),          // two elements
			field(2, occ([]uint64{1, 2, 3, 4, 5}, "local 1")), // five
			field(2, occ([]uint64{neg, 0, 1}, "local 1")),     // negative
			field(2, occ([]uint64{3, 5, 2, 0}, "local 1")),    // ends before it starts
			field(2, occ([]uint64{3, 5, 4, 0}, "local 1")),    // fine
		}, nil)), docs: 1, badRange: 4},
		{name: "metadata over limit", in: scip.AppendMetadata(nil, scip.Metadata{ProjectRoot: strings.Repeat("r", 200)}), lim: scip.Limits{MaxDocumentBytes: 100}, code: graph.CodeParseError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st, err := decodeAll(t, tc.in, tc.lim)
			if tc.code != "" {
				if err == nil || graph.CodeOf(err) != tc.code {
					t.Fatalf("err %v, want code %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.skips) != tc.skips || st.Skipped != tc.skips || len(c.docs) != tc.docs {
				t.Fatalf("%d skips (%+v), %d documents; want %d, %d", len(c.skips), c.skips, len(c.docs), tc.skips, tc.docs)
			}
			for _, s := range c.skips {
				if s.Reason == "" {
					t.Errorf("skip without a reason: %+v", s)
				}
			}
			if tc.badRange > 0 && (c.docs[0].BadRanges != tc.badRange || len(c.docs[0].Occurrences) != 5-tc.badRange) {
				t.Errorf("%d bad ranges, %d occurrences kept", c.docs[0].BadRanges, len(c.docs[0].Occurrences))
			}
		})
	}
}

// TestDecodeReadError: a reader that fails is READ_ERROR; a visitor's
// error comes back as it is.
func TestDecodeErrors(t *testing.T) {
	good := scip.AppendDocument(nil, &scip.Document{RelativePath: "ok.ts"})
	r := io.MultiReader(bytes.NewReader(good[:3]), iotestErr{})
	_, err := scip.Decode(context.Background(), r, scip.Limits{}, scip.Visitor{})
	if graph.CodeOf(err) != graph.CodeReadError {
		t.Errorf("failing reader: %v", err)
	}
	stop := errors.New("stop")
	_, err = scip.Decode(context.Background(), bytes.NewReader(good), scip.Limits{}, scip.Visitor{Document: func(*scip.Document) error { return stop }})
	if err != stop {
		t.Errorf("visitor error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := scip.Decode(ctx, bytes.NewReader(good), scip.Limits{}, scip.Visitor{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// TestDecodeBoundedHeap: an index of hundreds of MiB, written through a
// pipe as it is read, is decoded with a heap that follows the largest
// document, not the file.
func TestDecodeBoundedHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MiB through a pipe")
	}
	const total = 300 << 20
	// One document of about 1 MiB: 8,000 occurrences of distinct symbols
	// and a text of 512 KiB.
	doc := &scip.Document{RelativePath: "src/big.ts", Text: strings.Repeat("x", 512<<10)}
	for i := range 8000 {
		doc.Occurrences = append(doc.Occurrences, scip.Occurrence{Range: scip.Range{StartLine: int32(i), EndLine: int32(i), EndChar: 4},
			Symbol: "scip-typescript npm p 1.0.0 src/`big.ts`/Type" + strings.Repeat("a", 40) + string(rune('a'+i%26)) + "#m" + itoa(i) + "()."})
	}
	one := scip.AppendDocument(nil, doc)
	n := total / len(one)
	pr, pw := io.Pipe()
	go func() {
		pw.Write(scip.AppendMetadata(nil, scip.Metadata{ToolName: "gen"}))
		for range n {
			if _, err := pw.Write(one); err != nil {
				return
			}
		}
		pw.Close()
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	docs := 0
	st, err := scip.Decode(context.Background(), pr, scip.Limits{MaxDocumentBytes: 4 << 20}, scip.Visitor{
		Document: func(d *scip.Document) error {
			docs++
			if len(d.Occurrences) != 8000 {
				t.Fatalf("document %d: %d occurrences", docs, len(d.Occurrences))
			}
			if docs%16 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return nil
		},
	})
	pr.Close()
	if err != nil {
		t.Fatal(err)
	}
	if docs != n || st.Bytes < total/2 {
		t.Fatalf("%d documents of %d, %d bytes", docs, n, st.Bytes)
	}
	growth := int64(peak) - int64(base)
	t.Logf("%d MiB in %d documents; heap grew at most %d MiB", st.Bytes>>20, docs, growth>>20)
	if growth > 48<<20 {
		t.Errorf("heap grew by %d MiB decoding %d MiB: not bounded by the document", growth>>20, st.Bytes>>20)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// FuzzDecode: no input panics, hangs or allocates beyond the limits; what
// decodes re-encodes and decodes to the same documents.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{"testdata/ts.scip", "testdata/py.scip"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x12, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := scip.Limits{MaxDocumentBytes: 1 << 16, MaxSymbolBytes: 256, MaxOccurrences: 512}
		c, _, err := decodeAll(t, b, lim)
		if err != nil {
			if code := graph.CodeOf(err); code != graph.CodeParseError {
				t.Fatalf("error with code %s: %v", code, err)
			}
			return
		}
		var re []byte
		for _, d := range c.docs {
			for _, o := range d.Occurrences {
				if len(o.Symbol) > lim.MaxSymbolBytes {
					t.Fatalf("symbol of %d bytes passed the limit", len(o.Symbol))
				}
			}
			if len(d.Occurrences) > lim.MaxOccurrences {
				t.Fatalf("%d occurrences passed the limit", len(d.Occurrences))
			}
			re = scip.AppendDocument(re, d)
		}
		c2, _, err := decodeAll(t, re, scip.Limits{})
		if err != nil || len(c2.docs) != len(c.docs) {
			t.Fatalf("re-encoded: %v, %d documents of %d", err, len(c2.docs), len(c.docs))
		}
		for i, d := range c2.docs {
			if d.RelativePath != c.docs[i].RelativePath || len(d.Occurrences) != len(c.docs[i].Occurrences) || len(d.Symbols) != len(c.docs[i].Symbols) {
				t.Fatalf("document %d changed in a round trip", i)
			}
		}
	})
}
