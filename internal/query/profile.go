package query

import (
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Tool groups. A profile is a set of groups and tool names; the default
// profile is GroupCore, whose tools/list stays under 24 KB so that an
// agent's context is not spent on tools it rarely needs. Every tool is
// always a CLI subcommand, whatever the profile.
const (
	GroupCore    = "core"
	GroupEffects = "effects" // explain_effects, emit_effect_graph
	// GroupGraph holds what the core tools mostly make unneeded: the list
	// of repositories (the one root's is the default everywhere) and
	// callees (read_source's depth shows what a function calls).
	GroupGraph = "graph"
	// GroupContext holds get_context_budget; the other context tools
	// (read_source, get_context_for_symbol, search_code) are core.
	GroupContext = "context"
	// GroupPosition holds the compiler-backed position tools (check_file,
	// infer_type, render_ssa): they answer from the live package cache,
	// compiled from the files on disk at the call, not from the index.
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
