package webui

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/query"
)

// TestLayoutCaps: a graph of 100,000 nodes draws at most layerCap nodes
// per layer plus one "more" node, whatever it is given, and counts the
// rest as hidden.
func TestLayoutCaps(t *testing.T) {
	var nodes []gnode
	var edges []gedge
	for i := range 100000 {
		id := "n" + strconv.Itoa(i)
		nodes = append(nodes, gnode{ID: id, Label: id, Layer: i % 4})
		if i >= 4 {
			edges = append(edges, gedge{From: "n" + strconv.Itoa(i-4), To: id, Coverage: "exact"})
		}
	}
	d := layout(nodes, edges, layerCap, "/more")
	if len(d.Nodes) != 4*(layerCap+1) {
		t.Errorf("drew %d nodes, want %d: %d a layer and a more node", len(d.Nodes), 4*(layerCap+1), layerCap)
	}
	if d.Hidden != 100000-4*layerCap {
		t.Errorf("hidden %d, want %d", d.Hidden, 100000-4*layerCap)
	}
	for _, n := range d.Nodes {
		if n.Class == "more" && n.Href != "/more" {
			t.Errorf("more node links to %q", n.Href)
		}
		if n.X+n.W > d.W || n.Y+n.H > d.H {
			t.Errorf("node %s at %.0f,%.0f+%.0f outside the drawing's %.0f×%.0f", n.ID, n.X, n.Y, n.W, d.W, d.H)
		}
	}
}

// TestLayoutLabels: a long or hostile label is cut to maxLabel
// characters, never mid-rune, and an unknown coverage draws as unknown.
func TestLayoutLabels(t *testing.T) {
	long := strings.Repeat("é", 100)
	d := layout([]gnode{{ID: "a", Label: long}, {ID: "b", Label: "b", Layer: 1}}, []gedge{{From: "a", To: "b", Coverage: `" onclick="x`}}, layerCap, "")
	if got := d.Nodes[0].Label; utf8.RuneCountInString(got) != maxLabel || !utf8.ValidString(got) {
		t.Errorf("label cut to %q", got)
	}
	if len(d.Edges) != 1 || d.Edges[0].Coverage != "unknown" {
		t.Errorf("edges %+v, want one of class unknown", d.Edges)
	}
}

// TestGoLines: identifiers link to /def at their character column,
// predeclared names and _ do not, and a comment or raw string spanning
// lines is styled on each.
func TestGoLines(t *testing.T) {
	src := "func F(é, x int) {\n\ts := `a\nb` // c\n\t_ = s + \"π\" + x\n}\n"
	lines := goLines(src, "/r/f.go", "r", 10, "", true)
	if len(lines) != 5 || lines[0].N != 10 {
		t.Fatalf("%d lines from %d", len(lines), lines[0].N)
	}
	links := map[string]string{}
	for _, l := range lines {
		var text strings.Builder
		for _, s := range l.Spans {
			text.WriteString(s.Text)
			if s.Href != "" {
				links[s.Text+"@"+strconv.Itoa(l.N)] = s.Href
			}
		}
		if want := strings.Split(src, "\n")[l.N-10]; text.String() != want {
			t.Errorf("line %d reads %q, want %q", l.N, text.String(), want)
		}
	}
	if h := links["x@10"]; !strings.Contains(h, "col=11") || !strings.Contains(h, "line=10") {
		t.Errorf("x on line 10 links to %q, want column 11 in characters", h)
	}
	for _, not := range []string{"int@10", "_@13"} {
		if h, ok := links[not]; ok {
			t.Errorf("%s is linked (%s)", not, h)
		}
	}
	if lines[2].Spans[0].Class != "str" {
		t.Errorf("the raw string's second line is %+v, want str", lines[2].Spans[0])
	}
}

// TestScriptLines: an identifier links where the index has a use at its
// line and character column, nothing else does, the text is kept whole,
// and a cut first line links nothing.
func TestScriptLines(t *testing.T) {
	src := "function f(é, x) {\n  return g(é) + x; // g\n}\n"
	uses := []query.ScriptUse{{Line: 11, Col: 10, Target: "G"}, {Line: 11, Col: 12, Target: "E"}, {Line: 10, Col: 10, Target: "F"}}
	for _, c := range []struct {
		linkFirst bool
		want      map[string]string // text@line: href
	}{
		{true, map[string]string{"f@10": "/symbol?key=F", "g@11": "/symbol?key=G", "é@11": "/symbol?key=E"}},
		{false, map[string]string{"g@11": "/symbol?key=G", "é@11": "/symbol?key=E"}},
	} {
		lines := scriptLines(src, 10, uses, c.linkFirst)
		got := map[string]string{}
		for i, l := range lines {
			var text strings.Builder
			for _, s := range l.Spans {
				text.WriteString(s.Text)
				if s.Href != "" {
					got[s.Text+"@"+strconv.Itoa(l.N)] = s.Href
				}
			}
			if want := strings.Split(src, "\n")[i]; text.String() != want {
				t.Errorf("line %d reads %q, want %q", l.N, text.String(), want)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("linkFirst %v: links %v, want %v", c.linkFirst, got, c.want)
		}
	}
}
