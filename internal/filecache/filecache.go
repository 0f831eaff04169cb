// Package filecache keeps values under content keys in a directory of
// files, for what is costly to compute and certain to be the same for
// the same inputs (a dependency's types, checked from its source).
//
// A key is the hash of everything the value is computed from, so an
// entry is never stale, only unused: a lookup that misses computes the
// value again and stores it. Each entry carries the SHA-256 of its value,
// checked on every read; a damaged, cut or foreign file is a miss, and is
// removed. Writes go to a temporary file renamed into place, so
// concurrent processes sharing the directory see an entry whole or not
// at all. Entries unused for a week are removed, at most once a day.
//
// It imports nothing of Sextant.
package filecache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Key names an entry: the hash of the inputs of its value.
type Key [sha256.Size]byte

// Cache is a directory of entries. Its methods are safe for concurrent
// use, by goroutines and by processes.
type Cache struct {
	dir string
}

// magic starts every entry: the format's name and version.
const magic = "sextant filecache 1\n"

const (
	maxAge    = 7 * 24 * time.Hour // an entry unused this long is removed
	trimEvery = 24 * time.Hour
	touchAge  = time.Hour // a read renews an entry's time once it is this old
)

// Open returns the cache in dir, created (mode 0700) when missing, and
// removes entries unused for a week when it has not done so for a day.
// A dir someone else owns or may write to is refused (see PrivateDir):
// an entry carries its own checksum, which proves it whole, not honest.
func Open(dir string) (*Cache, error) {
	if _, err := PrivateDir(dir); err != nil {
		return nil, fmt.Errorf("opening cache directory: %w", err)
	}
	c := &Cache{dir: dir}
	c.trim(time.Now())
	return c, nil
}

// path is where key's entry lives: fanned out over 256 directories by its
// first byte.
func (c *Cache) path(key Key) string {
	h := hex.EncodeToString(key[:])
	return filepath.Join(c.dir, h[:2], h)
}

// Get returns the value stored under key, or false when there is none
// whole: a file that is not an entry of this format, or whose value does
// not match its checksum, is removed and missed.
func (c *Cache) Get(key Key) ([]byte, bool) {
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	value, ok := decode(data)
	if !ok {
		os.Remove(p)
		return nil, false
	}
	if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > touchAge {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
	return value, true
}

// Put stores value under key.
func (c *Cache) Put(key Key, value []byte) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing cache entry: %w", err)
	}
	_, err = f.Write(encode(value))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
		// Windows refuses to replace a file that is open, by a reader or
		// by a writer of the same key renaming at that instant (access
		// denied). An entry is determined by its key: one in place whole
		// is this value, stored; else the rename is tried again a few
		// times, for at most some 50 ms, as the other side lets go.
		for i := 1; err != nil && i <= 10; i++ {
			if c.whole(p) {
				err = nil
				os.Remove(f.Name())
				break
			}
			time.Sleep(time.Duration(i) * time.Millisecond)
			err = os.Rename(f.Name(), p)
		}
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing cache entry: %w", err)
	}
	return nil
}

// whole reports whether the file at p is an entry whole.
func (c *Cache) whole(p string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	_, ok := decode(data)
	return ok
}

// encode frames value as an entry: magic, the value's length and
// checksum, the value.
func encode(value []byte) []byte {
	sum := sha256.Sum256(value)
	out := make([]byte, 0, len(magic)+8+len(sum)+len(value))
	out = append(out, magic...)
	out = binary.BigEndian.AppendUint64(out, uint64(len(value)))
	out = append(out, sum[:]...)
	return append(out, value...)
}

// decode returns the value of an entry, or false when data is not one
// whole.
func decode(data []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok || len(rest) < 8+sha256.Size {
		return nil, false
	}
	n := binary.BigEndian.Uint64(rest)
	sum, value := rest[8:8+sha256.Size], rest[8+sha256.Size:]
	if uint64(len(value)) != n {
		return nil, false
	}
	if got := sha256.Sum256(value); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return value, true
}

// Len returns how many entries the cache holds, whole or not.
func (c *Cache) Len() int {
	n := 0
	filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(p) != c.dir {
			n++
		}
		return nil
	})
	return n
}

// trim removes entries (and temporary files left by a killed writer)
// not used for maxAge, when the last trim was trimEvery ago or never.
func (c *Cache) trim(now time.Time) {
	stamp := filepath.Join(c.dir, "trimmed")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < trimEvery {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return
	}
	os.Chtimes(stamp, now, now)
	filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == stamp {
			return nil
		}
		if fi, err := d.Info(); err == nil && now.Sub(fi.ModTime()) > maxAge {
			os.Remove(p)
		}
		return nil
	})
}
