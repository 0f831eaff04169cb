package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"golang.org/x/tools/txtar"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// chromiumPath finds Debian's chromium (or another Chromium-based
// browser); without one the browser test is skipped loudly, and in CI
// (CI=true, where .ci/run installs it) it fails.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed (apt-get install chromium): the browser test of sextant ui cannot run"
	if inCI() {
		t.Fatal(msg)
	}
	t.Log("SKIPPED: " + msg)
	t.Skip(msg)
	return ""
}

// startUI runs `sextant ui` over dir with database db and returns the
// address it printed (with its token).
func startUI(t *testing.T, db, dir string) string {
	t.Helper()
	cmd := exec.Command(bin, "ui", "--db", db, dir)
	cmd.Env = append(os.Environ(), "SEXTANT_SCIP=off")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address sextant ui prints: %v", err)
	}
	go io.Copy(io.Discard, stdout)
	m := regexp.MustCompile(`http://\S+`).FindString(line)
	if m == "" {
		t.Fatalf("sextant ui printed %q, want an address", line)
	}
	return m
}

// browser is a headless Chromium tab that records the console's errors
// and warnings, uncaught exceptions and the browser's own error log (a
// CSP violation, a failed load), and writes screenshots under dir.
type browser struct {
	ctx  context.Context
	dir  string
	mu   sync.Mutex
	errs []string
}

func newBrowser(t *testing.T, path string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	dir := os.Getenv("SEXTANT_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &browser{dir: dir}
	ctx, cancel2 := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "warning" || e.Type == "assert" {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errs = append(b.errs, "console."+string(e.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.errs = append(b.errs, "exception: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				b.errs = append(b.errs, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}))
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil { // starts the browser, untimed
		t.Fatalf("starting chromium: %v", err)
	}
	b.ctx = ctx
	return b
}

// check fails the test on err or on anything the console reported.
func (b *browser) check(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	b.mu.Lock()
	errs := b.errs
	b.errs = nil
	b.mu.Unlock()
	for _, e := range errs {
		t.Errorf("%s: %s", what, e)
	}
}

// do runs steps in the tab.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	b.check(t, what, chromedp.Do(ctx, steps...))
}

// text is the text content of the first element matching the CSS
// selector sel ("" when none does), read in one evaluation: a node id
// taken while a page still loads can be gone by the time it is read.
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	q, _ := json.Marshal(sel)
	return b.eval(t, "(document.querySelector("+string(q)+") || {textContent: ''}).textContent")
}

// eval is the value of a JavaScript expression in the page.
func (b *browser) eval(t *testing.T, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	b.check(t, expr, err)
	return s
}

// shot writes a screenshot of the whole page as name.png.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	b.check(t, "screenshot "+name, err)
	if err := os.WriteFile(filepath.Join(b.dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUIBrowser drives sextant ui in headless Chromium over the UI's
// fixture (ordinary Go beside hostile names, comments, strings and file
// names), with calc/calc.go edited in the working tree: every page
// loads without a console error or a CSP violation, its main content is
// read from the DOM, an identifier leads to its definition, expanding a
// caller adds its callers, search answers as one types, and the impact
// page lists the tests of the edit. Screenshots of each page go to
// $SEXTANT_SCREENSHOTS, else the test's temporary directory (logged).
func TestUIBrowser(t *testing.T) {
	chrome := chromiumPath(t)
	ar, err := txtar.ParseFile(filepath.Join(moduleRoot, "internal", "webui", "testdata", "hostile.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	txtartest.WriteDir(t, dir, ar)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "-c", "user.email=e2e@example.com", "-c", "user.name=e2e", "commit", "-qm", "fixture")
	db := filepath.Join(t.TempDir(), "ui.db")
	if out, err := exec.Command(bin, "index", "--db", db, dir).CombinedOutput(); err != nil {
		t.Fatalf("sextant index: %v\n%s", err, out)
	}
	// The working tree's edit: helper's body, which Add calls.
	src := filepath.Join(dir, "calc", "calc.go")
	old, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(old), "func helper(x int) int { return x }", "func helper(x int) int { return x * 1 }", 1)
	if edited == string(old) {
		t.Fatal("the fixture no longer has helper's body to edit")
	}
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	addr := startUI(t, db, dir)
	base := addr[:strings.Index(addr, "/?")]
	b := newBrowser(t, chrome)
	t.Logf("screenshots in %s", b.dir)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }

	// The first page as --open opens it: a file that redirects to the
	// printed address, so the token's request comes from another origin.
	opener := filepath.Join(t.TempDir(), "open.html")
	if err := os.WriteFile(opener, []byte(`<!doctype html><meta http-equiv="refresh" content="0;url=`+html.EscapeString(addr)+`">`), 0o600); err != nil {
		t.Fatal(err)
	}
	b.do(t, "overview", chromedp.Navigate("file://"+opener), chromedp.WaitVisible(css("#layers")))
	title, layers := b.text(t, "#title"), b.text(t, "#layers")
	if title != "example.com/uifix" || !strings.Contains(layers, "calc") || !strings.Contains(layers, "weird") {
		t.Errorf("overview: title %q, layers %q; want the module and both packages", title, layers)
	}
	if loc := b.eval(t, "location.href"); strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address bar: %s", loc)
	}
	b.shot(t, "overview")

	b.do(t, "package", chromedp.Navigate(base+"/package?dir=weird"), chromedp.WaitVisible(css("#title")))
	if body := b.text(t, "#main"); !strings.Contains(body, "<img src=x onerror=alert(5)>") || !strings.Contains(body, `\u202e`) {
		t.Errorf("package weird: the hostile file name is not shown as text: %q", body)
	}
	b.shot(t, "package-hostile")

	// Search as you type: the results change without a navigation.
	b.do(t, "search", chromedp.Navigate(base+"/search"), chromedp.WaitVisible(css("#q")),
		chromedp.SendKeys(css("#q"), "Tota"), chromedp.WaitVisible(css(`#symbols a[href^="/symbol"]`)))
	if body := b.text(t, "#symbols"); !strings.Contains(body, "Total") {
		t.Errorf("search as you type Tota: %q, want Total", body)
	}
	b.shot(t, "search")

	// The symbol page of Total; its source's Add leads to Add's page.
	b.do(t, "symbol Total", chromedp.Click(css(`#symbols a[href^="/symbol"]`)), chromedp.WaitVisible(css("#source")))
	if title, src := b.text(t, "#title"), b.text(t, "#source"); title != "Total" || !strings.Contains(src, "t = Add(t, x)") || !strings.Contains(src, "verified") {
		t.Errorf("symbol page: title %q, source %q; want Total's verified source", title, src)
	}
	if n := b.eval(t, `String(document.querySelectorAll("#source a.id").length)`); n != "10" {
		t.Errorf("Total's source links %s identifiers, want 10: Total, xs, t, x, xs, t, Add, t, x, t (not int, not _)", n)
	}
	b.do(t, "click Add", chromedp.Click(chromedp.Search(`//pre[contains(@class,"source")]//a[@class="id" and text()="Add"]`)),
		chromedp.WaitVisible(css("#callers")))
	if title, loc := b.text(t, "#title"), b.eval(t, "location.href"); title != "Add" || !strings.Contains(loc, "#L") {
		t.Errorf("clicking Add in Total's source reached %q at %s, want Add's page at its line", title, loc)
	}
	b.shot(t, "symbol")

	// Add's callers: Total, Inc, TestAdd; expanding Total adds TestTotal.
	if body := b.text(t, "#callers svg"); !strings.Contains(body, "Total") || strings.Contains(body, "TestTotal") {
		t.Errorf("Add's callers before expanding: %q, want Total and not yet TestTotal", body)
	}
	b.do(t, "expand Total", chromedp.Click(css(`#callers a.expand[aria-label^="expand Total"]`)),
		chromedp.WaitVisible(css("#callers")))
	if body := b.text(t, "#callers svg"); !strings.Contains(body, "TestTotal") {
		t.Errorf("Add's callers after expanding Total: %q, want TestTotal added", body)
	}
	b.shot(t, "callers-expanded")

	// A type's protocol, reached from its package.
	b.do(t, "type", chromedp.Navigate(base+"/package?dir=calc"),
		chromedp.Click(chromedp.Search(`//a[@class="nav" and text()="Counter"]`)),
		chromedp.WaitVisible(css("#protocol")), chromedp.Click(css("#protocol")), chromedp.WaitVisible(css("#methods")))
	if body := b.text(t, "#methods"); !strings.Contains(body, "Inc") || !strings.Contains(body, "Value") {
		t.Errorf("Counter's protocol: %q, want Inc and Value", body)
	}
	b.shot(t, "type")

	// An effect's witness path, drawn: Report prints through fmt.Println.
	b.do(t, "effects", chromedp.Navigate(base+"/search?q=Report"),
		chromedp.Click(css(`#symbols a[href^="/symbol"]`)), chromedp.WaitVisible(css("#effects")))
	if body := b.text(t, "#effects svg"); !strings.Contains(body, "Report") || !strings.Contains(body, "stdio: fmt.Println") {
		t.Errorf("Report's witness paths: %q, want Report to stdio: fmt.Println", body)
	}
	b.shot(t, "effects")

	// The working tree's impact: helper's edit reaches Add and Total and
	// runs TestAdd and TestTotal.
	b.do(t, "impact", chromedp.Navigate(base+"/impact"), chromedp.WaitVisible(css("#tests")))
	if body := b.text(t, "#changed"); !strings.Contains(body, "helper") {
		t.Errorf("impact: changed %q, want helper", body)
	}
	tests, cmds := b.text(t, "#tests"), b.text(t, "#commands")
	if !strings.Contains(tests, "TestAdd") || !strings.Contains(tests, "TestTotal") || !strings.Contains(cmds, "go test") {
		t.Errorf("impact: tests %q, commands %q; want TestAdd, TestTotal and a go test line", tests, cmds)
	}
	// Its diff: helper's line removed and added, the added one styled.
	if d := b.text(t, "#diff"); !strings.Contains(d, "-func helper(x int) int { return x }") || !strings.Contains(d, "+func helper(x int) int { return x * 1 }") {
		t.Errorf("impact: diff %q, want helper's line removed and added", d)
	}
	if added := b.text(t, "#diff .add"); added != "+func helper(x int) int { return x * 1 }" {
		t.Errorf("impact: the diff's added line is %q, want helper's edit", added)
	}
	b.shot(t, "impact")

	// Keyboard: / focuses the search box; j moves to the page's first link.
	b.do(t, "keyboard /", chromedp.KeyEvent("/"))
	if id := b.eval(t, "document.activeElement.id"); id != "q" {
		t.Errorf("/ focused %q, want the search box", id)
	}
	b.do(t, "keyboard j", chromedp.Navigate(base+"/package?dir=calc"), chromedp.WaitVisible(css("#title")), chromedp.KeyEvent("j"))
	if href := b.eval(t, "document.activeElement.getAttribute('href') || ''"); !strings.HasPrefix(href, "/symbol?key=") {
		t.Errorf("j focused %q, want the first symbol link", href)
	}

	// Live: a file saved meanwhile shows on the next navigation, fresh.
	b.do(t, "helper", chromedp.Navigate(base+"/impact"), chromedp.WaitVisible(css("#changed")),
		chromedp.Click(chromedp.Search(`//section[@id="changed"]//a[text()="helper"]`)), chromedp.WaitVisible(css("#source")))
	if src := b.text(t, "#source"); !strings.Contains(src, "return x * 1") {
		t.Errorf("helper's source %q, want the working tree's edit", src)
	}
	edited = strings.Replace(edited, "return x * 1", "return x * 2", 1)
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	b.do(t, "helper after a save", chromedp.Reload(), chromedp.WaitVisible(css("#source")))
	if src, fresh := b.text(t, "#source"), b.text(t, "#freshness"); !strings.Contains(src, "return x * 2") || !strings.Contains(fresh, "fresh") {
		t.Errorf("helper after a save: source %q, banner %q; want the new body", src, fresh)
	}

	// Dark: the same pages in the dark scheme, for a person to look at.
	b.do(t, "dark", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}), chromedp.Reload(), chromedp.WaitVisible(css("#source")))
	if bg := b.eval(t, "getComputedStyle(document.body).backgroundColor"); bg != "rgb(23, 24, 26)" {
		t.Errorf("dark scheme: body background %s, want the dark one", bg)
	}
	b.shot(t, "symbol-dark")
}

// TestUIBrowserCobra loads the overview and a symbol page of cobra, the
// end-to-end corpus, without a console error.
func TestUIBrowserCobra(t *testing.T) {
	chrome := chromiumPath(t)
	sharedIndex(t) // the shared database holds cobra
	addr := startUI(t, sharedDB, cobraDir)
	b := newBrowser(t, chrome)
	b.do(t, "cobra overview", chromedp.Navigate(addr), chromedp.WaitVisible(chromedp.CSS("#packages")))
	if title := b.text(t, "#title"); title != cobraModule {
		t.Errorf("cobra overview: title %q, want %s", title, cobraModule)
	}
	b.shot(t, "cobra-overview")
	b.do(t, "cobra symbol", chromedp.Navigate(addr[:strings.Index(addr, "/?")]+"/search?q=ExecuteC"),
		chromedp.Click(chromedp.CSS(`#symbols a[href^="/symbol"]`)), chromedp.WaitVisible(chromedp.CSS("#callees")))
	if title, callees := b.text(t, "#title"), b.text(t, "#callees svg"); title != "Command.ExecuteC" || !strings.Contains(callees, "Find") {
		t.Errorf("cobra symbol: %q with callees %q, want Command.ExecuteC calling Find", title, callees)
	}
	b.shot(t, "cobra-symbol")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
