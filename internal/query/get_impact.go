package query

import "context"

// GetImpactInput is the input of get_impact: what changed (a symbol, a
// file's lines, or a diff) and how far to look.
type GetImpactInput struct {
	StableKey     string `json:"stable_key,omitempty" jsonschema:"key from an earlier answer; alone"`
	QualifiedName string `json:"qualified_name,omitempty" jsonschema:"Name, Type.Method or pkg.Name"`
	Repository    string `json:"repository,omitempty" jsonschema:"repository name to narrow by"`
	Path          string `json:"path,omitempty" jsonschema:"path prefix to narrow by"`
	File          string `json:"file,omitempty" jsonschema:"with name: Go file resolving it; with lines: the changed file"`
	Name          string `json:"name,omitempty" jsonschema:"with file: Name or pkg.Name"`
	Lines         string `json:"lines,omitempty" jsonschema:"with file: changed lines N or N-M"`
	Diff          bool   `json:"diff,omitempty" jsonschema:"the working tree vs HEAD (or base)"`
	Base          string `json:"base,omitempty" jsonschema:"git revision to compare with instead of HEAD"`
	DiffText      string `json:"diff_text,omitempty" jsonschema:"a unified diff, applied or not"`
	Depth         int    `json:"depth,omitempty" jsonschema:"most steps from a change (default: to the tests)"`
	Budget        int    `json:"budget,omitempty" jsonschema:"max tokens of text (default 2000)"`
	Limit         int    `json:"limit,omitempty" jsonschema:"rows per page 1-500 (default 50)"`
	Cursor        string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	Format        string `json:"format,omitempty" jsonschema:"text (default) or commands"`
}

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

// ImpactTest is a test, benchmark, example or fuzz target the change
// reaches.
type ImpactTest struct {
	Name     string   `json:"name" jsonschema:"TestX, BenchmarkX, ExampleX or FuzzX"`
	Kind     string   `json:"kind" jsonschema:"test, benchmark, example or fuzz"`
	Package  string   `json:"package" jsonschema:"import path of the package it is declared in"`
	Dir      string   `json:"dir" jsonschema:"repo-relative package directory, where go test runs it"`
	Path     string   `json:"path" jsonschema:"its file"`
	Line     int      `json:"line" jsonschema:"first line of its declaration"`
	Depth    int      `json:"depth" jsonschema:"steps from the change"`
	Coverage string   `json:"coverage" jsonschema:"exact, candidate or package_level, the weakest step on the way"`
	Via      string   `json:"via" jsonschema:"call, reference, init (the change runs when a package of the test binary is initialised), test_main, changed (the test itself changed) or breaks (the test no longer compiles)"`
	Reach    []string `json:"reach" jsonschema:"the declarations from the test back to the changed one"`
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

// TestCommand runs the tests of one package directory.
type TestCommand struct {
	Dir     string `json:"dir" jsonschema:"repo-relative package directory"`
	Command string `json:"command" jsonschema:"a go test command line, to run from the repository root"`
	Tests   int    `json:"tests" jsonschema:"how many of the tests named run"`
}

// GetImpactOutput is the answer of get_impact. results are the tests
// reached; tests and affected declarations are paged together (tests
// first) by limit, budget and cursor.
type GetImpactOutput struct {
	Envelope
	Completeness string           `json:"completeness" jsonschema:"complete, or lower_bound when blind_spots may hide more that the change reaches"`
	BlindSpots   []string         `json:"blind_spots,omitempty" jsonschema:"why more may be reached, each as kind: detail"`
	Mode         string           `json:"mode" jsonschema:"symbol, lines, working_tree, base or diff_text"`
	Base         string           `json:"base,omitempty" jsonschema:"the commit the working tree was compared with"`
	Changed      []ChangedDecl    `json:"changed" jsonschema:"the declarations the change touches"`
	Breaking     []BreakingChange `json:"breaking,omitempty" jsonschema:"breaking API changes and what they break"`
	Commands     []TestCommand    `json:"commands" jsonschema:"go test command lines that run exactly the tests reached, one per package directory (benchmarks in their own)"`
	TestsTotal   int              `json:"tests_total" jsonschema:"tests, benchmarks, examples and fuzz targets reached"`
	Results      []ImpactTest     `json:"results" jsonschema:"this page's tests reached"`
	AffectedTot  int              `json:"affected_total" jsonschema:"declarations reached, tests excluded"`
	Affected     []AffectedDecl   `json:"affected" jsonschema:"this page's declarations reached, nearest first"`

	format     string
	compact    bool // the text abbreviates long commands to fit the budget
	cmdShown   int  // commands the text shows
	testsExact int  // tests reached through exact steps alone
	offset     int
	budgetCut  bool
	notes      []string // said in the text only: what the change touched nothing of
}

// Defaults of get_impact.
const (
	defaultImpactBudget = 2000
	maxImpactNodes      = 50000
)

// GetImpact answers what a change reaches and which tests run it.
func GetImpact(ctx context.Context, s *Service, in GetImpactInput, progress func(Progress)) (*GetImpactOutput, error) {
	req, err := checkImpactInput(in)
	if err != nil {
		return nil, err
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	a := &impactRun{v: v, in: in, req: req, seedVia: map[string]string{}}
	if err := a.changes(ctx); err != nil {
		return nil, err
	}
	if err := a.breaking(ctx); err != nil {
		return nil, err
	}
	if err := a.reach(ctx); err != nil {
		return nil, err
	}
	if err := a.collectTests(ctx); err != nil {
		return nil, err
	}
	return a.answer(ctx)
}

// impactRequest is a checked GetImpactInput.
type impactRequest struct {
	mode     string
	sel      selector
	from, to int // lines
	format   string
	budget   int
	limit    int
}

func checkImpactInput(in GetImpactInput) (impactRequest, error) {
	var r impactRequest
	if err := checkSelectors("lines", in.Lines, "base", in.Base, "format", in.Format); err != nil {
		return r, err
	}
	symbol := in.StableKey != "" || in.QualifiedName != "" || in.Name != ""
	forms := 0
	for _, on := range []bool{symbol, in.Lines != "", in.Diff || in.Base != "", in.DiffText != ""} {
		if on {
			forms++
		}
	}
	switch {
	case forms == 0 && in.File != "":
		return r, invalid("lines", "is required with file, unless name selects a symbol in it")
	case forms == 0:
		return r, invalid("diff", "say what changed: a symbol (stable_key, qualified_name, or file + name), file + lines, diff (working tree against HEAD), base, or diff_text")
	case forms > 1:
		return r, invalid("diff", "give one change: a symbol, file + lines, diff/base, or diff_text")
	}
	switch {
	case symbol:
		r.mode = "symbol"
		r.sel = selector{StableKey: in.StableKey, QualifiedName: in.QualifiedName, Repository: in.Repository,
			Path: in.Path, File: in.File, Name: in.Name}
		if err := r.sel.validate(); err != nil {
			return r, err
		}
	case in.Lines != "":
		r.mode = "lines"
		if in.File == "" {
			return r, invalid("file", "is required with lines")
		}
		var err error
		if r.from, r.to, err = parseLines(in.Lines); err != nil {
			return r, err
		}
	case in.DiffText != "":
		r.mode = "diff_text"
	case in.Base != "":
		r.mode = "base"
	default:
		r.mode = "working_tree"
	}
	if r.mode != "symbol" && in.Path != "" {
		return r, invalid("path", "narrows qualified_name only; drop it")
	}
	if (r.mode == "working_tree" || r.mode == "base" || r.mode == "diff_text") && in.File != "" {
		return r, invalid("file", "does not narrow a diff; drop it")
	}
	if in.Depth < 0 || in.Depth > 100 {
		return r, invalid("depth", "must be from 1 to 100, or omitted to walk until the tests (got %d)", in.Depth)
	}
	switch in.Format {
	case "", "text":
		r.format = "text"
	case "commands":
		r.format = "commands"
	default:
		return r, invalid("format", "must be text or commands (got %q)", in.Format)
	}
	r.budget = in.Budget
	if r.budget == 0 {
		r.budget = defaultImpactBudget
	}
	if err := checkBudget(r.budget); err != nil {
		return r, err
	}
	var err error
	if r.limit, err = pageLimit(in.Limit); err != nil {
		return r, err
	}
	return r, nil
}

const descGetImpact = `What a change reaches and exactly which tests to run. The change: a symbol (selectors as get_symbol), file + lines, diff (working tree vs HEAD), base (vs a revision) or diff_text. Returns changed declarations (body, signature, added, removed), breaking changes with the callers and implementers that stop compiling, code reached through callers and references with its path and coverage, the tests reached, and go test lines running exactly them (format commands: only those). completeness names blind_spots. Runs no code. Errors: INVALID_ARGUMENT, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, FILE_NOT_FOUND, OUTSIDE_ROOTS, CURSOR_INVALID.`
