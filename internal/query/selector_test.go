package query

import (
	"reflect"
	"testing"

	"github.com/sextant-dev/sextant/internal/answer"
)

// TestSelectorDeclaredOnce: every tool that selects a symbol takes the
// selector's parameters from the one embedded type, and a tool that words
// them itself names only parameters it has, so no rewording is lost to a
// typo or a renamed field.
func TestSelectorDeclaredOnce(t *testing.T) {
	id := reflect.TypeFor[SymbolID]()
	for _, tl := range Tools() {
		fields := answer.JSONFields(tl.Input)
		for name := range tl.ParamDocs {
			if _, ok := fields[name]; !ok {
				t.Errorf("%s: ParamDocs describes %q, which is not a parameter", tl.Name, name)
			}
		}
		if _, selects := fields["stable_key"]; !selects || tl.Input.Kind() != reflect.Struct {
			continue
		}
		f, ok := tl.Input.FieldByName("StableKey")
		if !ok || len(f.Index) < 2 {
			t.Errorf("%s: stable_key is declared in the input itself, not by embedding SymbolSelector or SymbolID", tl.Name)
			continue
		}
		if owner := tl.Input.FieldByIndex(f.Index[:len(f.Index)-1]).Type; owner != id {
			t.Errorf("%s: stable_key comes from %v, want %v", tl.Name, owner, id)
		}
	}
}
