package testrec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/impact"
)

// fileDecls is a covered file's declarations with their hashes, read once
// per recording.
type fileDecls struct {
	decls []impact.DeclHash
	lines int
	err   error // the file could not be read
}

// block is one covered block of a profile: its file, as the profile
// names it (import path/base name), and its lines.
type block struct {
	file     string
	from, to int
	ran      bool // its count is not zero
}

// maxProfileLine bounds one line of a coverage profile.
const maxProfileLine = 64 << 10

// parseProfile reads a coverage profile in the text format the test
// binary writes (-test.coverprofile: "mode: set", then "file:l1.c1,l2.c2
// statements count" a line) and returns its blocks. Anything else in it is an error: a profile that does not read
// as one is never guessed at.
func parseProfile(data []byte) ([]block, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxProfileLine)
	n := 0
	var out []block
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			if !strings.HasPrefix(line, "mode: ") {
				return nil, fmt.Errorf("line 1 is %q, not the mode", cut(line))
			}
			continue
		}
		if line == "" {
			continue
		}
		b, count, err := parseBlock(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		b.ran = count > 0
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	if n == 0 {
		return nil, errors.New("the profile is empty")
	}
	return out, nil
}

// parseBlock reads "file:l1.c1,l2.c2 statements count".
func parseBlock(line string) (block, int, error) {
	bad := func() (block, int, error) { return block{}, 0, fmt.Errorf("%q is not a coverage block", cut(line)) }
	colon := strings.LastIndexByte(line, ':')
	if colon <= 0 {
		return bad()
	}
	file, rest := line[:colon], line[colon+1:]
	f := strings.Fields(rest)
	if len(f) != 3 {
		return bad()
	}
	from, to, ok := strings.Cut(f[0], ",")
	if !ok {
		return bad()
	}
	l1, ok1 := lineOf(from)
	l2, ok2 := lineOf(to)
	_, err1 := strconv.Atoi(f[1])
	count, err2 := strconv.Atoi(f[2])
	if !ok1 || !ok2 || err1 != nil || err2 != nil || l1 < 1 || l2 < l1 || count < 0 || !strings.HasSuffix(file, ".go") {
		return bad()
	}
	return block{file: file, from: l1, to: l2}, count, nil
}

// lineOf reads the line of "line.col".
func lineOf(pos string) (int, bool) {
	l, c, ok := strings.Cut(pos, ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(l)
	_, err2 := strconv.Atoi(c)
	return n, err == nil && err2 == nil
}

func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// covered reads a run's profile and maps its blocks to the
// declarations that hold them, each with its key and hash: those a block
// that ran is in, and every one the profile has a block of (known).
func (r *recorder) covered(profile string) (covered, known []graph.Covered, _ error) {
	data, err := os.ReadFile(profile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errors.New("the test binary wrote no coverage profile (it exited before the testing framework could)")
	}
	if err != nil {
		return nil, nil, err
	}
	blocks, err := parseProfile(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the coverage profile is corrupt: %v", err)
	}
	for _, b := range blocks {
		fd := r.decls(b.file)
		if fd == nil {
			continue // a file of no package of the module
		}
		if fd.err != nil {
			return nil, nil, fd.err
		}
		if b.to > fd.lines {
			return nil, nil, fmt.Errorf("the coverage profile is corrupt: %s has %d lines, and a block ends on line %d", b.file, fd.lines, b.to)
		}
		for _, d := range fd.decls {
			if d.Line <= b.from && b.to <= d.EndLine {
				key := graph.StableKey(graph.Identity{Language: "go", Repository: r.opts.Repository, PackagePath: pkgOfFile(b.file),
					QualifiedName: d.QualifiedName, Kind: d.Kind})
				c := graph.Covered{Key: key, BodyHash: d.Hash}
				known = append(known, c)
				if b.ran {
					covered = append(covered, c)
				}
			}
		}
	}
	return sortCovered(covered), sortCovered(known), nil
}

// decls returns the declarations of a file a profile names, nil for a
// file of no package of the module.
func (r *recorder) decls(file string) *fileDecls {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fd, ok := r.files[file]; ok {
		return fd
	}
	dir, ok := r.dirs[path.Dir(file)]
	if !ok {
		r.files[file] = nil
		return nil
	}
	fd := &fileDecls{}
	content, err := os.ReadFile(filepath.Join(dir, path.Base(file)))
	if err != nil {
		fd.err = fmt.Errorf("reading %s: %w", file, err)
	} else {
		fd.decls = impact.DeclHashes(file, content)
		fd.lines = bytes.Count(content, []byte("\n")) + 1
	}
	r.files[file] = fd
	return fd
}
