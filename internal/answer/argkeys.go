package answer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// exactKeys refuses an object key that is not exactly the JSON name of a
// field of t, wherever t describes an object. encoding/json matches names
// without regard to letter case, so without this check {"NAME": ...} would
// pass for name, and {"name": "a", "Name": "b"} would silently take b
// (the duplicate check compares keys as written). Malformed JSON passes:
// the decoder reports it.
func exactKeys(t reflect.Type, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return checkKeys(t, v, "")
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func checkKeys(t reflect.Type, v any, prefix string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // a type that decodes itself (Depth, json.RawMessage)
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type error, the decoder's to report
		}
		fields := JSONFields(t)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same key is named on every run
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				return unknownKey(prefix+k, k, fields)
			}
			if err := checkKeys(ft, obj[k], prefix+k+"."); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		list, _ := v.([]any)
		for _, e := range list {
			if err := checkKeys(t.Elem(), e, prefix); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, _ := v.(map[string]any)
		for k, e := range obj {
			if err := checkKeys(t.Elem(), e, prefix+k+"."); err != nil {
				return err
			}
		}
	}
	return nil
}

func unknownKey(field, key string, fields map[string]reflect.Type) error {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return Invalid(field, "is not a parameter of this tool; parameter names are case-sensitive: did you mean %q?", name)
		}
	}
	return Invalid(field, "is not a parameter of this tool")
}

// JSONFields maps the JSON names of t's fields, as encoding/json names
// them (tag name, else the Go name; embedded structs without a name
// promote their fields), to their types.
func JSONFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			for n, sub := range JSONFields(ft) {
				if _, shadowed := fields[n]; !shadowed {
					fields[n] = sub
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}
