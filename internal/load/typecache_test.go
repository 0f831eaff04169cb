package load

import (
	"context"
	"crypto/sha256"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/filecache"
)

// loadCached loads the fixture's unit from source through cache.
func loadCached(t *testing.T, dir string, cache *filecache.Cache) ([]*packages.Package, *typeCacheStats) {
	t.Helper()
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	u := plan.Units[0]
	var stats typeCacheStats
	pkgs, keep, err := fromSourceWith(Config(u), sourceOptions{cache: cache, stats: &stats}, u.Patterns...)
	if err != nil {
		t.Fatal(err)
	}
	keep()
	return pkgs, &stats
}

// TestTypeCache: a second load takes every dependency's types from the
// cache the first filled, and sees exactly what a load without the cache
// sees; a dependency whose file changed is checked again, and so is
// nothing else.
func TestTypeCache(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := sourceFixture(t)
	cache, err := filecache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	uncached, _ := loadCached(t, dir, nil)
	want := describe(t, uncached)

	first, filled := loadCached(t, dir, cache)
	if got := describe(t, first); got != want {
		t.Errorf("the load filling the cache differs:\n%s", lineDiff(want, got))
	}
	if filled.hits.Load() != 0 || filled.stored.Load() < 10 {
		t.Fatalf("first load: %d hits, %d stored; want 0 and every dependency", filled.hits.Load(), filled.stored.Load())
	}
	second, read := loadCached(t, dir, cache)
	if got := describe(t, second); got != want {
		t.Errorf("the load from the cache differs:\n%s", lineDiff(want, got))
	}
	if read.hits.Load() != filled.stored.Load() || read.stored.Load() != 0 {
		t.Errorf("second load: %d hits, %d stored; want %d and 0", read.hits.Load(), read.stored.Load(), filled.stored.Load())
	}

	// The replaced dependency gains a declaration: it alone is checked
	// again (nothing in the fixture imports it but the module itself).
	depDir := ""
	packages.Visit(second, nil, func(p *packages.Package) {
		if p.PkgPath == "example.com/dep" {
			depDir = filepath.Dir(p.GoFiles[0])
		}
	})
	f := filepath.Join(depDir, "dep.go")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(src, "\nconst Added = 1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	third, changed := loadCached(t, dir, cache)
	if changed.hits.Load() != filled.stored.Load()-1 || changed.stored.Load() != 1 {
		t.Errorf("after the change: %d hits, %d stored; want %d and 1", changed.hits.Load(), changed.stored.Load(), filled.stored.Load()-1)
	}
	if got := describe(t, third); !strings.Contains(got, "const example.com/dep.Added untyped int") {
		t.Errorf("the changed dependency's new constant is missing:\n%s", got)
	}
}

// TestTypeCacheDamaged: an entry damaged on disk is a miss, checked from
// source and stored again, and the load sees what it would without it.
func TestTypeCacheDamaged(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := sourceFixture(t)
	cacheDir := t.TempDir()
	cache, err := filecache.Open(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	uncached, _ := loadCached(t, dir, nil)
	want := describe(t, uncached)
	_, filled := loadCached(t, dir, cache)
	damaged := 0
	filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) != "trimmed" && damaged < 3 {
			data, _ := os.ReadFile(p)
			data[len(data)-1] ^= 0xff
			os.WriteFile(p, data, 0o600)
			damaged++
		}
		return nil
	})
	pkgs, read := loadCached(t, dir, cache)
	if got := describe(t, pkgs); got != want {
		t.Errorf("the load over damaged entries differs:\n%s", lineDiff(want, got))
	}
	if read.hits.Load() != filled.stored.Load()-3 || read.stored.Load() != 3 {
		t.Errorf("over 3 damaged entries: %d hits, %d stored; want %d and 3", read.hits.Load(), read.stored.Load(), filled.stored.Load()-3)
	}
}

// TestLoadWhen: a load given a ready channel lists the package graph and
// then checks nothing until the channel is closed; once it is, it gives
// what Load gives. The types it checked reach the cache only when keep
// is called.
func TestLoadWhen(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	cacheDir := t.TempDir()
	t.Setenv(TypeCacheEnv, cacheDir)
	dir := sourceFixture(t)
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	u := plan.Units[0]
	waiting := make(chan struct{})
	listed = func() { close(waiting) }
	defer func() { listed = func() {} }()

	ready := make(chan *Parsed)
	type result struct {
		pkgs []*packages.Package
		keep func()
		err  error
	}
	done := make(chan result, 1)
	go func() {
		pkgs, keep, err := LoadWhen(context.Background(), u, ready)
		done <- result{pkgs, keep, err}
	}()
	select {
	case <-waiting:
	case r := <-done:
		t.Fatalf("the load returned (err %v) without waiting for ready", r.err)
	}
	select {
	case r := <-done:
		t.Fatalf("the load returned (err %v) before ready was closed", r.err)
	case <-time.After(300 * time.Millisecond): // the check would have begun
	}
	close(ready)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := cacheLen(t, cacheDir); n != 0 {
		t.Errorf("%d cache entries before keep, want none", n)
	}
	r.keep()
	if n := cacheLen(t, cacheDir); n == 0 {
		t.Errorf("no cache entries after keep")
	}
	r.keep() // does nothing

	t.Setenv(TypeCacheEnv, "off")
	want, err := Load(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(t, r.pkgs), describe(t, want); got != want {
		t.Errorf("LoadWhen gave\n%s\nLoad gave\n%s", got, want)
	}
}

// cacheLen returns how many entries the type cache in dir holds.
func cacheLen(t *testing.T, dir string) int {
	t.Helper()
	c, err := filecache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c.Len()
}

// TestLoadWhenTakesParsed: a load handed files parsed ahead gives its
// initial packages those very files, in their file set, except one whose
// content is no longer what was parsed, which it parses again; and it
// sees what Load sees.
func TestLoadWhenTakesParsed(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv(TypeCacheEnv, "off")
	dir := sourceFixture(t)
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	u := plan.Units[0]
	ahead := &Parsed{Fset: token.NewFileSet(), Files: map[string]ParsedFile{}}
	for _, name := range []string{"m.go", "m_test.go", "x_test.go"} {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(ahead.Fset, path, src, ParseMode)
		sum := sha256.Sum256(src)
		if name == "x_test.go" {
			sum[0]++ // parsed from other content
		}
		ahead.Files[path] = ParsedFile{File: f, Err: err, Sum: sum}
	}
	ready := make(chan *Parsed, 1)
	ready <- ahead
	pkgs, keep, err := LoadWhen(context.Background(), u, ready)
	if err != nil {
		t.Fatal(err)
	}
	keep()
	taken, parsed := map[string]bool{}, map[string]bool{}
	for _, p := range pkgs {
		if p.Fset != ahead.Fset {
			t.Errorf("%s: not in the file set of the files parsed ahead", p.ID)
		}
		for _, f := range p.Syntax {
			name := filepath.Base(ahead.Fset.Position(f.Package).Filename)
			if f == ahead.Files[filepath.Join(dir, name)].File {
				taken[name] = true
			} else {
				parsed[name] = true
			}
		}
	}
	if !taken["m.go"] || !taken["m_test.go"] || taken["x_test.go"] || !parsed["x_test.go"] || parsed["m.go"] {
		t.Errorf("taken %v, parsed again %v; want m.go and m_test.go taken, x_test.go parsed again", taken, parsed)
	}
	want, err := Load(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(t, pkgs), describe(t, want); got != want {
		t.Errorf("with files parsed ahead\n%s\nLoad gave\n%s", got, want)
	}
}
