package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReplaceOverlay drops, from a unit's go.mod and go.work and the go.mod
// of each module a workspace uses, exactly the replace directives that
// point at a directory outside the root, and leaves files without any
// to the go command.
func TestReplaceOverlay(t *testing.T) {
	base := writeTree(t, map[string]string{
		"r/go.mod": "module example.com/a\n\ngo 1.22\n\nreplace (\n\texample.com/out => ../out\n\texample.com/abs => ABS\n" +
			"\texample.com/in => ./in\n\texample.com/ver => example.com/fork v1.0.0\n\texample.com/up => ../r/in\n)\n",
		"r/in/go.mod":    "module example.com/in\n\ngo 1.22\n",
		"r/clean/go.mod": "module example.com/clean\n\ngo 1.22\n\nreplace example.com/in => ../in\n",
		"r/w/go.work":    "go 1.22\n\nuse ./m\n\nreplace example.com/x => ../../elsewhere\n",
		"r/w/m/go.mod":   "module example.com/m\n\ngo 1.22\n\nreplace example.com/y => ../../../y\n",
	})
	root := filepath.Join(base, "r")
	// An absolute path outside the root, spelled as this system spells
	// one: on Windows "/nowhere" is relative to the module's directory, as
	// the go command reads it too.
	abs := filepath.ToSlash(filepath.Join(base, "nowhere", "abs"))
	gomod := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gomod, []byte(strings.Replace(string(data), "ABS", abs, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		unit  Unit
		files map[string][]string // overlaid file (relative to root) → what it must and must not hold ("-" prefix)
	}{
		{"module", Unit{Dir: root}, map[string][]string{"go.mod": {"./in", "example.com/fork v1.0.0", "../r/in", "-../out", "-nowhere"}}},
		{"clean", Unit{Dir: filepath.Join(root, "clean")}, nil},
		{"workspace", Unit{Dir: filepath.Join(root, "w"), Workspace: true}, map[string][]string{"w/go.work": {"use ./m", "-elsewhere"}, "w/m/go.mod": {"module example.com/m", "-../y"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			overlay := ReplaceOverlay(root, tc.unit)
			if len(overlay) != len(tc.files) {
				t.Errorf("overlay of %d files, want %d: %q", len(overlay), len(tc.files), overlay)
			}
			for rel, checks := range tc.files {
				got, ok := overlay[filepath.Join(root, filepath.FromSlash(rel))]
				if !ok {
					t.Errorf("%s is not overlaid", rel)
					continue
				}
				for _, c := range checks {
					if not, ok := strings.CutPrefix(c, "-"); ok {
						if strings.Contains(string(got), not) {
							t.Errorf("%s still holds %q:\n%s", rel, not, got)
						}
					} else if !strings.Contains(string(got), c) {
						t.Errorf("%s lost %q:\n%s", rel, c, got)
					}
				}
			}
		})
	}
}
