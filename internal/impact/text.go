package impact

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
)

// answer pages the tests and then the affected declarations, and fits
// the page to the budget.
func (a *run) answer(ctx context.Context) (*Output, error) {
	w := a.walk
	out := &Output{Mode: a.req.Mode, Base: a.base, format: a.req.Format, notes: a.notes,
		Commands: a.cmds, Breaking: a.broken, TestsTotal: len(a.tests)}
	if a.rec != nil {
		out.Recording = a.rec.info
	}
	for _, t := range a.tests {
		if coverageRank(graph.Coverage(t.Coverage)) == 0 {
			out.testsExact++
		}
	}
	out.Completeness, out.BlindSpots = a.c.Verdict()
	for _, c := range a.changed {
		out.Changed = append(out.Changed, c.ChangedDecl)
	}
	var reachedDecls []*reached
	for _, k := range w.order {
		if n := w.nodes[k]; n.depth > 0 && n.test == "" {
			reachedDecls = append(reachedDecls, n)
		}
	}
	slices.SortStableFunc(reachedDecls, func(x, y *reached) int {
		return cmp.Or(cmp.Compare(x.depth, y.depth), strings.Compare(x.sym.Path, y.sym.Path), cmp.Compare(x.sym.StartLine, y.sym.StartLine))
	})
	var affected []AffectedDecl
	for _, n := range reachedDecls {
		affected = append(affected, AffectedDecl{QualifiedName: n.sym.QualifiedName, Kind: string(n.sym.Kind), Package: n.sym.PackagePath,
			Path: n.sym.Path, Line: n.sym.StartLine, StableKey: n.sym.Key, Depth: n.depth, Coverage: string(n.coverage), Via: n.via})
	}
	out.AffectedTot = len(affected)
	fp := a.req.Query
	vk := a.v.Key([]string{a.repo.Name})
	offset, err := answer.DecodeCursor(a.req.Cursor, fp, vk)
	if err != nil {
		return nil, err
	}
	total := len(a.tests) + len(affected)
	offset = min(offset, total)
	end := min(total, offset+a.req.Limit)
	out.offset = offset
	env := a.v.Envelope()
	show := func(n int) {
		out.Envelope = env
		out.Results, out.Affected = nil, nil
		for i := offset; i < offset+n; i++ {
			if i < len(a.tests) {
				out.Results = append(out.Results, a.tests[i])
			} else {
				d := affected[i-len(a.tests)]
				d.Reach = w.reach(d.StableKey) // spelled for the rows shown only
				out.Affected = append(out.Affected, d)
			}
		}
		out.Page(total, offset, n, fp, vk)
		out.budgetCut = offset+n < end
	}
	if a.req.Format == "commands" {
		show(end - offset)
		return out, nil
	}
	show(0)
	out.cmdShown = len(out.Commands)
	if answer.ApproxTokens(out.Text()) > a.req.Budget {
		// The commands alone do not fit: the text names their tests by
		// count, and then shows the first commands that fit; the
		// structured content and format commands have them all.
		out.compact = true
		if answer.ApproxTokens(out.Text()) > a.req.Budget {
			// Leave room for one row, which every page shows.
			out.cmdShown = answer.FitBudget(len(out.Commands), a.req.Budget-rowReserve, func(k int) string {
				out.cmdShown = k
				return out.Text()
			})
		}
	}
	if answer.ApproxTokens(out.Text()) > a.req.Budget-rowReserve {
		return out, nil // the rows come with the cursor
	}
	answer.FitRows(end-offset, a.req.Budget, show, out.Text)
	return out, nil
}

// rowReserve is the tokens kept for the one row a page shows when the
// rest of the answer fills the budget.
const rowReserve = 80

// Text renders the answer: what changed, what breaks, the commands, then
// this page's tests and affected declarations. With format commands it is
// the command lines alone, one per line, for a shell to run.
func (o *Output) Text() string {
	var b strings.Builder
	if o.format == "commands" {
		for _, c := range o.Commands {
			b.WriteString(c.Command + "\n")
		}
		return b.String()
	}
	what := map[string]string{ModeSymbol: "a change to", ModeLines: "a change to", ModeWorkingTree: "the working tree against HEAD",
		ModeBase: "the working tree against", ModeDiffText: "the diff"}[o.Mode]
	switch o.Mode {
	case ModeWorkingTree:
		what += " (" + shortID(o.Base) + ")"
	case ModeBase:
		what += " " + shortID(o.Base)
	}
	if (o.Mode == ModeSymbol || o.Mode == ModeLines) && len(o.Changed) > 0 {
		what += " " + o.Changed[0].QualifiedName
		if len(o.Changed) > 1 {
			what += fmt.Sprintf(" and %d more", len(o.Changed)-1)
		}
	}
	pkgs := map[string]bool{}
	for _, c := range o.Commands {
		pkgs[c.Dir] = true
	}
	fmt.Fprintf(&b, "impact of %s: %d changed, %d affected, %d tests in %d packages", what, len(o.Changed), o.AffectedTot, o.TestsTotal, len(pkgs))
	if o.testsExact < o.TestsTotal {
		// The rest are reached only through interfaces, function values
		// or initialisation; they are listed after these.
		fmt.Fprintf(&b, " (%d through static calls and uses)", o.testsExact)
	}
	b.WriteString("\n")
	for _, n := range o.notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if r := o.Recording; r != nil {
		fmt.Fprintf(&b, "recording of %s (%s old): %d of %d changes answered by the tests that ran them", r.RecordedAt,
			(time.Duration(r.AgeMS) * time.Millisecond).Round(time.Second), r.Covered, r.Changes)
		if r.Unrecorded > 0 {
			fmt.Fprintf(&b, "; %d tests it has no coverage of, from the static reach", r.Unrecorded)
		}
		b.WriteString("\n")
		for _, s := range r.Static {
			fmt.Fprintf(&b, "  static: %s\n", s)
		}
	}
	if o.Mode != ModeSymbol && len(o.Changed) > 0 {
		b.WriteString("changed:\n")
		for _, c := range o.Changed {
			fmt.Fprintf(&b, "  %s:%d %s %s %s\n", c.Path, c.Line, c.Kind, c.QualifiedName, c.Change)
		}
	}
	if len(o.Breaking) > 0 {
		b.WriteString("breaking:\n")
		for _, br := range o.Breaking {
			fmt.Fprintf(&b, "  %s: %s; %d break\n", br.QualifiedName, answer.QuoteContent(br.Detail), len(br.Broken))
			for i, s := range br.Broken {
				if i == 5 && len(br.Broken) > 6 {
					fmt.Fprintf(&b, "    +%d more (structured content lists all)\n", len(br.Broken)-5)
					break
				}
				in := ""
				if s.QualifiedName != "" {
					in = " " + s.QualifiedName
				}
				fmt.Fprintf(&b, "    %s:%d%s: %s\n", s.Path, s.Line, in, answer.QuoteContent(s.Why))
			}
		}
	}
	if len(o.Commands) > 0 {
		b.WriteString("run:\n")
		for i, c := range o.Commands {
			if i == o.cmdShown {
				fmt.Fprintf(&b, "  +%d more commands (budget); format commands prints them all\n", len(o.Commands)-i)
				break
			}
			if o.compact && len(c.Command) > 160 {
				fmt.Fprintf(&b, "  %s… (%d tests; format commands prints the whole line)\n", answer.CutUTF8(c.Command, 100), c.Tests)
				continue
			}
			fmt.Fprintf(&b, "  %s\n", c.Command)
		}
	}
	if len(o.Results) > 0 {
		fmt.Fprintf(&b, "tests %d-%d of %d (how each is reached):\n", o.offset+1, o.offset+len(o.Results), o.TestsTotal)
		dir := "\x00"
		for _, t := range o.Results {
			if t.Dir != dir {
				dir = t.Dir
				fmt.Fprintf(&b, " %s\n", dir)
			}
			if t.Source == SourceRecorded {
				fmt.Fprintf(&b, "  %s [recorded] ran %s\n", t.Name, t.Reach[len(t.Reach)-1])
				continue
			}
			if len(t.Reach) < 2 {
				fmt.Fprintf(&b, "  %s [%s]\n", t.Name, t.Via) // changed, or broken, itself
				continue
			}
			fmt.Fprintf(&b, "  %s [%s %s] %s\n", t.Name, t.Coverage, t.Via, reachText(t.Reach))
		}
	}
	if len(o.Affected) > 0 {
		first := o.offset + len(o.Results) - o.TestsTotal + 1
		if first < 1 {
			first = 1
		}
		fmt.Fprintf(&b, "affected %d-%d of %d (depth, declaration, how):\n", first, first+len(o.Affected)-1, o.AffectedTot)
		file := "\x00"
		for _, d := range o.Affected {
			if d.Path != file {
				file = d.Path
				fmt.Fprintf(&b, " %s\n", file)
			}
			fmt.Fprintf(&b, "  %d %d %s [%s %s] %s\n", d.Depth, d.Line, d.QualifiedName, d.Coverage, d.Via, reachText(d.Reach))
		}
	}
	blind.Write(&b, o.Completeness, o.BlindSpots)
	answer.WriteMore(&b, o.Envelope, o.offset, o.budgetCut, "tests and affected declarations")
	answer.WriteFreshness(&b, o.Envelope)
	return b.String()
}

// reachText spells a path of declarations from the reached one back to
// the change, eliding the middle of a long one.
func reachText(reach []string) string {
	if len(reach) > 5 {
		reach = append(append(append([]string{}, reach[:2]...), fmt.Sprintf("(%d more)", len(reach)-4)), reach[len(reach)-2:]...)
	}
	return "← " + strings.Join(reach[1:], " ← ")
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
