package answer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Invalid is the INVALID_ARGUMENT error of a call's field: the message
// names it, and data.field holds it.
func Invalid(field, format string, args ...any) *graph.Error {
	return graph.Errorf(graph.CodeInvalidArgument, "%s: %s", field, fmt.Sprintf(format, args...)).WithData("field", field)
}

// CheckSelector rejects a selector with surrounding whitespace: an agent
// that sends " Server" means something it did not type, and guessing would
// hide the mistake.
func CheckSelector(field, v string) error {
	if v != strings.TrimSpace(v) {
		return Invalid(field, "has surrounding whitespace (%q); send it without", v)
	}
	if strings.ContainsRune(v, 0) {
		return Invalid(field, "contains a NUL character")
	}
	return nil
}

// CheckSelectors applies CheckSelector to (field, value) pairs in order.
func CheckSelectors(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := CheckSelector(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// AsError returns the coded error in err's chain, if there is one.
func AsError(err error) (*graph.Error, bool) {
	var e *graph.Error
	ok := errors.As(err, &e)
	return e, ok
}
