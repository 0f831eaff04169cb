package graph

import (
	"errors"
	"fmt"
)

// Code is a stable, UPPER_SNAKE error code. Agents branch on codes, so a
// code's meaning never changes once published.
type Code string

// The error codes of the tool contract.
const (
	CodeInvalidArgument    Code = "INVALID_ARGUMENT"
	CodeFileNotFound       Code = "FILE_NOT_FOUND"
	CodeReadError          Code = "READ_ERROR"
	CodeOutsideRoots       Code = "OUTSIDE_ROOTS"
	CodeRepositoryNotFound Code = "REPOSITORY_NOT_FOUND"
	CodeSymbolNotFound     Code = "SYMBOL_NOT_FOUND"
	CodeAmbiguousSymbol    Code = "AMBIGUOUS_SYMBOL"
	CodeNotAFunction       Code = "NOT_A_FUNCTION"
	CodeParseError         Code = "PARSE_ERROR"
	CodeCheckError         Code = "CHECK_ERROR"
	CodeCursorInvalid      Code = "CURSOR_INVALID"
	CodeIndexNotReady      Code = "INDEX_NOT_READY"
	CodeIndexingFailed     Code = "INDEXING_FAILED"
	CodeLSPUnavailable     Code = "LSP_UNAVAILABLE"
	CodeLSPTimeout         Code = "LSP_TIMEOUT"
	CodeDatabaseCorrupt    Code = "DATABASE_CORRUPT" // the index database file is damaged; re-indexing rebuilds it
	// CodeUnsupportedLanguage: the tool reads Go's types or SSA and the
	// symbol or file is of another language (TypeScript, JavaScript,
	// Python); the message names the tools that do answer for it.
	CodeUnsupportedLanguage Code = "UNSUPPORTED_LANGUAGE"
	CodeInternal            Code = "INTERNAL"
)

// Error is an error with a stable code, a message written for the caller,
// and optional structured data (suggestions, candidates, diagnostics).
type Error struct {
	Code    Code
	Message string
	Data    map[string]any
	Err     error // the cause, if any; not shown to agents
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns e with key set to v in its data.
func (e *Error) WithData(key string, v any) *Error {
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	e.Data[key] = v
	return e
}

// Wrap returns an *Error with the given code whose cause is err.
func Wrap(code Code, err error, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// CodeOf returns the code of the first *Error in err's chain, or
// CodeInternal when there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrNotFound is returned by stores when a looked-up row does not exist.
// The query layer turns it into the coded error that fits the question.
var ErrNotFound = errors.New("not found")
