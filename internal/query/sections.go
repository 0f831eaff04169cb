package query

import (
	"fmt"
	"strings"
)

// SectionInput is how a sectioned answer (explain_type,
// get_repository_overview) is asked for: its sections fitted to one
// budget, or one section in full, read on from the cursor its
// SectionOmitted row gave.
type SectionInput struct {
	Budget  int    `json:"budget,omitempty" jsonschema:"max tokens 300-8000 (default 1500)"`
	Section string `json:"section,omitempty" jsonschema:"one section in full, as omitted names it"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"cursor of an omitted section"`
}

// fitSectionRows chooses how many rows of each section of an answer to
// show within budget tokens (4 characters each): sections are filled in
// order, each with as many of its rows (at most caps[i]) as keep
// render(shown) within the budget, so a later section gets what the
// earlier ones left. render must render the answer with shown[i] rows
// of section i.
func fitSectionRows(caps []int, budget int, render func(shown []int) string) []int {
	shown := make([]int, len(caps))
	limit := budget * 4
	for i, c := range caps {
		lo, hi := 0, c // render with lo rows fits (or lo is 0)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			shown[i] = mid
			if len(render(shown)) <= limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		shown[i] = lo
	}
	return shown
}

// SectionOmitted names a section of an answer that its budget cut, and
// how to read the rest.
type SectionOmitted struct {
	Section string `json:"section" jsonschema:"the section"`
	Shown   int    `json:"shown" jsonschema:"rows shown, from its start or the cursor"`
	Total   int    `json:"total" jsonschema:"rows it has"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"pass with section to read on; none when shown is 0"`
}

// encodeOffsetCursor returns the cursor of offset for query in view, as
// Envelope.Page issues them; "" for offset 0, where a section starts
// without one.
func encodeOffsetCursor(query, view string, offset int) string {
	if offset == 0 {
		return ""
	}
	var env Envelope
	env.Page(offset+1, offset, 0, query, view)
	return *env.NextCursor
}

// writeOmitted says, in a text rendering, which sections the budget cut
// and how to read on.
func writeOmitted(b *strings.Builder, omitted []SectionOmitted) {
	var whole []string
	for _, om := range omitted {
		if om.Cursor == "" {
			whole = append(whole, fmt.Sprintf("%s (%d)", om.Section, om.Total))
			continue
		}
		fmt.Fprintf(b, "more: %s shows %d of %d; pass section %s, cursor %s\n", om.Section, om.Shown, om.Total, om.Section, om.Cursor)
	}
	if len(whole) > 0 {
		fmt.Fprintf(b, "left out: %s; pass section to read one\n", strings.Join(whole, ", "))
	}
}

// plural is "1 use" or "n uses".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
