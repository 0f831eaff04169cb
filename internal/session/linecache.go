package session

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxCachedLines bounds the bytes of source the line cache holds; past
// it the cache starts over.
const maxCachedLines = 32 << 20

// lineCache keeps the files whose lines answers quote (find_references'
// excerpts), so the pages of one answer and the next answers about the
// same code do not read and split them again. An entry is used only while
// the file's size and modification time are what they were when it was
// read, so the text is the disk's; or, without opening the file, while
// the directory watch of its repository has seen no change since the entry
// was last found current (see cached).
type lineCache struct {
	mu    sync.Mutex
	files map[string]cacheEntry // absolute path → its lines
	bytes int
}

// cacheEntry is a file's lines and the watch generation they were last
// found current in (0: none).
type cacheEntry struct {
	f   *cachedFile
	gen uint64
}

type cachedFile struct {
	size  int64
	mod   time.Time
	data  string  // a string, so that a line is a slice of it, not a copy
	start []int32 // offset of each line in data
}

// cached returns the entry of rel under rootDir when it was found current
// in watch generation gen (see freshness.cleanGen): no event has come from
// the file's directory since, so it is still the disk's. Opening each file
// through os.Root, a system call per path element, was a fifth of a
// find_references answer's time. gen 0 is no watch: nil.
func (c *lineCache) cached(rootDir, rel string, gen uint64) *cachedFile {
	if gen == 0 {
		return nil
	}
	abs := filepath.Join(rootDir, filepath.FromSlash(rel))
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.files[abs]; e.gen == gen {
		return e.f
	}
	return nil
}

// line returns line n (1-based) without its line ending, or "".
func (f *cachedFile) line(n int) string {
	if f == nil || n < 1 || n > len(f.start) {
		return ""
	}
	from := int(f.start[n-1])
	to := len(f.data)
	if n < len(f.start) {
		to = int(f.start[n]) - 1 // the newline
	}
	return strings.TrimRight(f.data[from:to], "\r")
}

// span returns lines from to to (1-based, inclusive, with their line
// endings; to past the end is the end), and false when there is no line
// from or to is before it.
func (f *cachedFile) span(from, to int) (string, bool) {
	if f == nil || from < 1 || from > len(f.start) || to < from {
		return "", false
	}
	end := len(f.data)
	if to < len(f.start) {
		end = int(f.start[to])
	}
	return f.data[f.start[from-1]:end], true
}

// get returns the lines of rel under root (opened by the caller), read
// through os.Root so the file cannot leave it; nil when it cannot be read.
// gen, when not 0, is the watch generation the call saw its repository
// clean in: the entry is then marked current in it.
func (c *lineCache) get(root *os.Root, rootDir, rel string, gen uint64) *cachedFile {
	f, err := OpenRegular(root, "file", rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > MaxFileBytes {
		return nil
	}
	abs := filepath.Join(rootDir, filepath.FromSlash(rel))
	c.mu.Lock()
	cf := c.files[abs].f
	c.mu.Unlock()
	if cf != nil && cf.size == fi.Size() && cf.mod.Equal(fi.ModTime()) {
		if gen != 0 {
			c.mu.Lock()
			if c.files[abs].f == cf {
				c.files[abs] = cacheEntry{cf, gen}
			}
			c.mu.Unlock()
		}
		return cf
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF { // a shorter file changed since the stat: use what is there
		return nil
	}
	data = data[:n]
	cf = &cachedFile{size: fi.Size(), mod: fi.ModTime(), data: string(data), start: lineStarts(data)}
	c.mu.Lock()
	if c.files == nil || c.bytes+len(data) > maxCachedLines {
		c.files, c.bytes = map[string]cacheEntry{}, 0
	}
	if old, ok := c.files[abs]; ok {
		c.bytes -= len(old.f.data)
	}
	c.files[abs] = cacheEntry{cf, gen}
	c.bytes += len(data)
	c.mu.Unlock()
	return cf
}

// lineStarts returns the offset of each line of data.
func lineStarts(data []byte) []int32 {
	starts := make([]int32, 1, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, int32(off))
	}
	return starts
}

// Source reads the files of one repository through the service's line
// cache. Files of repositories outside the server's roots are not read:
// their text is empty.
type Source struct {
	file func(path string) *cachedFile
}

// Source returns the reader of repo's files: a file is read from disk
// once, or not at all while the cache holds it current. The root is
// opened on the first read and closed with the view.
func (v *View) Source(repo string) Source {
	return Source{file: fileReader(v, repo)}
}

// Line returns line n (1-based) of a file without its line ending, or
// "".
func (s Source) Line(path string, n int) string {
	return s.file(path).line(n)
}

// Span returns the text of lines from to to (1-based, inclusive, with
// their line endings; to past the end is the end) of a file; ok is false
// when the file cannot be read, its repository is not one of the
// server's roots, or it has no line from.
func (s Source) Span(path string, from, to int) (text string, ok bool) {
	return s.file(path).span(from, to)
}

// fileReader returns a function that finds a file of repo in the line
// cache, reading it when it is not there or not current; nil when it
// cannot be read or repo is not one of the server's roots.
func fileReader(v *View, repo string) func(path string) *cachedFile {
	var rootDir string
	var gen uint64
	for _, r := range v.repos {
		if r.Name == repo && v.s.IsRoot(r.Root) {
			rootDir = r.Root
			if len(v.Staleness(r)) == 0 {
				gen = v.s.fresh.cleanGen(r)
			}
		}
	}
	var root *os.Root
	files := map[string]*cachedFile{}
	var lastPath string // the references come in path order: most reads are of the last file's
	var last *cachedFile
	return func(path string) *cachedFile {
		if rootDir == "" {
			return nil
		}
		if last != nil && path == lastPath {
			return last
		}
		f, ok := files[path]
		if !ok {
			f = v.s.lines.cached(rootDir, path, gen)
			if f == nil {
				if root == nil {
					var err error
					if root, err = os.OpenRoot(rootDir); err != nil {
						rootDir = ""
						return nil
					}
					v.done = append(v.done, func() { root.Close() })
				}
				f = v.s.lines.get(root, rootDir, path, gen)
			}
			files[path] = f
		}
		lastPath, last = path, f
		return f
	}
}
