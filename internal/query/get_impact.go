package query

import (
	"context"

	"github.com/sextant-dev/sextant/internal/impact"
)

// GetImpactInput is the input of get_impact: what changed (a symbol, a
// file's lines, or a diff) and how far to look.
type GetImpactInput struct {
	SymbolSelector
	Lines    string `json:"lines,omitempty" jsonschema:"with file: changed lines N or N-M"`
	Diff     bool   `json:"diff,omitempty" jsonschema:"the working tree vs HEAD (or base)"`
	Base     string `json:"base,omitempty" jsonschema:"git revision to compare with instead of HEAD"`
	DiffText string `json:"diff_text,omitempty" jsonschema:"a unified diff, applied or not"`
	Depth    int    `json:"depth,omitempty" jsonschema:"most steps from a change (default: to the tests)"`
	Budget   int    `json:"budget,omitempty" jsonschema:"max tokens of text (default 2000)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"rows per page 1-500 (default 50)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	Format   string `json:"format,omitempty" jsonschema:"text (default) or commands"`
}

// paramDocs says what file is in each of the two forms that take one.
func (GetImpactInput) paramDocs() map[string]string {
	return map[string]string{"file": "with name: Go file resolving it; with lines: the changed file"}
}

// The answer of get_impact and its rows (see package impact).
type (
	GetImpactOutput = impact.Output
	ChangedDecl     = impact.ChangedDecl
	AffectedDecl    = impact.AffectedDecl
	ImpactTest      = impact.Test
	BrokenSite      = impact.BrokenSite
	BreakingChange  = impact.BreakingChange
	TestCommand     = impact.TestCommand
)

// defaultImpactBudget is get_impact's budget when a call gives none.
const defaultImpactBudget = 2000

// GetImpact answers what a change reaches and which tests run it: the
// call checked, the symbol it names resolved, the rest is package impact.
func GetImpact(ctx context.Context, s *Service, in GetImpactInput, progress func(Progress)) (*GetImpactOutput, error) {
	req, sel, err := checkImpactInput(in)
	if err != nil {
		return nil, err
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if req.Mode == impact.ModeSymbol {
		if req.Symbol, err = resolve(ctx, v, sel); err != nil {
			return nil, err
		}
	}
	return impact.Run(ctx, v, req)
}

// checkImpactInput checks a call and spells it as the request package
// impact runs, with the selector of a symbol given.
func checkImpactInput(in GetImpactInput) (impact.Request, selector, error) {
	var sel selector
	r := impact.Request{Repository: in.Repository, File: in.File, Lines: in.Lines, Base: in.Base,
		DiffText: in.DiffText, Depth: in.Depth, Cursor: in.Cursor}
	// The cursor belongs to the call without its paging and rendering.
	q := in
	q.Cursor, q.Budget, q.Limit, q.Format = "", 0, 0, ""
	r.Query = fingerprint("get_impact", q)
	if err := checkSelectors("lines", in.Lines, "base", in.Base, "format", in.Format); err != nil {
		return r, sel, err
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
		return r, sel, invalid("lines", "is required with file, unless name selects a symbol in it")
	case forms == 0:
		return r, sel, invalid("diff", "say what changed: a symbol (stable_key, qualified_name, or file + name), file + lines, diff (working tree against HEAD), base, or diff_text")
	case forms > 1:
		return r, sel, invalid("diff", "give one change: a symbol, file + lines, diff/base, or diff_text")
	}
	switch {
	case symbol:
		r.Mode = impact.ModeSymbol
		sel = in.selector()
		if err := sel.validate(); err != nil {
			return r, sel, err
		}
	case in.Lines != "":
		r.Mode = impact.ModeLines
		if in.File == "" {
			return r, sel, invalid("file", "is required with lines")
		}
		var err error
		if r.From, r.To, err = impact.ParseLines(in.Lines); err != nil {
			return r, sel, err
		}
	case in.DiffText != "":
		r.Mode = impact.ModeDiffText
	case in.Base != "":
		r.Mode = impact.ModeBase
	default:
		r.Mode = impact.ModeWorkingTree
	}
	if r.Mode != impact.ModeSymbol && in.Path != "" {
		return r, sel, invalid("path", "narrows qualified_name only; drop it")
	}
	if (r.Mode == impact.ModeWorkingTree || r.Mode == impact.ModeBase || r.Mode == impact.ModeDiffText) && in.File != "" {
		return r, sel, invalid("file", "does not narrow a diff; drop it")
	}
	if in.Depth < 0 || in.Depth > 100 {
		return r, sel, invalid("depth", "must be from 1 to 100, or omitted to walk until the tests (got %d)", in.Depth)
	}
	switch in.Format {
	case "", "text":
		r.Format = "text"
	case "commands":
		r.Format = "commands"
	default:
		return r, sel, invalid("format", "must be text or commands (got %q)", in.Format)
	}
	r.Budget = in.Budget
	if r.Budget == 0 {
		r.Budget = defaultImpactBudget
	}
	if err := checkBudget(r.Budget); err != nil {
		return r, sel, err
	}
	var err error
	if r.Limit, err = pageLimit(in.Limit); err != nil {
		return r, sel, err
	}
	return r, sel, nil
}

const descGetImpact = `What a change reaches and exactly which tests to run. The change: a symbol (selectors as get_symbol), file + lines, diff (working tree vs HEAD), base (vs a revision) or diff_text. Returns changed declarations (body, signature, added, removed), breaking changes with the callers and implementers that stop compiling, code reached through callers and references with its path and coverage, the tests reached, and command lines running exactly them (format commands: only those). completeness names blind_spots. Runs no code. Errors: INVALID_ARGUMENT, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, FILE_NOT_FOUND, OUTSIDE_ROOTS, CURSOR_INVALID.`

// WorkingTreeDiff is the unified diff of repository's working tree ("":
// the root's) against HEAD, of the files get_impact's diff compares and
// read as it reads them, at most maxLines lines and maxBytes bytes: what
// `sextant ui` shows beside the working tree's impact. It is no tool: an
// agent has git diff, and its text would cost an agent's tokens for what
// the changed declarations already say.
func WorkingTreeDiff(ctx context.Context, s *Service, repository string, maxLines, maxBytes int) (*impact.Diff, error) {
	v, err := s.open(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	return impact.WorkingTreeDiff(ctx, v, repository, "", maxLines, maxBytes)
}
