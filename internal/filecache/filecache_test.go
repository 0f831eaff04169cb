package filecache

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func key(s string) Key { return sha256.Sum256([]byte(s)) }

func TestPutGet(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(key("a")); ok {
		t.Fatal("a hit in an empty cache")
	}
	for _, v := range [][]byte{[]byte("value"), {}, bytes.Repeat([]byte{0, 1, 2}, 100000)} {
		if err := c.Put(key("a"), v); err != nil {
			t.Fatal(err)
		}
		got, ok := c.Get(key("a"))
		if !ok || !bytes.Equal(got, v) {
			t.Fatalf("Get after Put of %d bytes: %d bytes, %v", len(v), len(got), ok)
		}
	}
	if _, ok := c.Get(key("b")); ok {
		t.Error("a hit for a key never put")
	}
}

// TestDamagedEntryMissed: an entry whose value, length or header was
// changed on disk is a miss, and its file is removed; the next Put
// stores the value again.
func TestDamagedEntryMissed(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, damage := range []struct {
		name string
		f    func([]byte) []byte
	}{
		{"flipped value byte", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		{"cut short", func(b []byte) []byte { return b[:len(b)-3] }},
		{"grown", func(b []byte) []byte { return append(b, 'x') }},
		{"other header", func(b []byte) []byte { b[0] = 'S'; return b }},
		{"empty", func([]byte) []byte { return nil }},
	} {
		if err := c.Put(key("k"), []byte("the value")); err != nil {
			t.Fatal(err)
		}
		p := c.path(key("k"))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, damage.f(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if v, ok := c.Get(key("k")); ok {
			t.Errorf("%s: a hit: %q", damage.name, v)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: the damaged entry was kept: %v", damage.name, err)
		}
	}
}

// TestTrim: Open removes entries unused for a week, keeps the others,
// and does it at most once a day.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"old", "new"} {
		if err := c.Put(key(k), []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(c.path(key("old")), long, long); err != nil {
		t.Fatal(err)
	}
	c.trim(time.Now()) // the stamp Open wrote is fresh: no trim yet
	if _, ok := c.Get(key("old")); !ok {
		t.Fatal("trimmed twice in a day")
	}
	if err := os.Chtimes(c.path(key("old")), long, long); err != nil { // Get renewed it
		t.Fatal(err)
	}
	c.trim(time.Now().Add(25 * time.Hour))
	if _, err := os.Stat(c.path(key("old"))); !os.IsNotExist(err) {
		t.Errorf("an entry unused for 8 days was kept: %v", err)
	}
	if _, ok := c.Get(key("new")); !ok {
		t.Error("a recent entry was trimmed")
	}
}

// TestConcurrentPut: writers of the same key never leave a reader a
// partial entry, nor temporary files behind.
func TestConcurrentPut(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v := bytes.Repeat([]byte("0123456789"), 50000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := c.Put(key("k"), v); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if got, ok := c.Get(key("k")); ok && !bytes.Equal(got, v) {
				t.Error("a partial value was read")
			}
		}()
	}
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(c.path(key("k"))), ".tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// FuzzDecode: no file content makes decode panic, and whatever it
// accepts is what encode would have written for that value.
func FuzzDecode(f *testing.F) {
	f.Add(encode([]byte("value")))
	f.Add(encode(nil))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, ok := decode(data); ok && !bytes.Equal(encode(v), data) {
			t.Fatalf("decode accepted %q, which encodes otherwise", data)
		}
	})
}
