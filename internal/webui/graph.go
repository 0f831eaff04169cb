package webui

import (
	"slices"
	"unicode/utf8"
)

// A drawing of a graph in layers, laid out on the server as SVG so the
// browser needs no layout library: each node sits in the layer the tool
// put it in (a call depth, a step from a change, an import layer), nodes
// in a layer are ordered by the mean position of their neighbours in the
// layer before (one barycentre sweep, enough for trees and near-trees),
// and edges are drawn by coverage. A layer shows at most layerCap nodes;
// the rest are counted in one "more" node linking to a larger cap, so a
// graph of any size draws in bounded time and never as a hairball.

// gnode is a node given to layout.
type gnode struct {
	ID     string // unique in the graph
	Label  string
	Title  string // the tooltip: the full name
	Href   string // the node's page
	Class  string // root, test, changed, more
	Layer  int
	Expand string // a link adding the node's next level, if it has one unseen
}

// gedge is an edge given to layout, between node IDs.
type gedge struct {
	From, To string
	Coverage string // exact, candidate, unresolved, package_level
}

// placed is a node with its place in the drawing.
type placed struct {
	gnode
	X, Y, W, H float64
	TX, TY     float64 // the label's anchor
	EX         float64 // the expand control's x, when Expand is set
	Focus      bool    // the first node, focused from the keyboard first
}

// route is an edge with its path.
type route struct {
	D        string
	Coverage string
}

// drawing is a laid-out graph, ready for the svg template.
type drawing struct {
	W, H   float64
	Nodes  []placed
	Edges  []route
	Hidden int    // nodes beyond the caps
	Beyond string // what the tools left out before the caps, if anything
}

const (
	nodeH     = 28.0
	layerGap  = 64.0
	nodeGap   = 14.0
	charW     = 7.2
	maxLabel  = 40 // characters of a label drawn; the title has all
	expandW   = 22.0
	marginPad = 12.0
	rowMax    = 6    // nodes side by side in a layer before it wraps
	rowGap    = 24.0 // between the rows of one wrapped layer
)

// layout places nodes in their layers, top (layer 0) to bottom, keeping
// at most layerCap per layer (in the order given, which is the tools'
// ranking) and adding to each cut layer a node more whose link is
// moreHref. A layer wider than rowMax nodes wraps onto further rows, so a
// drawing stays about a screen wide.
func layout(nodes []gnode, edges []gedge, layerCap int, moreHref string) drawing {
	var d drawing
	layers := map[int][]gnode{}
	var order []int
	for _, n := range nodes {
		if _, ok := layers[n.Layer]; !ok {
			order = append(order, n.Layer)
		}
		layers[n.Layer] = append(layers[n.Layer], n)
	}
	slices.Sort(order)
	kept := map[string]bool{}
	pos := map[string]float64{} // a kept node's centre x, for ordering the next layer
	y := marginPad
	var rows [][]*placed
	for _, l := range order {
		ns := layers[l]
		if len(ns) > layerCap {
			d.Hidden += len(ns) - layerCap
			more := gnode{ID: "more:" + itoa(l), Label: "+" + itoa(len(ns)-layerCap) + " more", Href: moreHref, Class: "more", Layer: l}
			ns = append(slices.Clone(ns[:layerCap]), more)
		}
		// Order by the mean x of neighbours already placed.
		bary := func(n gnode) float64 {
			sum, k := 0.0, 0
			for _, e := range edges {
				var other string
				switch n.ID {
				case e.From:
					other = e.To
				case e.To:
					other = e.From
				default:
					continue
				}
				if x, ok := pos[other]; ok {
					sum += x
					k++
				}
			}
			if k == 0 {
				return 1e18 // unconnected above: keep the given order, at the end
			}
			return sum / float64(k)
		}
		keys := make([]float64, len(ns))
		for i, n := range ns {
			keys[i] = bary(n)
		}
		idx := make([]int, len(ns))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case keys[a] < keys[b]:
				return -1
			case keys[a] > keys[b]:
				return 1
			}
			return 0
		})
		x := marginPad
		var row []*placed
		for k, i := range idx {
			if k > 0 && k%rowMax == 0 { // a wide layer wraps onto rows of its own
				x = marginPad
				y += nodeH + rowGap
			}
			n := ns[i]
			label := n.Label
			if utf8.RuneCountInString(label) > maxLabel {
				label = string([]rune(label)[:maxLabel-1]) + "…"
			}
			n.Label = label
			w := float64(utf8.RuneCountInString(label))*charW + 20
			if n.Expand != "" {
				w += expandW
			}
			p := &placed{gnode: n, X: x, Y: y, W: w, H: nodeH, TX: x + 10, TY: y + nodeH/2 + 4}
			if n.Expand != "" {
				p.EX = x + w - expandW + 4
			}
			pos[n.ID] = x + w/2
			kept[n.ID] = true
			row = append(row, p)
			x += w + nodeGap
			d.W = max(d.W, x+marginPad)
		}
		rows = append(rows, row)
		y += nodeH + layerGap
	}
	d.H = y - layerGap + marginPad
	byID := map[string]*placed{}
	for _, row := range rows {
		for _, p := range row {
			byID[p.ID] = p
			d.Nodes = append(d.Nodes, *p)
		}
	}
	if len(d.Nodes) > 0 {
		d.Nodes[0].Focus = true
	}
	for _, e := range edges {
		a, b := byID[e.From], byID[e.To]
		if a == nil || b == nil || a == b {
			continue
		}
		// From the lower edge of the upper node to the upper edge of the
		// lower one, as a curve.
		top, bot := a, b
		if top.Y > bot.Y {
			top, bot = b, a
		}
		x1, y1 := top.X+top.W/2, top.Y+top.H
		x2, y2 := bot.X+bot.W/2, bot.Y
		if top.Y == bot.Y { // same layer: an arc below
			y1, y2 = top.Y+top.H, bot.Y+bot.H
		}
		my := (y1 + y2) / 2
		if top.Y == bot.Y {
			my = y1 + layerGap/2
		}
		d.Edges = append(d.Edges, route{D: "M" + ftoa(x1) + " " + ftoa(y1) + " C" + ftoa(x1) + " " + ftoa(my) + " " + ftoa(x2) + " " + ftoa(my) + " " + ftoa(x2) + " " + ftoa(y2), Coverage: coverageClass(e.Coverage)})
	}
	return d
}

// coverageClass is the style of an edge of a coverage: one of a known set,
// never a value read from elsewhere.
func coverageClass(c string) string {
	switch c {
	case "exact", "candidate", "unresolved", "package_level":
		return c
	}
	return "unknown"
}
