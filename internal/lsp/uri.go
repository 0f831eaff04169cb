package lsp

import (
	"net/url"
	"runtime"
	"strings"
)

// pathRules is how one operating system spells file paths, for the
// conversion between paths and file: URIs. The conversion is pure, so the
// Windows rules are tested on every system.
type pathRules struct {
	windows bool // drive letters, UNC shares, backslashes
}

// hostRules are the rules of the system Sextant runs on.
var hostRules = pathRules{windows: runtime.GOOS == "windows"}

// FileURI is the file: URI of an absolute path: file:///home/me/a.go;
// on Windows file:///C:/Users/me/a.go, and file://server/share/a.go for
// the UNC path \\server\share\a.go.
func FileURI(abs string) string { return hostRules.fileURI(abs) }

// URIPath is the path of a file: URI, "" for another scheme or a host
// that is not this machine. It accepts what servers send: a drive letter
// in either case, its colon escaped or not (file:///c%3A/...), and
// file://localhost/.
func URIPath(uri string) string { return hostRules.uriPath(uri) }

func (r pathRules) fileURI(abs string) string {
	if !r.windows {
		return (&url.URL{Scheme: "file", Path: abs}).String()
	}
	p := strings.ReplaceAll(abs, `\`, "/")
	// The long-path prefixes name the same files: \\?\C:\x, \\?\UNC\host\share\x.
	if rest, ok := strings.CutPrefix(p, "//?/UNC/"); ok {
		p = "//" + rest
	} else if rest, ok := strings.CutPrefix(p, "//?/"); ok {
		p = rest
	}
	if rest, ok := strings.CutPrefix(p, "//"); ok {
		host, path, _ := strings.Cut(rest, "/")
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + path}).String()
	}
	if hasDrive(p) {
		p = "/" + strings.ToUpper(p[:1]) + p[1:]
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func (r pathRules) uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	host := u.Host
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	if !r.windows {
		if host != "" {
			return "" // another machine's file
		}
		return u.Path
	}
	p := u.Path
	if host != "" {
		return `\\` + host + strings.ReplaceAll(p, "/", `\`)
	}
	if len(p) > 1 && p[0] == '/' && hasDrive(p[1:]) {
		p = strings.ToUpper(p[1:2]) + p[2:]
	}
	return strings.ReplaceAll(p, "/", `\`)
}

// hasDrive reports whether p starts with a drive letter and its colon.
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}
