package query

import (
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Tool groups. A profile is a set of groups and tool names; the default
// profile is GroupCore: one tool for each kind of question an agent asks
// (overview, find, detail, outline, source, search in words, summary,
// references, callers, callees, implementations, effects, a type's
// protocol, the type at a position, a file's diagnostics, the impact of
// an edit), within what a model reads of tools/list (20,000 bytes of
// names, descriptions, input schemas and annotations). The other groups
// hold what those make rarely needed. Every tool is always a CLI
// subcommand, whatever the profile.
const (
	GroupCore = "core"
	// GroupGraph holds list_repositories: the one root's repository is the
	// default everywhere, and get_repository_overview describes it.
	GroupGraph = "graph"
	// GroupContext holds get_context_budget; the other context tools
	// (read_source, get_context_for_symbol, search_code) are core.
	GroupContext = "context"
	// GroupEffects holds emit_effect_graph, the drawing of what a root
	// reaches; explain_effects is core.
	GroupEffects = "effects"
	// GroupPosition holds render_ssa; the other compiler-backed position
	// tools (check_file, infer_type) are core. They answer from the live
	// package cache, compiled from the files on disk at the call.
	GroupPosition = "position"
	// GroupLSP holds the tools of the language-server bridge (lsp_*).
	GroupLSP = "lsp"
)

// ProfileDefault and ProfileAll are the two named profiles.
const (
	ProfileDefault = "default"
	ProfileAll     = "all"
)

// in returns t with its group set: registry entries outside the core
// group say so where they are listed.
func (t Tool) in(group string) Tool {
	t.Group = group
	return t
}

// Groups lists the tool groups in registry order.
func Groups() []string {
	var gs []string
	for _, t := range Tools() {
		if !slices.Contains(gs, t.Group) {
			gs = append(gs, t.Group)
		}
	}
	return gs
}

// SelectTools resolves a profile: "" or "default" (the core group), "all",
// or a comma-separated list of profiles, group names and tool names
// ("default,effects", "core,check_file"). Unknown names are
// INVALID_ARGUMENT, naming what exists.
func SelectTools(spec string) ([]Tool, error) {
	all := Tools()
	want := map[string]bool{}
	if strings.TrimSpace(spec) == "" {
		spec = ProfileDefault
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case item == ProfileDefault:
			item = GroupCore
		case item == ProfileAll:
			for _, t := range all {
				want[t.Name] = true
			}
			continue
		}
		found := false
		for _, t := range all {
			if t.Group == item || t.Name == item {
				want[t.Name] = true
				found = true
			}
		}
		if !found {
			return nil, graph.Errorf(graph.CodeInvalidArgument, "tools: unknown profile, group or tool %q (profiles: default, all; groups: %s)", item, strings.Join(Groups(), ", ")).WithData("field", "tools")
		}
	}
	var out []Tool
	for _, t := range all {
		if want[t.Name] {
			out = append(out, t)
		}
	}
	return out, nil
}
