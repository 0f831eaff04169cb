package doctor

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a person, in one screen: a line per
// check, its fix under it, and the verdict. A check the roots need that
// is not there is in capitals.
func (r Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s on %s/%s\n", r.Version, r.OS, r.Arch)
	for _, root := range r.Roots {
		switch {
		case root.Error != "":
			fmt.Fprintf(w, "root %s: %s\n", root.Dir, root.Error)
		case len(root.Needs) == 0:
			fmt.Fprintf(w, "root %s: needs nothing beyond sextant\n", root.Dir)
		default:
			fmt.Fprintf(w, "root %s: needs %s\n", root.Dir, strings.Join(root.Needs, ", "))
		}
	}
	feature := ""
	failing := 0
	for _, c := range r.Checks {
		if c.Feature != feature {
			feature = c.Feature
			fmt.Fprintf(w, "\n%s\n", featureTitle[feature])
		}
		status := string(c.Status)
		if c.Failing() {
			status = strings.ToUpper(status)
			failing++
		}
		var parts []string
		if c.Version != "" {
			parts = append(parts, c.Version)
		}
		if c.Path != "" && c.Feature != "lsp" && c.Feature != "scip" {
			parts = append(parts, c.Path)
		}
		if c.Detail != "" {
			parts = append(parts, "- "+c.Detail)
		}
		line := fmt.Sprintf("  %-8s %-26s %s", status, c.Name, strings.Join(parts, " "))
		if c.Failing() && !(len(c.NeededBy) == 1 && c.NeededBy[0] == "sextant") {
			line += " (needed by " + strings.Join(c.NeededBy, ", ") + ")"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if c.Fix != "" && c.Status != OK {
			fmt.Fprintf(w, "           fix: %s\n", c.Fix)
		}
	}
	fmt.Fprintln(w)
	if r.OK {
		fmt.Fprintln(w, "Everything the roots need is here.")
		return
	}
	fmt.Fprintf(w, "%d needed piece(s) missing or unusable: run the fix under each line in capitals.\n", failing)
}

var featureTitle = map[string]string{
	"go":       "Go",
	"git":      "Git",
	"scip":     "SCIP indexers (TypeScript, JavaScript, Python)",
	"lsp":      "Language servers (lsp_* tools, optional)",
	"cache":    "Directories",
	"database": "Database",
	"guard":    "Platform guards",
}
