package webui_test

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
	"github.com/sextant-dev/sextant/internal/webui"
	"golang.org/x/tools/txtar"
)

const testToken = "test-token-0123456789abcdef"

// ui is the UI over testdata/hostile.txtar, indexed once per test binary.
var ui struct {
	once sync.Once
	srv  *httptest.Server
	err  error
}

// scratch holds the fixture and its database for the whole test binary
// (a test's TempDir would go with the first test).
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "webui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch, _ = filepath.EvalSymlinks(dir)
	code := m.Run()
	if ui.srv != nil {
		ui.srv.Close()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// serve returns the address of a UI over the hostile fixture.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	ui.once.Do(func() {
		ar, err := txtar.ParseFile("testdata/hostile.txtar")
		if err != nil {
			ui.err = err
			return
		}
		// txtartest.WriteDir stops the test on failure: the tests after
		// it must fail too, not find a server that is not there.
		defer func() {
			if ui.srv == nil && ui.err == nil {
				ui.err = errors.New("the hostile fixture was not served")
			}
		}()
		for i := range ar.Files {
			ar.Files[i].Name = fixtureName(ar.Files[i].Name)
		}
		dir := filepath.Join(scratch, "repo")
		txtartest.WriteDir(t, dir, ar)
		if ui.err = commitAndEdit(dir); ui.err != nil {
			return
		}
		h, _, err := uiOver(context.Background(), filepath.Join(scratch, "db"), dir)
		if err != nil {
			ui.err = err
			return
		}
		ui.srv = httptest.NewServer(h) // on 127.0.0.1; open until the process ends
	})
	if ui.err != nil {
		t.Fatal(ui.err)
	}
	return ui.srv
}

// uiOver indexes dir into a new database under db and returns a UI
// handler over it, and a function closing what it opened.
func uiOver(ctx context.Context, db, dir string) (http.Handler, func(), error) {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
		st.Close()
		return nil, nil, err
	}
	svc, err := query.New(st, []string{dir}, nil)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	h, err := webui.New(svc, webui.Options{Token: testToken})
	if err != nil {
		svc.Close()
		st.Close()
		return nil, nil, err
	}
	return h, func() { svc.Close(); st.Close() }, nil
}

// serveDir serves a UI over dir for the test's length.
func serveDir(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	h, closeUI, err := uiOver(context.Background(), filepath.Join(t.TempDir(), "db"), dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); closeUI() })
	return srv
}

// hostileName is the fixture's file with markup in its name, as this
// platform can hold it.
var hostileName = fixtureName("weird/<img src=x onerror=alert(5)>\u202egol.go")

// fixtureName is name as a file of this platform may be called: on
// Windows, which refuses < > : " | ? * in a name, with each of them
// written as _ (the bidi override stays).
func fixtureName(name string) string {
	if runtime.GOOS != "windows" {
		return name
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`<>:"|?*`, r) {
			return '_'
		}
		return r
	}, name)
}

// hostileEdit is the working tree's change to the fixture's commit: a
// line of markup and a bidi override, which the impact page's diff shows
// as text.
const hostileEdit = "\n// Edited adds <script>alert(10)</script> and \u202eevil\u202c.\nconst Edited = \"</pre><script>alert(11)</script>\"\n"

// commitAndEdit makes the fixture a git work tree, commits it and
// edits a file of it after the commit. Without git the fixture stays a
// plain directory, and the impact page says it needs a work tree.
func commitAndEdit(dir string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	names, err := filepath.Glob(filepath.Join(dir, "weird", "*.go"))
	if err != nil || len(names) != 1 {
		return fmt.Errorf("the fixture's weird package has files %v (%v), want one", names, err)
	}
	f, err := os.OpenFile(names[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(hostileEdit)
	return errors.Join(err, f.Close())
}

// get sends a GET of path with the token's cookie unless bare, and the
// headers given, following no redirect.
func get(t *testing.T, srv *httptest.Server, path string, bare bool, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bare {
		u, _ := url.Parse(srv.URL)
		req.AddCookie(&http.Cookie{Name: webui.CookieName(u.Port()), Value: testToken})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestToken: nothing is served without the token; the printed address's
// token sets an HttpOnly, SameSite=Strict cookie and redirects to the
// address without it; the cookie then opens every page.
func TestToken(t *testing.T) {
	srv := serve(t)
	u, _ := url.Parse(srv.URL)
	for _, path := range []string{"/", "/search?q=Add", "/static/ui.js", "/nonesuch"} {
		if resp, body := get(t, srv, path, true); resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "calc") {
			t.Errorf("GET %s without the token: %d, want 401 and nothing of the repository", path, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: webui.CookieName(u.Port()), Value: testToken + "x"})
	if resp, _ := do(t, req); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / with a wrong cookie: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, srv, "/?token=wrong-token-0123456789", true); resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Errorf("GET /?token=WRONG: %d with cookies %v, want 401 and none", resp.StatusCode, resp.Cookies())
	}
	resp, _ := get(t, srv, "/search?q=Add&token="+testToken, true)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/search?q=Add" {
		t.Errorf("GET with the token: %d to %q, want 303 to /search?q=Add", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"//evil.example/", "/\\evil.example/"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/?token="+testToken, nil)
		req.URL.Path = path
		if resp, _ := do(t, req); strings.HasPrefix(resp.Header.Get("Location"), "//") || strings.HasPrefix(resp.Header.Get("Location"), "/\\") {
			t.Errorf("GET %s with the token redirects to %q, another host", path, resp.Header.Get("Location"))
		}
	}
	// From another site (a page --open wrote, a link elsewhere) the
	// token's request sets the cookie and moves on from a page of this
	// origin, so that the next request is same-origin; it shows nothing.
	xresp, xbody := get(t, srv, "/search?q=Add&token="+testToken, true, "Sec-Fetch-Site", "cross-site")
	if xresp.StatusCode != http.StatusOK || len(xresp.Cookies()) != 1 || !strings.Contains(xbody, `url=/search?q=Add"`) || strings.Contains(xbody, "calc") {
		t.Errorf("cross-site GET with the token: %d, cookies %v, body %q; want 200, the cookie and a refresh to /search?q=Add", xresp.StatusCode, xresp.Cookies(), xbody)
	}
	var c *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == webui.CookieName(u.Port()) {
			c = k
		}
	}
	if c == nil || c.Value != testToken || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie set by the token: %+v, want the token, HttpOnly, SameSite=Strict", c)
	}
	if resp, body := get(t, srv, "/", false); resp.StatusCode != http.StatusOK || !strings.Contains(body, "example.com/uifix") {
		t.Errorf("GET / with the cookie: %d, want 200 and the overview", resp.StatusCode)
	}
}

// TestHost: a page whose name was rebound to 127.0.0.1 (DNS rebinding)
// sends its own name as Host, even with the cookie (it is its origin's
// page now): refused.
func TestHost(t *testing.T) {
	srv := serve(t)
	u, _ := url.Parse(srv.URL)
	for _, host := range []string{"evil.example:" + u.Port(), "evil.example", "127.0.0.1.evil.example:" + u.Port()} {
		if resp, body := get(t, srv, "/", false, "Host", host); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "calc") {
			t.Errorf("GET / with Host %s: %d, want 403", host, resp.StatusCode)
		}
	}
	for _, host := range []string{"localhost:" + u.Port(), "127.0.0.1:" + u.Port(), "[::1]:" + u.Port()} {
		resp, _ := get(t, srv, "/", true, "Host", host)
		if resp.StatusCode != http.StatusUnauthorized { // past the Host check, stopped by the token
			t.Errorf("GET / with Host %s and no token: %d, want 401", host, resp.StatusCode)
		}
	}
}

// TestCrossOrigin: a page of another origin in the same browser (another
// site, or another port of localhost, which browsers call the same site
// and send SameSite=Strict cookies to) reads nothing and changes nothing.
func TestCrossOrigin(t *testing.T) {
	srv := serve(t)
	cases := [][]string{
		{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"},
		{"Origin", "http://127.0.0.1:1", "Sec-Fetch-Site", "same-site"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Origin", "http://evil.example"}, // an older browser, without Sec-Fetch-Site
	}
	for _, h := range cases {
		if resp, body := get(t, srv, "/search/results?q=Add", false, h...); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "calc") {
			t.Errorf("GET with %v: %d, want 403", h, resp.StatusCode)
		}
	}
	u, _ := url.Parse(srv.URL)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/search", strings.NewReader("q=Add"))
	req.AddCookie(&http.Cookie{Name: webui.CookieName(u.Port()), Value: testToken})
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, _ := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin POST: %d, want 403", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/search", nil)
	req.AddCookie(&http.Cookie{Name: webui.CookieName(u.Port()), Value: testToken})
	if resp, _ := do(t, req); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("same-origin POST: %d, want 405 (read-only)", resp.StatusCode)
	}
	if resp, _ := get(t, srv, "/search/results?q=Add", false, "Origin", srv.URL, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != http.StatusOK {
		t.Errorf("same-origin GET: %d, want 200", resp.StatusCode)
	}
}

// pagesOf are the fixture's pages, found from the overview and search.
func pagesOf(t *testing.T, srv *httptest.Server) []string {
	t.Helper()
	pages := []string{"/", "/?layers=all", "/package?dir=calc", "/package?dir=weird", "/search?q=Evil", "/search/results?q=Link", "/search?q=javascript", "/impact", "/nonesuch"}
	_, body := get(t, srv, "/search?q=Evil", false)
	_, body2 := get(t, srv, "/package?dir=calc", false)
	_, body3 := get(t, srv, "/package?dir=weird", false)
	keys := regexp.MustCompile(`/symbol\?key=[A-Z0-9]+`).FindAllString(body+body2+body3, -1)
	if len(keys) < 5 {
		t.Fatalf("found %d symbol pages in the fixture's package and search pages, want 5 or more", len(keys))
	}
	for _, k := range keys {
		pages = append(pages, k, strings.Replace(k, "/symbol", "/type", 1))
	}
	return pages
}

// TestCSP: every answer carries the strict policy and the headers beside
// it, and no page holds an inline script, an inline style or an event
// handler attribute, which the policy would block anyway.
func TestCSP(t *testing.T) {
	srv := serve(t)
	// Within a tag (repository text is escaped, so every tag is the
	// templates'): a script without src, a style attribute or element, an
	// event handler.
	tag := regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	inline := regexp.MustCompile(`(?i)^<script>|^<script\s(?:[^s]|s[^r])*>$|^<style|\sstyle=|\son[a-z]+=`)
	for _, p := range append(pagesOf(t, srv), "/static/ui.css", "/static/ui.js") {
		resp, body := get(t, srv, p, false)
		if got := resp.Header.Get("Content-Security-Policy"); got != webui.CSP {
			t.Errorf("%s: Content-Security-Policy %q, want %q", p, got, webui.CSP)
		}
		for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("%s: %s %q, want %q", p, h, got, want)
			}
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			for _, tg := range tag.FindAllString(body, -1) {
				if inline.MatchString(tg) {
					t.Errorf("%s: inline script, style or handler in %q", p, tg)
				}
			}
		}
	}
	for _, p := range []string{"/", "/?token=nope-nope-nope-nope"} {
		if resp, _ := get(t, srv, p, true); resp.Header.Get("Content-Security-Policy") != webui.CSP {
			t.Errorf("%s refused without the policy", p)
		}
	}
}

// TestHostileContent: markup, javascript: URLs, bidi overrides and
// invisible characters from the repository's file names, comments,
// strings and names reach every page as text: escaped, with the
// invisible ones written visibly.
func TestHostileContent(t *testing.T) {
	srv := serve(t)
	// What every page together must show as text; on Windows the markup
	// in the file's name is not there to show.
	hostileShown := []string{`&lt;script&gt;alert`, `\u202e`}
	if runtime.GOOS != "windows" {
		hostileShown = append(hostileShown, `&lt;img src=x onerror=alert(5)&gt;`)
	}
	// What must never appear in a page: markup of the fixture as markup,
	// a javascript: link, an invisible or bidi character.
	bad := regexp.MustCompile(`<script>alert|<img src=x|<a href="javascript:|href="javascript:|(?i)href=["']?javascript:|[\x{202a}-\x{202e}\x{2066}-\x{2069}\x{200b}-\x{200f}]`)
	seen := map[string]bool{}
	for _, p := range pagesOf(t, srv) {
		resp, body := get(t, srv, p, false)
		if resp.StatusCode >= 500 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
		if m := bad.FindString(body); m != "" {
			i := strings.Index(body, m)
			t.Errorf("%s: repository content unescaped: %q in …%s…", p, m, body[max(0, i-80):min(len(body), i+80)])
		}
		for _, want := range hostileShown {
			if strings.Contains(body, want) {
				seen[want] = true
			}
		}
	}
	for _, want := range hostileShown {
		if !seen[want] {
			t.Errorf("no page shows %s: the hostile content was not rendered at all", want)
		}
	}
	// The impact page's diff: the edit's lines as added lines of text,
	// the hostile file name in the header quoted.
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git is not installed: the impact page's diff is not checked")
		return
	}
	_, page := get(t, srv, "/impact", false)
	for _, want := range []string{
		`<span class="add">&#43;// Edited adds &lt;script&gt;alert(10)&lt;/script&gt; and \u202eevil\u202c.</span>`,
		`<span class="add">&#43;const Edited = &#34;&lt;/pre&gt;&lt;script&gt;alert(11)&lt;/script&gt;&#34;</span>`,
		`<span class="file">&#43;&#43;&#43; &#34;b/` + template.HTMLEscapeString(strings.ReplaceAll(hostileName, "\u202e", `\u202e`)) + `&#34;</span>`,
	} {
		if !strings.Contains(page, want) {
			i := strings.Index(page, `<section id="diff">`)
			t.Errorf("the impact page's diff does not hold %s:\n%s", want, page[max(i, 0):min(len(page), max(i, 0)+3000)])
		}
	}
}
