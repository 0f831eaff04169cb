package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/sextant-dev/sextant/internal/answer"
)

// decodeInto decodes args into a new value of t as answer.DecodeArgs does.
func decodeInto(t reflect.Type, args string) (any, error) {
	v := reflect.New(t)
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v.Interface())
	return v.Elem().Interface(), err
}

// A parameter given as null is a parameter omitted, for every parameter
// of every tool: "wait": null waited 0 s where an omitted wait waits the
// default, and "depth": null was INVALID_ARGUMENT.
func TestNullIsOmitted(t *testing.T) {
	for _, tl := range Tools() {
		omitted, err := decodeInto(tl.Input, `{}`)
		if err != nil {
			t.Fatalf("%s {}: %v", tl.Name, err)
		}
		names := make([]string, 0)
		for name := range answer.JSONFields(tl.Input) {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			args := `{"` + name + `":null}`
			got, err := decodeInto(tl.Input, args)
			if err != nil {
				t.Errorf("%s %s: %v; want it read as omitted", tl.Name, args, err)
				continue
			}
			if !reflect.DeepEqual(got, omitted) {
				t.Errorf("%s %s decodes to %+v; omitted, %+v", tl.Name, args, got, omitted)
			}
		}
	}
}
