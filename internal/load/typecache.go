package load

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"go/types"
	"os"
	"runtime"
	"slices"
	"sync/atomic"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/filecache"
)

// TypeCacheEnv names the environment variable that places the cache of
// dependency types: a directory, or "off" for none. Unset, it is
// sextant/types under the user's cache directory.
const TypeCacheEnv = "SEXTANT_TYPE_CACHE"

// openTypeCache returns the cache of dependency types, or nil when it is
// off or cannot be made or trusted (a load then checks every dependency
// from source).
func openTypeCache() *filecache.Cache {
	dir := os.Getenv(TypeCacheEnv)
	switch dir {
	case "off":
		return nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		// sextant/ is checked too: whoever may write there could swap
		// types/ for a directory of their own.
		if dir, err = filecache.PrivateDir(base, "sextant", "types"); err != nil {
			return nil
		}
	}
	c, err := filecache.Open(dir)
	if err != nil {
		return nil
	}
	return c
}

// typeCacheStats counts what a load took from the cache and put in it.
type typeCacheStats struct {
	hits, stored atomic.Int64
}

// typesKey is the hash of everything a dependency's types are checked
// from: this checker (the Go release Sextant was built with), the
// package's path and name, its language version and type sizes, the
// name and content of every file, and the keys of its imports, so a
// change anywhere below it is a new key. ok is false when a file cannot
// be read or an import has no key: the package is then checked and not
// stored.
func (c *checker) typesKey(p *packages.Package, names []string) (key filecache.Key, ok bool) {
	h := sha256.New()
	fmt.Fprintf(h, "sextant types 1\n%s\n%s\n%s\n%s\n%v\n", runtime.Version(), p.PkgPath, p.Name, goVersion(p), p.TypesSizes)
	for _, name := range names {
		src, inOverlay := c.cfg.Overlay[name]
		if !inOverlay {
			var err error
			if src, err = os.ReadFile(name); err != nil {
				return key, false
			}
		}
		sum := sha256.Sum256(src)
		fmt.Fprintf(h, "file %q %x\n", name, sum)
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		st := c.state[p.Imports[path]]
		if !st.keyed {
			return key, false
		}
		fmt.Fprintf(h, "import %q %x\n", path, st.key)
	}
	h.Sum(key[:0])
	return key, true
}

// goVersion is the language version p is checked at.
func goVersion(p *packages.Package) string {
	if p.Module != nil && p.Module.GoVersion != "" {
		return "go" + p.Module.GoVersion
	}
	return ""
}

// cachedTypes returns p's types decoded from the cache entry under key,
// built on the types of its imports, or nil when there is no usable
// entry.
func (c *checker) cachedTypes(p *packages.Package, key filecache.Key) *types.Package {
	data, ok := c.cache.Get(key)
	if !ok {
		return nil
	}
	// The entry refers to objects of every package below p by path: each
	// must resolve to the one this load checked, so that types from
	// both are identical.
	imports := map[string]*types.Package{}
	var visit func(q *packages.Package)
	visit = func(q *packages.Package) {
		for _, ip := range q.Imports {
			if _, seen := imports[ip.PkgPath]; !seen && ip.Types != nil {
				imports[ip.PkgPath] = ip.Types
				visit(ip)
			}
		}
	}
	visit(p)
	pkg, err := gcexportdata.Read(bytes.NewReader(data), c.fset, imports, p.PkgPath)
	if err != nil || pkg.Name() != p.Name || !pkg.Complete() {
		return nil
	}
	c.stats.hits.Add(1)
	return pkg
}

// storeTypes puts p's types, checked without errors, under key.
func (c *checker) storeTypes(p *packages.Package, key filecache.Key) {
	var buf bytes.Buffer
	if err := gcexportdata.Write(&buf, c.fset, p.Types); err != nil {
		return
	}
	if c.cache.Put(key, buf.Bytes()) == nil {
		c.stats.stored.Add(1)
	}
}
