package query

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

func TestSelectTools(t *testing.T) {
	var core, all []string
	for _, tl := range Tools() {
		all = append(all, tl.Name)
		if tl.Group == GroupCore {
			core = append(core, tl.Name)
		}
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"", core},
		{"default", core},
		{"all", all},
		{"core", core},
		{" find_symbol , get_symbol ", []string{"find_symbol", "get_symbol"}},
		{"default,all", all},
	} {
		ts, err := SelectTools(tc.spec)
		if err != nil {
			t.Fatalf("SelectTools(%q): %v", tc.spec, err)
		}
		var got []string
		for _, tl := range ts {
			got = append(got, tl.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("SelectTools(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	_, err := SelectTools("core,nosuch")
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeInvalidArgument {
		t.Fatalf("unknown name: err = %v, want INVALID_ARGUMENT", err)
	}
}

// defaultTools is the default profile: one tool for each kind of
// question. (get_impact joins it where it is built.)
var defaultTools = []string{"get_repository_overview", "find_symbol", "get_symbol", "get_file_outline", "read_source",
	"search_code", "get_context_for_symbol", "find_references", "get_callers", "get_callees", "find_implementations",
	"explain_effects", "explain_type", "infer_type", "check_file"}

func TestDefaultProfile(t *testing.T) {
	ts, err := SelectTools(ProfileDefault)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range ts {
		got = append(got, tl.Name)
	}
	want := slices.Clone(defaultTools)
	if _, ok := LookupTool("get_impact"); ok {
		want = append(want, "get_impact")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("default profile = %v, want %v", got, want)
	}
	for _, tl := range Tools() {
		if tl.Group != GroupCore && slices.Contains(defaultTools, tl.Name) {
			t.Errorf("%s is in group %s, want core", tl.Name, tl.Group)
		}
	}
}

// TestInstructionsRouteFirstCalls checks that the guide sends an agent to
// the overview first, then find and get, and names get_impact and
// check_file for the end of an edit, when those are published.
func TestInstructionsRouteFirstCalls(t *testing.T) {
	ts, _ := SelectTools(ProfileDefault)
	text := InstructionsFor(ts)
	first, _, ok := strings.Cut(text, "Which tool for which question")
	if !ok {
		t.Fatalf("no routing table in:\n%s", text)
	}
	order := []string{"get_repository_overview", "find_symbol", "get_symbol", "check_file"}
	if _, ok := LookupTool("get_impact"); ok {
		order = append(order[:3], "get_impact", "check_file")
	}
	at := -1
	for _, name := range order {
		i := strings.Index(first, name)
		if i <= at {
			t.Errorf("first calls name %s at %d, want it after the previous (%d):\n%s", name, i, at, first)
		}
		at = i
	}
	fake := append(slices.Clone(ts), Tool{Name: "get_impact"})
	if text := InstructionsFor(fake); !strings.Contains(text, "Before you finish an edit, call get_impact") {
		t.Errorf("get_impact published but not named before an edit is finished:\n%s", text)
	}
	if text := InstructionsFor([]Tool{{Name: "find_symbol"}}); strings.Contains(text, "get_repository_overview") {
		t.Errorf("the guide names a tool that is not published:\n%s", text)
	}
}
