package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// MaxArgBytes bounds the arguments of one call.
const MaxArgBytes = 1 << 20

// DecodeArgs decodes tool arguments strictly: unknown fields (a key in
// another letter case than its parameter's is unknown), duplicate keys,
// wrong types, trailing data and invalid UTF-8 are INVALID_ARGUMENT
// naming the field, never silently ignored.
func DecodeArgs[In any](args json.RawMessage) (In, error) {
	var in In
	if len(args) > MaxArgBytes {
		return in, graph.Errorf(graph.CodeInvalidArgument, "arguments are larger than %d bytes", MaxArgBytes)
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return in, nil
	}
	if !utf8.Valid(trimmed) {
		return in, graph.Errorf(graph.CodeInvalidArgument, "arguments are not valid UTF-8")
	}
	if err := duplicateKeys(trimmed); err != nil {
		return in, err
	}
	if err := exactKeys(reflect.TypeFor[In](), trimmed); err != nil {
		return in, err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, argError(err)
	}
	if dec.More() {
		return in, graph.Errorf(graph.CodeInvalidArgument, "arguments hold more than one JSON value")
	}
	return in, nil
}

func argError(err error) error {
	if e, ok := AsError(err); ok {
		return e // a parameter type that checks its own value (Depth)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		return Invalid(field, "must be a %s (got %s)", kindName(te.Type.Kind().String()), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field := strings.Trim(rest, `"`)
		return Invalid(field, "is not a parameter of this tool")
	}
	return graph.Errorf(graph.CodeInvalidArgument, "arguments are not a JSON object of this tool's parameters: %s", msg)
}

func kindName(k string) string {
	switch k {
	case "int", "int64":
		return "integer"
	case "ptr":
		return "boolean"
	}
	return fmt.Sprint(k)
}

// duplicateKeys refuses an object that names a key twice, at any depth.
// JSON decoders disagree on which one wins (first, last, error), so a
// check made by one reader of the arguments could be bypassed in another.
func duplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next token of an object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // malformed JSON is the decoder's to report
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object && stack[top].key {
			if k, ok := tok.(string); ok {
				if stack[top].keys[k] {
					return Invalid(k, "is given twice; give each parameter once")
				}
				stack[top].keys[k] = true
				stack[top].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			top--
		}
		if top >= 0 && stack[top].object {
			stack[top].key = true // a value ended: a key or the end comes next
		}
		if len(stack) == 0 {
			return nil
		}
	}
}
