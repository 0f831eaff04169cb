package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// maxArgBytes bounds the arguments of one call.
const maxArgBytes = 1 << 20

// decodeArgs decodes tool arguments strictly: unknown fields, wrong types,
// trailing data and invalid UTF-8 are INVALID_ARGUMENT naming the field,
// never silently ignored.
func decodeArgs[In any](args json.RawMessage) (In, error) {
	var in In
	if len(args) > maxArgBytes {
		return in, graph.Errorf(graph.CodeInvalidArgument, "arguments are larger than %d bytes", maxArgBytes)
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return in, nil
	}
	if !utf8.Valid(trimmed) {
		return in, graph.Errorf(graph.CodeInvalidArgument, "arguments are not valid UTF-8")
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
	if e, ok := asError(err); ok {
		return e // a parameter type that checks its own value (Depth)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		return invalid(field, "must be a %s (got %s)", kindName(te.Type.Kind().String()), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field := strings.Trim(rest, `"`)
		return invalid(field, "is not a parameter of this tool")
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
