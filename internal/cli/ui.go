package cli

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/sextant-dev/sextant/internal/httpguard"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/webui"
)

// runUI serves the browser UI (internal/webui) over the roots, printing
// its address with the token in it, until interrupted.
func runUI(ctx context.Context, e env, argv []string) error {
	fs := newFlagSet("ui", e)
	dbPath := dbFlag(fs)
	addr := fs.String("addr", "127.0.0.1:0", "listen at ADDR (port 0: a free one); a bare :PORT listens on loopback only")
	token := fs.String("token", e.getenv("SEXTANT_UI_TOKEN"), "the secret in the address (env SEXTANT_UI_TOKEN; default: a new random one); required to listen beyond loopback")
	open := fs.Bool("open", false, "open the address in the default browser")
	wait := fs.Int("wait", query.DefaultWait, "seconds a page waits for a root being indexed before it says INDEX_NOT_READY, 0 to 600")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: sextant ui [--addr ADDR] [--token TOKEN] [--open] [--db PATH] [DIR...]\n\nServe a read-only web view of the graph of the DIRs (default: the working directory) to a browser on this machine: overview, packages, symbols with their source, references, callers and callees, a type's protocol, search, and the working tree's impact. Prints the address, which carries the token every request needs.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return usageErr(err)
	}
	listenAddr, err := loopbackDefault(*addr)
	if err != nil {
		return usageError{"--addr: " + err.Error()}
	}
	if host, _, _ := net.SplitHostPort(listenAddr); !httpguard.IsLoopback(host) && *token == "" {
		return usageError{fmt.Sprintf("--addr %s listens beyond loopback: choose the token with --token or SEXTANT_UI_TOKEN", listenAddr)}
	}
	if *wait < 0 || *wait > 600 {
		return usageError{fmt.Sprintf("--wait must be from 0 to 600 seconds (got %d)", *wait)}
	}
	secret := *token
	if secret == "" {
		secret = webui.NewToken()
	} else if len(secret) < webui.MinTokenLen {
		return usageError{fmt.Sprintf("--token: at least %d characters, not to be guessed", webui.MinTokenLen)}
	}
	svc, closeServing, err := openServing(ctx, e, *dbPath, fs)
	if err != nil {
		return err
	}
	defer closeServing()
	svc.SetPatience(time.Duration(*wait) * time.Second)
	svc.SetLifetime(ctx)
	// The pages show the DIRs' repositories, not every repository the
	// local database once held; a shared graph is shown whole, as the
	// tool subcommands do.
	svc.SetScope(!postgres.IsURL(dbName(e, *dbPath)))
	h, err := webui.New(svc, webui.Options{Token: secret, Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return usageError{err.Error()}
	}
	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	link := (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/", RawQuery: url.Values{"token": {secret}}.Encode()}).String()
	fmt.Fprintf(e.stdout, "sextant: UI at %s\n", link)
	if *open {
		page, err := openBrowser(link)
		if err != nil {
			fmt.Fprintf(e.stderr, "sextant: could not open a browser (%v); open the address above\n", err)
		}
		if page != "" {
			defer os.Remove(page)
		}
	}
	return serveHTTP(ctx, srv, ln)
}

// openBrowser asks the platform to open link in the default browser.
// The link carries the token, and a command line is visible to every
// user of the machine, so the browser is given a file only this user can
// read (CreateTemp makes it 0600) that redirects to the link; the caller
// removes it when the server stops, and it removes itself a minute after.
func openBrowser(link string) (page string, err error) {
	f, err := os.CreateTemp("", "sextant-ui-*.html")
	if err != nil {
		return "", err
	}
	page = f.Name()
	_, err = fmt.Fprintf(f, "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><meta http-equiv=\"refresh\" content=\"0;url=%s\"><title>sextant ui</title>\n", html.EscapeString(link))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(page)
		return "", err
	}
	time.AfterFunc(time.Minute, func() { os.Remove(page) })
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", page)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", page)
	default:
		cmd = exec.Command("xdg-open", page)
	}
	if err := cmd.Start(); err != nil {
		return page, err
	}
	go func() { _ = cmd.Wait() }()
	return page, nil
}
