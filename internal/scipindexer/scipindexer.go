// Package scipindexer finds the TypeScript, JavaScript and Python
// projects under a root and runs their SCIP indexers (scip-typescript,
// scip-python) on them, each in a process tree that ends with its
// deadline, its context and Sextant (internal/proctree), writing its index
// to a private temporary file. Decoding and importing the index is not
// its business: it hands back the file, checked only to start as a SCIP
// index does.
//
// Discovery reads only under the root, through os.Root (internal/rootfs):
// no symlink is followed out of it, and a configuration that points out
// of it (a tsconfig.json extending ../base.json or a package in
// node_modules, a reference or include that leaves the root) is noted on
// the project, never read. The indexers themselves are not boxed in
// that way: what they read outside the root is in their index, and the
// importer serves nothing outside the roots.
package scipindexer

import (
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Language is the language family of a project, one per indexer.
type Language string

const (
	// TypeScript is TypeScript and JavaScript, indexed by scip-typescript.
	TypeScript Language = "typescript"
	// Python is indexed by scip-python.
	Python Language = "python"
)

// Project is one project found under a root: a directory and the
// indexer that reads it.
type Project struct {
	Language Language
	// Dir is the project's directory, relative to the root with forward
	// slashes, "." for the root itself.
	Dir string
	// Markers are the files that made Dir a project, root-relative
	// ("web/tsconfig.json", "pyproject.toml"); none for the root of a tree
	// of .py files with no marker anywhere.
	Markers []string
	// Config is the TypeScript configuration the indexer is given
	// (tsconfig.json or jsconfig.json, root-relative), "" when the
	// project has none and one is made for it, outside the root.
	Config string
	// Name names the project in its symbols (scip-python's
	// --project-name): the package's name from pyproject.toml, else the
	// directory's name.
	Name string
	// Nested are the directories of the projects of the same language
	// inside this one (root-relative). An indexer run on this project may
	// index their files too; they belong to the innermost project.
	Nested []string
	// Outside are the places the project's configuration points at that
	// lie outside the root or in node_modules: noted, not followed.
	Outside []Reference
	// JavaScript says a TypeScript-language project's own source files
	// (those in no project nested in it) are JavaScript alone: no .ts,
	// .tsx, .mts or .cts file.
	JavaScript bool
}

// Reference is a place a project's configuration points at outside what
// Sextant reads: another directory than the root, or a package installed
// in node_modules.
type Reference struct {
	// File is the configuration file, root-relative; Field the setting
	// ("extends", "references", "include", "files").
	File  string
	Field string
	// Target is the value as written.
	Target string
	// Why says where it leads: "outside the root", or "a package in
	// node_modules".
	Why string
}

func (r Reference) String() string {
	return fmt.Sprintf("%s: %s %q leads to %s", r.File, r.Field, r.Target, r.Why)
}

// Reason is why an indexer run failed: a stable UPPER_SNAKE word that a
// caller may branch on and show.
type Reason string

// The reasons of Error.
const (
	// NotInstalled: the indexer's command is not on PATH (or not at its
	// configured path). The message names the command that installs it.
	NotInstalled Reason = "NOT_INSTALLED"
	// Disabled: the configuration turns the indexer off.
	Disabled Reason = "DISABLED"
	// TimedOut: the run passed its deadline and was killed with every
	// process it started.
	TimedOut Reason = "TIMED_OUT"
	// Canceled: the caller's context ended first; the run was killed the
	// same way.
	Canceled Reason = "CANCELED"
	// Crashed: the indexer exited with a failure status (or was killed
	// by a signal).
	Crashed Reason = "CRASHED"
	// BadOutput: the indexer exited cleanly but its output is empty, or
	// does not start with a SCIP Index field, or ends inside its first.
	BadOutput Reason = "BAD_OUTPUT"
	// StartFailed: the indexer could not be started (its private
	// directory, the process tree).
	StartFailed Reason = "START_FAILED"
	// Empty: the project has nothing to index (a workspace's base
	// tsconfig.json whose include matches no file): scip-typescript
	// fails saying so. Not a failure of the project.
	Empty Reason = "EMPTY"
)

// Error is a failed indexer run: why, for which project, and the last of
// what the indexer printed. Coded turns it into the INDEXING_FAILED error
// of the tool contract.
type Error struct {
	Reason  Reason
	Tool    string // the indexer's name, "scip-typescript"
	Project string // the project's directory, root-relative
	// Message says what happened, written for the user: the install
	// command for NotInstalled, the deadline for TimedOut, the exit status
	// for Crashed.
	Message string
	// Output is the last StderrTail bytes the indexer wrote (stderr and
	// stdout, as they came), "" if none.
	Output string
	Err    error
}

// StderrTail is how much of an indexer's output an Error keeps: its last
// 2 KiB, where the reason of a failure is.
const StderrTail = 2 << 10

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", e.Tool, e.Project, e.Message)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Output != "" {
		fmt.Fprintf(&b, "\n%s", e.Output)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Coded returns e as the tool contract's INDEXING_FAILED, saying the
// tool, project, reason and message (and the cause, in its Error), with
// the reason, tool, project and output in its data.
func (e *Error) Coded() *graph.Error {
	g := graph.Wrap(graph.CodeIndexingFailed, e.Err, fmt.Sprintf("%s on %s: %s: %s", e.Tool, e.Project, e.Reason, e.Message))
	g.WithData("reason", string(e.Reason)).WithData("tool", e.Tool).WithData("project", e.Project)
	if e.Output != "" {
		g.WithData("output", e.Output)
	}
	return g
}
