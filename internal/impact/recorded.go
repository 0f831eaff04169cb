package impact

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// The sources of a test get_impact names (Test.Source).
const (
	SourceRecorded = "recorded" // the recording saw it run the changed declaration's body as it was
	SourceStatic   = "static"   // reached through calls and uses in the index
)

// viaRecorded is the way in of a test the recording saw run the change.
const viaRecorded = "recorded"

// Recording is what an answer says of the test recording (`sextant
// tests record`) it used: how old it is and how much of the change it
// spoke for.
type Recording struct {
	RecordedAt string   `json:"recorded_at" jsonschema:"when it was last written, RFC 3339"`
	AgeMS      int64    `json:"age_ms" jsonschema:"its age in milliseconds"`
	VCSHead    string   `json:"vcs_head,omitempty" jsonschema:"the commit it was recorded at"`
	Changes    int      `json:"changes" jsonschema:"declarations the change touches"`
	Covered    int      `json:"covered" jsonschema:"of them, answered from the recording: exactly the tests that ran the declaration's body as it was before the change"`
	Static     []string `json:"static,omitempty" jsonschema:"the others, answered by the static reach, each with why the recording cannot speak for it"`
	Unrecorded int      `json:"unrecorded_tests,omitempty" jsonschema:"tests the static reach found that the recording has no coverage of (added since, not recorded, timed out, not built), named as static"`
}

// recordedRun is what get_impact takes from the recording.
type recordedRun struct {
	info    *Recording
	keys    map[string]string // changed declarations it answers: key to qualified name
	covers  []graph.TestCover // the runs that executed them
	covered map[testID]bool   // the runs that have coverage (read only: the cache's)
}

// readRecording reads the store's test recording of the repository and
// settles which changed declarations it answers: a body change of a
// function, method or variable it knows with the hash it had before the
// change, every run covering it with that hash. The rest (new since, a
// signature, a test file's code, an init function, a body changed since
// the recording) are answered by the static reach.
func readRecording(ctx context.Context, a *run) (*recordedRun, error) {
	tr := session.Recorder(a.v)
	if tr == nil || len(a.changed) == 0 {
		return nil, nil
	}
	rec, runs, err := tr.TestRecording(ctx, a.repo.Name)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading the test recording")
	}
	now := a.v.Session().Now()
	r := &recordedRun{keys: map[string]string{}, covered: coveredRuns(a.g, rec, runs),
		info: &Recording{RecordedAt: rec.RecordedAt.UTC().Format(time.RFC3339), AgeMS: now.Sub(rec.RecordedAt).Milliseconds(),
			VCSHead: rec.VCSHead, Changes: len(a.changed)}}
	var cand []*changedDecl
	var keys []string
	for _, c := range a.changed {
		if why := unrecordable(c); why != "" {
			r.info.Static = append(r.info.Static, c.QualifiedName+" ("+why+")")
			continue
		}
		cand = append(cand, c)
		keys = append(keys, c.sym.Key)
	}
	known, covers, err := tr.TestsCovering(ctx, a.repo.Name, keys)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading the test recording")
	}
	byKey := map[string][]graph.TestCover{}
	for _, cv := range covers {
		byKey[cv.Key] = append(byKey[cv.Key], cv)
	}
	src := a.v.Source(a.repo.Name) // one reader for all: it keeps the files it found
	for _, c := range cand {
		k := c.sym.Key
		h := hashBefore(a, src, c)
		why := ""
		switch {
		case h == "":
			why = "its body before the change could not be read"
		case known[k] == "":
			why = "not in the recording: added since, or in a package it did not record"
		case known[k] != h:
			why = "changed since the recording"
		}
		for _, cv := range byKey[k] {
			if why == "" && cv.BodyHash != h {
				why = "recorded at more than one version"
			}
		}
		if why != "" {
			r.info.Static = append(r.info.Static, c.QualifiedName+" ("+why+")")
			continue
		}
		r.keys[k] = c.QualifiedName
		r.covers = append(r.covers, byKey[k]...)
		r.info.Covered++
	}
	// What the recording says of a declaration whose body did not change
	// is exact at the commit it was made at; code changed since (a new
	// caller, a test that calls more) may run it from a test the
	// recording did not see run it.
	cur := a.base
	if cur == "" {
		cur = a.repo.VCSHead
	}
	if r.info.Covered > 0 && rec.VCSHead != "" && cur != "" && rec.VCSHead != cur {
		var names []string
		for _, n := range r.keys {
			names = append(names, n)
		}
		sort.Strings(names)
		a.c.Add(blind.Recording, "the test recording was made at %s and the change is against %s: code changed between them may run %s from tests the recording did not see run it (sextant tests record again)",
			shortID(rec.VCSHead), shortID(cur), blind.ListSome(names, 3))
	}
	return r, nil
}

// testID is a test by its package directory and name.
type testID struct{ dir, name string }

// coveredRuns returns the runs of the recording rec that have coverage
// (dir and name), made once for each version of it and kept in g: it is
// read only.
func coveredRuns(g *cache, rec graph.TestRecording, runs []graph.TestRun) map[testID]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.recorded != nil && g.recordedAt.Equal(rec.RecordedAt) {
		return g.recorded
	}
	covered := map[testID]bool{}
	for _, run := range runs {
		switch run.Status {
		case graph.TestPassed, graph.TestFailed, graph.TestSkipped:
			covered[testID{run.Dir, run.Name}] = true
		}
	}
	g.recordedAt, g.recorded = rec.RecordedAt, covered
	return covered
}

// unrecordable says why the recording cannot speak for a changed
// declaration whatever it holds, "" when it may.
func unrecordable(c *changedDecl) string {
	switch {
	case !c.found:
		return "not in the index"
	case c.test:
		return "declared in a test file, whose code coverage does not record: what it reaches is answered statically"
	case c.Change != ChangeBody:
		return "a " + c.Change + " change, answered through its uses"
	case c.QualifiedName == "init" || c.sym.Name == "init":
		return "an init function, which runs in every test binary linking its package"
	case c.sym.Kind != graph.KindFunc && c.sym.Kind != graph.KindMethod && c.sym.Kind != graph.KindVar:
		return "a " + string(c.sym.Kind) + ", whose uses coverage does not record"
	}
	return ""
}

// hashBefore is the hash of the changed declaration as it was before the
// change (for a symbol or lines: as it is on disk), "" when it cannot be
// read. A function's or method's own lines are read through src, the
// session's line cache, so that asking about the functions of one file
// in turn reads it once.
func hashBefore(a *run, src session.Source, c *changedDecl) string {
	if c.old != nil {
		return declHash(c.old)
	}
	read := false // its lines were read and are not it alone
	if oneDecl(c) {
		var span string
		if span, read = src.Span(c.sym.Path, c.sym.StartLine, c.sym.EndLine); read {
			if h := hashOfSpan(c, span); h != "" {
				return h
			}
		}
	}
	content, err := session.ReadFile(a.repo.Root, c.sym.Path)
	if err != nil {
		return ""
	}
	if !read {
		if h := hashOfLines(c, content); h != "" {
			return h
		}
	}
	fv := a.g.parseVersion(c.sym.Path, content)
	if fv.syntaxErr != "" {
		return ""
	}
	for i := range fv.decls {
		d := &fv.decls[i]
		if hashed(d) && d.QualifiedName == c.sym.QualifiedName && (d.Kind == c.sym.Kind || graph.SameKindFamily(d.Kind, c.sym.Kind)) {
			return declHash(d)
		}
	}
	return ""
}

// oneDecl says whether c is a function or method the index gives lines
// of, which hashOfSpan may read alone.
func oneDecl(c *changedDecl) bool {
	return (c.sym.Kind == graph.KindFunc || c.sym.Kind == graph.KindMethod) && c.sym.StartLine >= 1 && c.sym.EndLine >= c.sym.StartLine
}

// hashOfLines is the hash of a changed function or method read from its
// own lines (the index's) of content; see hashOfSpan.
func hashOfLines(c *changedDecl, content []byte) string {
	if !oneDecl(c) {
		return ""
	}
	start, end, line := -1, -1, 1
	if c.sym.StartLine == 1 {
		start = 0
	}
	for i, b := range content {
		if b != '\n' {
			continue
		}
		line++
		if line == c.sym.StartLine {
			start = i + 1
		}
		if line == c.sym.EndLine+1 {
			end = i
			break
		}
	}
	if start < 0 {
		return ""
	}
	if end < 0 {
		end = len(content)
	}
	if start > end {
		return ""
	}
	return hashOfSpan(c, string(content[start:end]))
}

// hashOfSpan is the hash of a changed function or method from the text
// of its own lines, scanned (scanHash) or else parsed alone, as a file of
// one declaration: the hash is of its tokens, not their place, and a
// question about one function should not parse the whole of a large
// file. "" when the lines do not hold that one declaration whole (the
// file changed since the index, or shares a line with another): the
// caller parses the file.
func hashOfSpan(c *changedDecl, span string) string {
	if h := scanHash(c.sym.Kind, c.sym.QualifiedName, span); h != "" {
		return h
	}
	fv := parseVersion("decl.go", []byte("package p\n"+span))
	if fv.syntaxErr != "" || len(fv.decls) != 1 {
		return ""
	}
	d := &fv.decls[0]
	if !hashed(d) || d.QualifiedName != c.sym.QualifiedName || d.Kind != c.sym.Kind {
		return ""
	}
	return declHash(d)
}

// merge makes the tests of the answer when the recording speaks
// for some of the change: the tests it saw run those declarations; the
// tests the static reach from all of the change finds that the recording
// has no coverage of; and all the tests the static reach from the rest
// of the change finds.
func (r *recordedRun) merge(ctx context.Context, a *run, static []Test) ([]Test, error) {
	found := make(map[testID]bool, len(r.covers)+len(static))
	out := make([]Test, 0, len(static))
	for _, cv := range r.covers {
		k := testID{cv.Dir, cv.Name}
		if found[k] {
			continue
		}
		t, ok, err := a.g.tests.namedIn(ctx, a.v.Reader(), a.g.repo, cv.Dir, cv.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			t.Depth, t.Coverage, t.Via, t.Source = 1, string(graph.CoverageExact), viaRecorded, SourceRecorded
			t.Reach = []string{t.Name, r.keys[cv.Key]}
			found[k] = true
			out = append(out, t)
		}
	}
	add := func(t Test) {
		k := testID{t.Dir, t.Name}
		if !found[k] {
			found[k] = true
			t.Source = SourceStatic
			out = append(out, t)
		}
	}
	for _, t := range static {
		if !r.covered[testID{t.Dir, t.Name}] {
			r.info.Unrecorded++
			add(t)
		}
	}
	var seeds []graph.Symbol
	for _, s := range a.seeds {
		if _, ok := r.keys[s.Key]; !ok || a.seedVia[s.Key] != "" {
			seeds = append(seeds, s)
		}
	}
	if len(seeds) > 0 {
		w := newWalker(a.v, a.g, a.repo.Name, a.repo.Root, a.req.Depth)
		if err := w.walk(ctx, seeds, a.seedVia); err != nil {
			return nil, err
		}
		more, err := w.tests(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range more {
			add(t)
		}
	}
	return out, nil
}
