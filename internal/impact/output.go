// Package impact is change impact: what a change (a symbol, a file's
// lines, the working tree against a commit, or a unified diff) touches,
// the API it breaks, the code it reaches through callers and uses, and
// exactly which tests run it, with the command lines that run them (go
// test; pytest, jest or vitest for the languages read through SCIP). It
// reads one repository of a session's pinned view, and keeps what it reads
// of it in the session's facts for the calls that follow; get_impact is
// its tool.
package impact

import "github.com/sextant-dev/sextant/internal/answer"

// ChangedDecl is one declaration the change touches.
type ChangedDecl struct {
	QualifiedName string `json:"qualified_name" jsonschema:"Name, Type.Method, Type.Field"`
	Kind          string `json:"kind" jsonschema:"func, method, type, interface, field, interface_method, const or var"`
	Change        string `json:"change" jsonschema:"body, signature (a type's definition counts), added or removed"`
	Package       string `json:"package,omitempty" jsonschema:"import path, when the index knows the package"`
	Path          string `json:"path" jsonschema:"repo-relative file"`
	Line          int    `json:"line" jsonschema:"first line, in the new version (the old for removed)"`
	EndLine       int    `json:"end_line" jsonschema:"last line"`
	StableKey     string `json:"stable_key,omitempty" jsonschema:"its key, when the index has it"`
	Exported      bool   `json:"exported,omitempty" jsonschema:"code of other packages can name it"`
}

// AffectedDecl is a declaration the change reaches.
type AffectedDecl struct {
	QualifiedName string   `json:"qualified_name" jsonschema:"the declaration reached"`
	Kind          string   `json:"kind" jsonschema:"its symbol kind"`
	Package       string   `json:"package" jsonschema:"import path"`
	Path          string   `json:"path" jsonschema:"repo-relative file"`
	Line          int      `json:"line" jsonschema:"first line of its declaration"`
	StableKey     string   `json:"stable_key" jsonschema:"its durable key"`
	Depth         int      `json:"depth" jsonschema:"steps from the change"`
	Coverage      string   `json:"coverage" jsonschema:"exact; candidate (a step through an interface or func value); package_level (runs at package initialisation)"`
	Via           string   `json:"via" jsonschema:"the last step: call, reference (a use that is not a call: a value taken, a type named), init"`
	Reach         []string `json:"reach" jsonschema:"the declarations from this one back to the changed one"`
}

// Test is a test, benchmark, example or fuzz target the change
// reaches.
type Test struct {
	Name     string   `json:"name" jsonschema:"TestX, BenchmarkX, ExampleX or FuzzX; pytest's test_x or Class.test_x; jest's or vitest's describe > it names"`
	Kind     string   `json:"kind" jsonschema:"test, benchmark, example or fuzz"`
	Package  string   `json:"package" jsonschema:"import path of the package it is declared in"`
	Dir      string   `json:"dir" jsonschema:"repo-relative package directory, where go test runs it"`
	Path     string   `json:"path" jsonschema:"its file"`
	Line     int      `json:"line" jsonschema:"first line of its declaration"`
	Depth    int      `json:"depth" jsonschema:"steps from the change"`
	Coverage string   `json:"coverage" jsonschema:"exact, candidate or package_level, the weakest step on the way"`
	Via      string   `json:"via" jsonschema:"call, reference, init (the change runs when a package of the test binary is initialised, or a test file or describe block loads), test_main, changed (the test itself changed) or breaks (the test no longer compiles)"`
	Reach    []string `json:"reach" jsonschema:"the declarations from the test back to the changed one"`
	Source   string   `json:"source" jsonschema:"recorded (the test recording saw it run the changed declaration as it was) or static (reached through calls and uses in the index)"`
}

// BrokenSite is code that no longer compiles, or a type that no longer
// satisfies an interface, because of a breaking change.
type BrokenSite struct {
	QualifiedName string `json:"qualified_name,omitempty" jsonschema:"the enclosing declaration, or the type"`
	Path          string `json:"path" jsonschema:"repo-relative file"`
	Line          int    `json:"line" jsonschema:"the line that breaks, or the type's declaration"`
	Why           string `json:"why" jsonschema:"the type error, or what is missing"`
}

// BreakingChange is an exported declaration removed or re-signed, or an
// interface whose method set changed, with what it breaks in the index.
type BreakingChange struct {
	QualifiedName string       `json:"qualified_name" jsonschema:"the declaration removed or re-signed, or the interface"`
	Package       string       `json:"package,omitempty" jsonschema:"its import path"`
	Change        string       `json:"change" jsonschema:"removed, signature or interface"`
	Detail        string       `json:"detail" jsonschema:"what changed"`
	Broken        []BrokenSite `json:"broken" jsonschema:"callers, users and implementations in the index that break"`
}

// TestCommand runs the tests of one Go package directory, one Python
// project or one JavaScript or TypeScript file.
type TestCommand struct {
	Dir     string `json:"dir" jsonschema:"repo-relative package directory (Python: the project's)"`
	Command string `json:"command" jsonschema:"a go test, python -m pytest, npx vitest run or npx jest command line, to run from the repository root"`
	Tests   int    `json:"tests" jsonschema:"how many of the tests named run"`
}

// Output is the answer of get_impact. results are the tests
// reached; tests and affected declarations are paged together (tests
// first) by limit, budget and cursor.
type Output struct {
	answer.Envelope
	Completeness string           `json:"completeness" jsonschema:"complete, or lower_bound when blind_spots may hide more that the change reaches"`
	BlindSpots   []string         `json:"blind_spots,omitempty" jsonschema:"why more may be reached, each as kind: detail"`
	Mode         string           `json:"mode" jsonschema:"symbol, lines, working_tree, base or diff_text"`
	Base         string           `json:"base,omitempty" jsonschema:"the commit the working tree was compared with"`
	Changed      []ChangedDecl    `json:"changed" jsonschema:"the declarations the change touches"`
	Breaking     []BreakingChange `json:"breaking,omitempty" jsonschema:"breaking API changes and what they break"`
	Commands     []TestCommand    `json:"commands" jsonschema:"command lines that run exactly the tests reached: go test one per package directory (benchmarks in their own), pytest one per project, jest or vitest one per file"`
	TestsTotal   int              `json:"tests_total" jsonschema:"tests, benchmarks, examples and fuzz targets reached"`
	Results      []Test           `json:"results" jsonschema:"this page's tests reached"`
	AffectedTot  int              `json:"affected_total" jsonschema:"declarations reached, tests excluded"`
	Affected     []AffectedDecl   `json:"affected" jsonschema:"this page's declarations reached, nearest first"`
	Recording    *Recording       `json:"recording,omitempty" jsonschema:"the test recording used (sextant tests record): its age and how much of the change it answered"`

	format     string
	compact    bool // the text abbreviates long commands to fit the budget
	cmdShown   int  // commands the text shows
	testsExact int  // tests reached through exact steps alone
	offset     int
	budgetCut  bool
	notes      []string // said in the text only: what the change touched nothing of
}

// maxNodes bounds the declarations a walk reaches.
const maxNodes = 50000
