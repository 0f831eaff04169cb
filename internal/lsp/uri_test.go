package lsp

import "testing"

// TestFileURIs converts paths to file: URIs and back with the rules of
// each system, on every system: Windows drive letters, UNC shares and
// long-path prefixes, the spellings servers send back (a lower-case
// drive, an escaped colon, localhost), and characters a URI escapes.
func TestFileURIs(t *testing.T) {
	windows, unix := pathRules{windows: true}, pathRules{}
	toURI := []struct {
		rules     pathRules
		path, uri string
	}{
		{unix, "/home/me/a.go", "file:///home/me/a.go"},
		{unix, "/home/me/a b#?%.go", "file:///home/me/a%20b%23%3F%25.go"},
		{unix, "/tmp/é/Dir/A.go", "file:///tmp/%C3%A9/Dir/A.go"},
		{windows, `C:\Users\me\a.go`, "file:///C:/Users/me/a.go"},
		{windows, `c:\Users\me\a b.go`, "file:///C:/Users/me/a%20b.go"},
		{windows, `D:\`, "file:///D:/"},
		{windows, `C:\é\Dir\A.go`, "file:///C:/%C3%A9/Dir/A.go"},
		{windows, `\\server\share\dir\a.go`, "file://server/share/dir/a.go"},
		{windows, `\\?\C:\long\a.go`, "file:///C:/long/a.go"},
		{windows, `\\?\UNC\server\share\a.go`, "file://server/share/a.go"},
	}
	for _, c := range toURI {
		if got := c.rules.fileURI(c.path); got != c.uri {
			t.Errorf("windows=%v fileURI(%q) = %q, want %q", c.rules.windows, c.path, got, c.uri)
		}
	}
	toPath := []struct {
		rules     pathRules
		uri, path string
	}{
		{unix, "file:///home/me/a.go", "/home/me/a.go"},
		{unix, "file:///home/me/a%20b%23%3F%25.go", "/home/me/a b#?%.go"},
		{unix, "file://localhost/home/me/a.go", "/home/me/a.go"},
		{unix, "file://elsewhere/home/me/a.go", ""},
		{unix, "untitled:Untitled-1", ""},
		{unix, "https://example.com/a.go", ""},
		{windows, "file:///C:/Users/me/a.go", `C:\Users\me\a.go`},
		{windows, "file:///c:/Users/me/a.go", `C:\Users\me\a.go`},
		{windows, "file:///c%3A/Users/me/a%20b.go", `C:\Users\me\a b.go`},
		{windows, "file://localhost/C:/x.go", `C:\x.go`},
		{windows, "FILE:///C:/x.go", `C:\x.go`},
		{windows, "file://server/share/dir/a.go", `\\server\share\dir\a.go`},
		{windows, "file:///C:/%C3%A9/Dir/A.go", `C:\é\Dir\A.go`},
		{windows, "jdt://contents/x", ""},
	}
	for _, c := range toPath {
		if got := c.rules.uriPath(c.uri); got != c.path {
			t.Errorf("windows=%v uriPath(%q) = %q, want %q", c.rules.windows, c.uri, got, c.path)
		}
	}
	// Both ways: a path comes back as itself.
	for _, c := range toURI {
		if c.rules.windows && (c.path[0] == 'c' || c.path[1] == '\\') {
			continue // normalised: the drive upper-cased, the prefix dropped
		}
		if got := c.rules.uriPath(c.rules.fileURI(c.path)); got != c.path {
			t.Errorf("windows=%v round trip of %q: %q", c.rules.windows, c.path, got)
		}
	}
}
