package query

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/overview"
)

const descGetRepositoryOverview = `Start here in an unknown repository: modules, entry points (packages most used from outside), commands, packages by import layer, the most referenced, called and changed code, where tests live. Ranked by the reference graph within budget (default 1500 tokens), with cursors. Then find_symbol, get_symbol. Errors: REPOSITORY_NOT_FOUND, INVALID_ARGUMENT, CURSOR_INVALID, INDEX_NOT_READY.`

// GetRepositoryOverviewInput is the input of get_repository_overview.
type GetRepositoryOverviewInput struct {
	Repository string `json:"repository,omitempty" jsonschema:"repository name; default: the root's"`
	SectionInput
}

// OverviewModule is one module of the repository.
type OverviewModule struct {
	Path      string `json:"path" jsonschema:"module path"`
	Dir       string `json:"dir" jsonschema:"repo-relative directory of its go.mod"`
	GoVersion string `json:"go_version,omitempty" jsonschema:"its go directive"`
}

// The rows of get_repository_overview (see package overview).
type (
	OverviewPackage = overview.Package
	OverviewLayer   = overview.Layer
	OverviewSymbol  = overview.Symbol
	OverviewFile    = overview.File
	OverviewTests   = overview.Tests
)

// GetRepositoryOverviewOutput is the answer of get_repository_overview.
type GetRepositoryOverviewOutput struct {
	Envelope
	Repository     string             `json:"repository" jsonschema:"repository name"`
	Root           string             `json:"root" jsonschema:"absolute directory"`
	Packages       int                `json:"packages" jsonschema:"non-test packages"`
	Files          int                `json:"files" jsonschema:"files indexed"`
	Symbols        int                `json:"symbols" jsonschema:"symbols indexed"`
	TestDirs       int                `json:"test_dirs" jsonschema:"directories with test files"`
	Commits        int                `json:"commits,omitempty" jsonschema:"recent git commits read for most_changed"`
	Section        string             `json:"section,omitempty" jsonschema:"the one section asked for"`
	Modules        []OverviewModule   `json:"modules" jsonschema:"the modules"`
	Unavailable    []string           `json:"unavailable,omitempty" jsonschema:"INDEXING_FAILED: required modules that could not be loaded, so their importers lack types"`
	Build          string             `json:"build" jsonschema:"the build configuration indexed: GOOS, GOARCH, build tags (set GOOS, GOARCH, GOFLAGS=-tags=... to index another)"`
	Skipped        []string           `json:"skipped,omitempty" jsonschema:"what the index left out: go.work modules whose directory is missing, files indexed for declarations only"`
	Languages      []OverviewLanguage `json:"languages,omitempty" jsonschema:"each language found: files, symbols, its indexer, or why it is not indexed"`
	EntryPoints    []OverviewPackage  `json:"entry_points" jsonschema:"packages most used from outside themselves"`
	Commands       []OverviewPackage  `json:"commands" jsonschema:"main packages"`
	API            []OverviewSymbol   `json:"api" jsonschema:"exported symbols most used from outside their package"`
	Layers         []OverviewLayer    `json:"layers" jsonschema:"the import graph's layers, bottom up"`
	LayersSetAside int                `json:"layers_set_aside,omitempty" jsonschema:"dependencies in import cycles the layers leave out, the least used of each cycle"`
	MostReferenced []OverviewSymbol   `json:"most_referenced" jsonschema:"symbols with the most references"`
	MostCalled     []OverviewSymbol   `json:"most_called" jsonschema:"functions with the most calls"`
	MostChanged    []OverviewFile     `json:"most_changed" jsonschema:"files most changed by recent commits"`
	Tests          []OverviewTests    `json:"tests" jsonschema:"directories with tests, most first"`
	Results        []OverviewPackage  `json:"results" jsonschema:"the packages, most used from outside first"`
	Omitted        []SectionOmitted   `json:"omitted,omitempty" jsonschema:"sections the budget cut"`

	layerSizes []int // packages of each layer, of which Layers may name fewer
}

// The sections of an overview, in the order they are filled, with how
// many rows each shows at most when the whole overview is asked for (one
// section asked for alone fills the budget).
var overviewSections = []overviewSection{
	section("entry_points", 6, func(o *GetRepositoryOverviewOutput) *[]OverviewPackage { return &o.EntryPoints }),
	section("commands", 6, func(o *GetRepositoryOverviewOutput) *[]OverviewPackage { return &o.Commands }),
	section("api", 6, func(o *GetRepositoryOverviewOutput) *[]OverviewSymbol { return &o.API }),
	section("layers", 1<<20, func(o *GetRepositoryOverviewOutput) *[]OverviewLayer { return &o.Layers }),
	section("most_referenced", 4, func(o *GetRepositoryOverviewOutput) *[]OverviewSymbol { return &o.MostReferenced }),
	section("most_called", 4, func(o *GetRepositoryOverviewOutput) *[]OverviewSymbol { return &o.MostCalled }),
	section("most_changed", 4, func(o *GetRepositoryOverviewOutput) *[]OverviewFile { return &o.MostChanged }),
	section("tests", 5, func(o *GetRepositoryOverviewOutput) *[]OverviewTests { return &o.Tests }),
	section("packages", 1<<20, func(o *GetRepositoryOverviewOutput) *[]OverviewPackage { return &o.Results }),
}

type overviewSection struct {
	name string
	cap  int
	// rows is how many rows the section has in o; cut sets dst's rows to
	// src's from..to.
	rows func(o *GetRepositoryOverviewOutput) int
	cut  func(dst, src *GetRepositoryOverviewOutput, from, to int)
}

// section describes the section whose rows field returns.
func section[T any](name string, cap int, field func(*GetRepositoryOverviewOutput) *[]T) overviewSection {
	return overviewSection{name: name, cap: cap,
		rows: func(o *GetRepositoryOverviewOutput) int { return len(*field(o)) },
		cut: func(dst, src *GetRepositoryOverviewOutput, from, to int) {
			*field(dst) = (*field(src))[from:to]
		}}
}

// layerNames is how many packages a layer names in the whole overview.
const layerNames = 5

const (
	defaultOverviewBudget = 1500
	minOverviewBudget     = 300
	maxOverviewBudget     = 8000
)

// GetRepositoryOverview describes a repository for an agent's first call.
func GetRepositoryOverview(ctx context.Context, s *Service, in GetRepositoryOverviewInput, progress func(Progress)) (*GetRepositoryOverviewOutput, error) {
	if err := checkSelectors("repository", in.Repository, "section", in.Section); err != nil {
		return nil, err
	}
	budget, err := budgetIn(in.Budget, defaultOverviewBudget, minOverviewBudget, maxOverviewBudget)
	if err != nil {
		return nil, err
	}
	section := -1
	if in.Section != "" {
		section = slices.IndexFunc(overviewSections, func(s overviewSection) bool { return s.name == in.Section })
		if section < 0 {
			names := make([]string, len(overviewSections))
			for i, s := range overviewSections {
				names[i] = s.name
			}
			return nil, invalid("section", "must be one of %s (got %q)", strings.Join(names, ", "), in.Section)
		}
	} else if in.Cursor != "" {
		return nil, invalid("cursor", "goes with the section it was given for")
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	repo, err := v.Repo(in.Repository)
	if err != nil {
		return nil, err
	}
	v.Use(repo.Name)
	fx, err := overview.Read(ctx, v, repo)
	if err != nil {
		return nil, err
	}
	var changed []OverviewFile
	counts, commits := map[string]int(nil), 0
	if repo.VCSHead != "" && (section < 0 || overviewSections[section].name == "most_changed") {
		counts, commits = overview.RecentChanges(ctx, repo.Root)
	}
	for p, n := range counts {
		changed = append(changed, OverviewFile{Path: p, Commits: n})
	}
	slices.SortFunc(changed, func(a, b OverviewFile) int { return cmp.Or(b.Commits-a.Commits, strings.Compare(a.Path, b.Path)) })

	ov := newOverview(fx, changed, commits)
	if ov.Languages, err = overviewLanguages(ctx, v, fx.Status, fx.Skipped); err != nil {
		return nil, err
	}
	ov.Envelope = v.Envelope()
	vk := v.Key([]string{repo.Name})
	offsets := make([]int, len(overviewSections))
	caps := make([]int, len(overviewSections))
	for i, sec := range overviewSections {
		caps[i] = sec.cap
		if section >= 0 {
			caps[i] = 0
		}
	}
	if section >= 0 {
		ov.Section = in.Section
		off, err := decodeCursor(in.Cursor, overviewQuery(repo.Name, in.Section), vk)
		if err != nil {
			return nil, err
		}
		offsets[section] = min(off, ov.rows(section))
		caps[section] = ov.rows(section) - offsets[section]
	}
	for i := range caps {
		caps[i] = min(caps[i], ov.rows(i)-offsets[i])
	}
	build := func(shown []int) *GetRepositoryOverviewOutput {
		out := ov.cut(offsets, shown, section < 0)
		for i, sec := range overviewSections {
			if section >= 0 && i != section {
				continue
			}
			if n := ov.rows(i); offsets[i]+shown[i] < n {
				out.Omitted = append(out.Omitted, SectionOmitted{Section: sec.name, Shown: shown[i], Total: n,
					Cursor: encodeOffsetCursor(overviewQuery(repo.Name, sec.name), vk, offsets[i]+shown[i])})
			}
		}
		return out
	}
	shown := fitSectionRows(caps, budget, func(shown []int) string { return build(shown).Text() })
	out := build(shown)
	total, returned := len(ov.Results), len(out.Results)
	if section >= 0 {
		total, returned = ov.rows(section), shown[section]
	}
	out.Total, out.Returned, out.Truncated = total, returned, len(out.Omitted) > 0
	return out, nil
}

// overviewQuery is the fingerprint a section's cursor is bound to.
func overviewQuery(repo, section string) string {
	return fingerprint("get_repository_overview", repo, section)
}

// newOverview is the whole overview of fx, every section in full.
func newOverview(fx *overview.Facts, changed []OverviewFile, commits int) *GetRepositoryOverviewOutput {
	st := fx.Status
	ov := &GetRepositoryOverviewOutput{Repository: st.Name, Root: st.Root, Packages: len(fx.Packages),
		Files: st.Files, Symbols: st.Symbols, TestDirs: fx.TestDirs, Commits: commits,
		Layers: fx.Layers, LayersSetAside: fx.SetAside, API: fx.API, MostReferenced: fx.Used, MostCalled: fx.Called,
		MostChanged: changed, Tests: fx.Tests, Results: fx.Packages}
	for _, m := range st.Modules {
		ov.Modules = append(ov.Modules, OverviewModule{Path: m.Path, Dir: m.Dir, GoVersion: m.GoVersion})
	}
	ov.Unavailable, ov.Skipped = fx.Unavailable, fx.Skipped
	// The configuration the snapshot was indexed with, as its indexer
	// said; for a snapshot that does not say (an older schema), the one
	// this process loads with, which is the one its own index uses.
	ov.Build = st.Snapshot.Build
	if ov.Build == "" {
		ov.Build = load.Build(os.Environ())
	}
	for _, p := range fx.Packages {
		if p.Main {
			ov.Commands = append(ov.Commands, p)
		} else if p.ExternalUses > 0 && len(ov.EntryPoints) < overview.TopSymbols {
			ov.EntryPoints = append(ov.EntryPoints, p)
		}
	}
	// The commands that reach most of the repository first: a real
	// command (cmd/dockerd) sits on a high layer of the import graph and
	// imports many of its packages, where a fixture's or a generator's
	// main imports few or none; then the larger, then by directory.
	slices.SortFunc(ov.Commands, func(a, b OverviewPackage) int {
		return cmp.Or(b.Layer-a.Layer, b.Imports-a.Imports, b.Bytes-a.Bytes, strings.Compare(a.Dir, b.Dir))
	})
	return ov
}

// rows is how many rows section i of a whole overview has.
func (o *GetRepositoryOverviewOutput) rows(i int) int { return overviewSections[i].rows(o) }

// cut returns the overview with shown[i] rows of section i from
// offsets[i]; whole says the overview is the whole one, whose layers name
// only their first packages.
func (o *GetRepositoryOverviewOutput) cut(offsets, shown []int, whole bool) *GetRepositoryOverviewOutput {
	c := *o
	c.Omitted = nil
	for i, sec := range overviewSections {
		sec.cut(&c, o, offsets[i], offsets[i]+shown[i])
	}
	if whole {
		c.Layers = slices.Clone(c.Layers)
		for j := range c.Layers {
			c.Layers[j].Packages = c.Layers[j].Packages[:min(len(c.Layers[j].Packages), layerNames)]
		}
	}
	c.layerSizes = make([]int, len(o.Layers))
	for i, l := range o.Layers {
		c.layerSizes[i] = len(l.Packages)
	}
	return &c
}

// Text renders the overview for an agent.
func (o *GetRepositoryOverviewOutput) Text() string {
	var b strings.Builder
	writeFreshness(&b, o.Envelope)
	if o.Section == "" {
		fmt.Fprintf(&b, "repository %s: %d packages, %d files, %d symbols; tests in %d directories\n",
			o.Repository, o.Packages, o.Files, o.Symbols, o.TestDirs)
		for _, m := range o.Modules {
			fmt.Fprintf(&b, "module %s in %s", m.Path, m.Dir)
			if m.GoVersion != "" {
				fmt.Fprintf(&b, " (go %s)", m.GoVersion)
			}
			b.WriteString("\n")
		}
		for _, u := range o.Unavailable {
			fmt.Fprintf(&b, "%s\n", u)
		}
		if o.Build != "" {
			fmt.Fprintf(&b, "build: %s\n", o.Build)
		}
		for _, s := range o.Skipped {
			fmt.Fprintf(&b, "skipped: %s\n", s)
		}
		for _, l := range o.Languages {
			if l.NotIndexed != "" {
				fmt.Fprintf(&b, "language %s: not indexed: %s\n", l.Language, l.NotIndexed)
				continue
			}
			fmt.Fprintf(&b, "language %s: %s, %s (%s)\n", l.Language, plural(l.Files, "file"), plural(l.Symbols, "symbol"), strings.TrimSpace(l.Indexer+" "+l.Version))
		}
	} else {
		fmt.Fprintf(&b, "repository %s, section %s\n", o.Repository, o.Section)
	}
	pkgRow := func(p OverviewPackage) {
		fmt.Fprintf(&b, "  %s: %s, %s", p.Dir, plural(p.Files, "file"), kiB(p.Bytes))
		if p.ExternalUses > 0 {
			fmt.Fprintf(&b, ", %s from outside", plural(p.ExternalUses, "use"))
		}
		if p.TestFiles > 0 {
			fmt.Fprintf(&b, ", %s", plural(p.TestFiles, "test file"))
		}
		fmt.Fprintf(&b, ", layer %d", p.Layer)
		if p.Doc != "" {
			b.WriteString(": " + quoteContent(shortDoc(p.Doc)))
		}
		b.WriteString("\n")
	}
	symRows := func(title string, syms []OverviewSymbol, what string) {
		if len(syms) == 0 {
			return
		}
		b.WriteString(title + ":\n")
		for _, s := range syms {
			fmt.Fprintf(&b, "  %s (%s) %s:%d, %s\n", s.Name, s.Kind, s.Path, s.Line, plural(s.Count, what))
		}
	}
	if len(o.EntryPoints) > 0 {
		b.WriteString("entry points (packages most used from outside themselves):\n")
		for _, p := range o.EntryPoints {
			pkgRow(p)
		}
	}
	if len(o.Commands) > 0 {
		b.WriteString("commands (package main):\n")
		for _, p := range o.Commands {
			fmt.Fprintf(&b, "  %s", p.Dir)
			if p.Doc != "" {
				b.WriteString(": " + quoteContent(p.Doc))
			}
			b.WriteString("\n")
		}
	}
	symRows("most used API (uses from other packages)", o.API, "use")
	if len(o.Layers) > 0 {
		b.WriteString("layers (a package imports only packages of lower layers; 0 imports none of the repository")
		if o.LayersSetAside > 0 {
			fmt.Fprintf(&b, "; %s in cycles set aside, the least used of each", plural(o.LayersSetAside, "import"))
		}
		b.WriteString("):\n")
		for _, l := range o.Layers {
			fmt.Fprintf(&b, "  %d: %s", l.Layer, strings.Join(l.Packages, ", "))
			if n := o.layerSizes[l.Layer]; n > len(l.Packages) {
				fmt.Fprintf(&b, " and %d more", n-len(l.Packages))
			}
			b.WriteString("\n")
		}
	}
	symRows("most referenced", o.MostReferenced, "reference")
	symRows("most called", o.MostCalled, "call")
	if len(o.MostChanged) > 0 {
		fmt.Fprintf(&b, "most changed (of the last %d commits):\n", o.Commits)
		for _, f := range o.MostChanged {
			fmt.Fprintf(&b, "  %s: %s\n", f.Path, plural(f.Commits, "commit"))
		}
	}
	if len(o.Tests) > 0 {
		b.WriteString("tests (directories with the most test files):\n")
		for _, t := range o.Tests {
			fmt.Fprintf(&b, "  %s: %s", t.Dir, plural(t.Files, "file"))
			if t.External {
				b.WriteString(", external test package")
			}
			b.WriteString("\n")
		}
	}
	if len(o.Results) > 0 {
		b.WriteString("packages (most used from outside first):\n")
		for _, p := range o.Results {
			pkgRow(p)
		}
	}
	writeOmitted(&b, o.Omitted)
	return b.String()
}

// shortDoc cuts a package's doc sentence for a row of the text; the
// structured answer has it whole.
func shortDoc(doc string) string {
	const max = 120
	if len(doc) <= max {
		return doc
	}
	return cutUTF8(doc, max-len("…")) + "…"
}

// kiB renders a size in bytes for a person.
func kiB(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%d KiB", (n+512)/1024)
}
