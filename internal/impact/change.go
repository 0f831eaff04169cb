package impact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/diff"
	"github.com/sextant-dev/sextant/internal/git"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// fileChange is one Go file of a change: its content before and after
// (nil where the file does not exist).
type fileChange struct {
	path     string // repo-relative, forward slashes
	old, new []byte
}

// changedDecl is one declaration a change touches, with the index's
// symbol for it when the index has one.
type changedDecl struct {
	ChangedDecl
	dir      string // package directory, repo-relative
	pkgName  string // the package clause
	test     bool   // declared in a _test.go file
	old, new *versionDecl
	sym      graph.Symbol
	found    bool
}

// declKey tells the declarations of one package variant apart.
type declKey struct {
	dir, pkg string
	test     bool
	name     string
}

// compareFiles lists the declarations that differ between the old and
// new contents of the files: a declaration of the same package (and test
// variant) with the same qualified name is the same declaration, in
// whichever of the changed files it sits, so that moving one between
// files is no change.
// parse reads an old version (parseVersion, or a cache of it); the new
// is read as an edit of it. A declaration missing from a version that
// does not parse is not reported removed (or added): the parser may have
// lost it. unparsable names those versions, each with its first error.
func compareFiles(changes []fileChange, parse func(name string, content []byte) fileVersion) (out []*changedDecl, unparsable []string) {
	type side struct {
		decl *versionDecl // the fileVersion's: read only
		path string
	}
	olds, news := map[declKey]side{}, map[declKey]side{}
	var order []declKey
	collect := func(m map[declKey]side, p string, fv fileVersion) {
		inits := 0
		dir, test := path.Dir(p), strings.HasSuffix(p, "_test.go")
		for i := range fv.decls {
			d := &fv.decls[i]
			name := d.QualifiedName
			if name == "init" && d.Kind == graph.KindFunc {
				inits++
				name = "init@" + p + "#" + strconv.Itoa(inits)
			}
			k := declKey{dir: dir, pkg: fv.pkgName, test: test, name: name}
			if _, ok := olds[k]; !ok {
				if _, ok := news[k]; !ok {
					order = append(order, k)
				}
			}
			m[k] = side{decl: d, path: p}
		}
	}
	oldBroken, newBroken := map[string]bool{}, map[string]bool{}
	for i, v := range readVersions(changes, parse) {
		p := changes[i].path
		collect(olds, p, v[0])
		collect(news, p, v[1])
		if v[0].syntaxErr != "" {
			oldBroken[p] = true
			unparsable = append(unparsable, "the old "+p+" ("+v[0].syntaxErr+")")
		}
		if v[1].syntaxErr != "" {
			newBroken[p] = true
			unparsable = append(unparsable, p+" ("+v[1].syntaxErr+")")
		}
	}
	// Members of a type that is itself added or removed are part of that
	// change; fields and interface methods are not listed again.
	whole := map[declKey]bool{}
	for _, k := range order {
		_, inOld := olds[k]
		_, inNew := news[k]
		if inOld != inNew {
			whole[k] = true
		}
	}
	for _, k := range order {
		o, inOld := olds[k]
		n, inNew := news[k]
		if (inOld && !inNew && newBroken[o.path]) || (inNew && !inOld && oldBroken[n.path]) {
			continue // lost by the parser, or not: unparsable says so
		}
		c := &changedDecl{dir: k.dir, pkgName: k.pkg, test: k.test}
		var d *versionDecl
		switch {
		case inOld && inNew:
			switch {
			case !sameTokens(o.decl.sig, n.decl.sig):
				c.Change = ChangeSignature
			case !sameTokens(o.decl.body, n.decl.body):
				c.Change = ChangeBody
			default:
				continue
			}
			c.old, c.new = o.decl, n.decl
			d, c.Path = n.decl, n.path
		case inNew:
			c.Change, c.new, d, c.Path = ChangeAdded, n.decl, n.decl, n.path
		default:
			c.Change, c.old, d, c.Path = ChangeRemoved, o.decl, o.decl, o.path
		}
		if (d.Kind == graph.KindField || d.Kind == graph.KindInterfaceMethod) && d.Receiver != "" {
			pk := k
			pk.name = d.Receiver
			if whole[pk] {
				continue
			}
		}
		c.QualifiedName, c.Kind, c.Line, c.EndLine = d.QualifiedName, string(d.Kind), d.Line, d.EndLine
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *changedDecl) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return out, unparsable
}

// declsOnLines lists the declarations of a file's content that overlap
// lines from..to, as body changes.
func declsOnLines(p string, content []byte, from, to int) []*changedDecl {
	fv := parseVersion(p, content)
	var out []*changedDecl
	for i := range fv.decls {
		d := fv.decls[i]
		if d.EndLine < from || d.Line > to {
			continue
		}
		c := &changedDecl{dir: path.Dir(p), pkgName: fv.pkgName, test: strings.HasSuffix(p, "_test.go"), old: &d, new: &d}
		c.QualifiedName, c.Kind, c.Path, c.Line, c.EndLine, c.Change = d.QualifiedName, string(d.Kind), p, d.Line, d.EndLine, ChangeBody
		out = append(out, c)
	}
	return out
}

// ParseLines reads the lines parameter: "N" or "N-M".
func ParseLines(s string) (int, int, error) {
	a, b, ranged := strings.Cut(s, "-")
	from, err := strconv.Atoi(a)
	to := from
	if err == nil && ranged {
		to, err = strconv.Atoi(b)
	}
	if err != nil || from < 1 || to < from {
		return 0, 0, answer.Invalid("lines", "must be a line N or a range N-M with 1 <= N <= M (got %q)", s)
	}
	return from, to, nil
}

// isGoSource reports whether a repo-relative path is a Go file the go
// command would build: not under testdata, vendor, or a directory whose
// name starts with "." or "_".
func isGoSource(p string) bool {
	if !strings.HasSuffix(p, ".go") {
		return false
	}
	for _, el := range strings.Split(path.Dir(p), "/") {
		if el == "testdata" || el == "vendor" || (el != "." && (strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_"))) {
			return false
		}
	}
	base := path.Base(p)
	return !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "_")
}

// gitChanges compares the Go files of the working tree under root with
// those of the commit base resolves to ("HEAD" by default): git lists and
// reads the commit's blobs, and the disk is read here, so that nothing of
// the repository's configuration runs. It returns the commit id.
func gitChanges(ctx context.Context, root, base string) ([]fileChange, string, error) {
	field := "diff"
	rev := "HEAD"
	if base != "" {
		field, rev = "base", base
	}
	repo, err := git.Open(ctx, root)
	if errors.Is(err, git.ErrForeignGitDir) {
		return nil, "", answer.Invalid(field, "needs a git work tree, and %s is not read as one because %v (pass diff_text instead)", root, err)
	}
	if err != nil {
		return nil, "", answer.Invalid(field, "needs a git work tree, and %s is not in one (pass diff_text instead)", root)
	}
	commit, err := repo.Commit(ctx, rev)
	if err != nil {
		if errors.Is(err, git.ErrBadRevision) {
			return nil, "", answer.Invalid(field, "%q is not a commit of the repository at %s (name one commit: no range, negation or option)", rev, root)
		}
		return nil, "", graph.Wrap(graph.CodeReadError, err, "reading git")
	}
	tree, err := repo.Tree(ctx, commit)
	if err != nil {
		return nil, "", graph.Wrap(graph.CodeReadError, err, "reading git")
	}
	inTree := map[string]string{}
	for _, b := range tree {
		if isSource(b.Path) {
			inTree[b.Path] = b.ID
		}
	}
	// Of the other languages, the files the commit has: a new one is
	// not told from a generated or installed one.
	disk, err := sourceFilesOnDisk(root, func(p string) bool { _, ok := inTree[p]; return ok })
	if err != nil {
		return nil, "", graph.Wrap(graph.CodeReadError, err, "listing the working tree")
	}
	var changes []fileChange
	var want []string
	for p, content := range disk {
		id, ok := inTree[p]
		if ok && git.BlobIDFor(content, id) == id {
			continue
		}
		changes = append(changes, fileChange{path: p, new: content})
		if ok {
			want = append(want, id)
		}
	}
	for p := range inTree {
		if _, ok := disk[p]; !ok {
			changes = append(changes, fileChange{path: p})
			want = append(want, inTree[p])
		}
	}
	blobs, err := repo.Contents(ctx, want)
	if err != nil {
		return nil, "", graph.Wrap(graph.CodeReadError, err, "reading git objects")
	}
	for i := range changes {
		if id, ok := inTree[changes[i].path]; ok {
			changes[i].old = blobs[id]
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, commit, nil
}

// sourceFilesOnDisk reads the Go source files under root through
// os.Root (symlinks that leave it are not followed), and the files of
// the other languages that known says.
func sourceFilesOnDisk(root string, known func(string) bool) (map[string][]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := map[string][]byte{}
	err = fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not part of the change
		}
		if d.IsDir() {
			if p != "." && !isGoSource(p+"/x.go") && !scriptSource(p+"/x.py") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isGoSource(p) && !(scriptSource(p) && known(p)) {
			return nil
		}
		data, err := session.ReadIn(r, "diff", p)
		if err != nil {
			return nil
		}
		out[p] = data
		return nil
	})
	return out, err
}

// textChanges reads a unified diff given as text against the disk under
// root. A diff already applied to the disk (its new side is on disk) is
// undone to find the old contents; one not applied yet (its old side is
// on disk) is applied in memory to find the new. applied says which.
func textChanges(root string, text string) ([]fileChange, bool, error) {
	files, err := diff.Parse([]byte(text))
	if err != nil {
		return nil, false, answer.Invalid("diff_text", "is not a unified diff: %v", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, false, graph.Wrap(graph.CodeReadError, err, "opening the repository")
	}
	defer r.Close()
	type entry struct {
		f    diff.File
		disk []byte
	}
	var entries []entry
	for _, f := range files {
		// Every path first, whatever its file: one with .. is no Go
		// source, and was skipped as such.
		for _, p := range []*string{&f.OldPath, &f.NewPath} {
			if *p == "" {
				continue
			}
			if path.IsAbs(*p) || !filepath.IsLocal(*p) {
				return nil, false, graph.Errorf(graph.CodeOutsideRoots, "diff_text names %q, which is outside the repository", *p).WithData("field", "diff_text")
			}
			*p = path.Clean(*p) // a/../b.go is b.go
		}
		if f.Binary || (!isSource(f.OldPath) && !isSource(f.NewPath)) {
			continue
		}
		var disk []byte
		// The disk holds the new side of an applied diff, the old of one
		// not applied; read both paths and keep what exists.
		for _, p := range []string{f.NewPath, f.OldPath} {
			if p == "" {
				continue
			}
			data, err := session.ReadIn(r, "diff_text", p)
			if err == nil {
				disk = data
				break
			}
			var ge *graph.Error
			if errors.As(err, &ge) && ge.Code == graph.CodeOutsideRoots {
				return nil, false, err
			}
		}
		entries = append(entries, entry{f: f, disk: disk})
	}
	try := func(reverse bool) ([]fileChange, error) {
		var out []fileChange
		for _, e := range entries {
			other, err := e.f.Apply(e.disk, reverse)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.f.Path(), err)
			}
			c := fileChange{path: e.f.Path()}
			if reverse {
				c.new, c.old = e.disk, other
				if e.f.NewPath == "" {
					c.new = nil
				}
				if e.f.OldPath == "" {
					c.old = nil
				}
			} else {
				c.old, c.new = e.disk, other
				if e.f.OldPath == "" {
					c.old = nil
				}
				if e.f.NewPath == "" {
					c.new = nil
				}
			}
			out = append(out, c)
		}
		return out, nil
	}
	if out, err := try(true); err == nil {
		return out, true, nil
	}
	out, err := try(false)
	if err != nil {
		return nil, false, answer.Invalid("diff_text", "applies to the files on disk neither as done nor as to do: %v", err)
	}
	return out, false, nil
}
