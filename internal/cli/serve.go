package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/httpguard"
	"github.com/sextant-dev/sextant/internal/mcpserver"
	"github.com/sextant-dev/sextant/internal/query"
)

// runServe serves MCP over stdio, or over streamable HTTP at /mcp.
func runServe(ctx context.Context, e env, argv []string) error {
	fs := newFlagSet("serve", e)
	dbPath := dbFlag(fs)
	addr := fs.String("http", "", "serve streamable HTTP at ADDR/mcp instead of stdio; a bare :PORT listens on loopback only")
	toolSpec := fs.String("tools", os.Getenv("SEXTANT_TOOLS"), "tool profile: default, all, or a comma-separated list of profiles, groups and tool names (env SEXTANT_TOOLS)")
	refresh := fs.Bool("refresh", true, "re-index a root whose files changed before answering a call (false: answer from the snapshot, marked fresh: false)")
	watch := fs.Bool("watch", false, "also refresh in the background as files change, so calls rarely wait")
	logLevel := fs.String("log-level", "warn", "log level on stderr: debug, info, warn or error")
	wait := fs.Int("wait", envInt(e.getenv("SEXTANT_WAIT"), query.DefaultWait), "seconds a call that gives no wait of its own waits for a root being indexed before it answers INDEX_NOT_READY, 0 to 600 (env SEXTANT_WAIT)")
	token := fs.String("token", e.getenv("SEXTANT_TOKEN"), "with --http: the bearer token every request must carry (env SEXTANT_TOKEN); required to listen beyond loopback")
	limits, limitsErr := httpLimitFlags(fs, e)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: sextant serve [--http ADDR [--token TOKEN]] [--db PATH] [--tools PROFILE] [--watch] [DIR...]\n\nServe the tools over MCP. The DIRs (default: the working directory) are the roots: the files the tools may read, each indexed on first use.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return usageErr(err)
	}
	if err := limitsErr(); err != nil {
		return err
	}
	listenAddr := ""
	if *addr != "" {
		a, err := loopbackDefault(*addr)
		if err != nil {
			return usageError{err.Error()}
		}
		listenAddr = a
		if err := checkExposure(listenAddr, *token); err != nil {
			return usageError{err.Error()}
		}
	}
	if *wait < 0 || *wait > 600 {
		return usageError{fmt.Sprintf("--wait must be from 0 to 600 seconds (got %d)", *wait)}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	tools, err := query.SelectTools(*toolSpec)
	if err != nil {
		return usageError{err.Error()}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	// A CPU profile of the whole serving session, written when the
	// client disconnects or on SIGTERM.
	stop, err := startCPUProfile(e)
	if err != nil {
		return err
	}
	defer stop()
	svc, closeServing, err := openServing(ctx, e, *dbPath, fs)
	if err != nil {
		return err
	}
	defer closeServing()
	svc.SetRefresh(*refresh)
	svc.SetPatience(time.Duration(*wait) * time.Second)
	svc.SetLifetime(ctx) // shutting down cancels the indexing runs
	servingGC(e.getenv)
	if *watch {
		go svc.Watch(ctx, watchInterval, func(snaps map[string]int64) {
			for name, id := range snaps {
				logger.Info("refreshed", "repository", name, "snapshot", id)
			}
		})
	}
	mcpserver.Version, _, _ = buildVersion() // the initialize answer's server info
	server, err := mcpserver.New(svc, logger, tools)
	if err != nil {
		return err
	}
	if *addr == "" {
		err := mcpserver.ServeStdio(ctx, server)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	opts := *limits
	opts.Token = *token
	mux.Handle("/mcp", mcpserver.NewHTTPHandler(server, opts))
	srv := mcpserver.NewHTTPServer(mux, opts)
	fmt.Fprintf(e.stderr, "sextant: serving MCP at http://%s/mcp\n", ln.Addr())
	return serveHTTP(ctx, srv, ln)
}

// httpLimitFlags declares the HTTP limits of serve, each from a flag or
// else its environment variable, range-checked. check, called after
// parsing, reports a bad environment value or limits that contradict
// each other.
func httpLimitFlags(fs *flag.FlagSet, e env) (limits *mcpserver.HTTPOptions, check func() error) {
	limits = &mcpserver.HTTPOptions{
		MaxSessions:          mcpserver.DefaultMaxSessions,
		MaxSessionsPerClient: mcpserver.DefaultMaxSessionsPerClient,
		SessionTimeout:       mcpserver.DefaultSessionTimeout,
		BodyTimeout:          mcpserver.DefaultBodyTimeout,
	}
	var envErr error
	perClientSet := false
	ranged := func(name, envVar string, v flag.Value, usage string) {
		if s := e.getenv(envVar); s != "" {
			if err := v.Set(s); err != nil && envErr == nil {
				envErr = usageError{fmt.Sprintf("%s=%q: %v", envVar, s, err)}
			}
			perClientSet = perClientSet || name == "max-sessions-per-client"
		}
		fs.Var(v, name, fmt.Sprintf("with --http: %s (env %s)", usage, envVar))
	}
	ranged("max-sessions", "SEXTANT_MAX_SESSIONS", rangedInt{&limits.MaxSessions, 1, 100000},
		"at most `N` sessions open at once; an initialize past it closes the least recently used idle one (503 if every session has a call in flight)")
	ranged("max-sessions-per-client", "SEXTANT_MAX_SESSIONS_PER_CLIENT", rangedInt{&limits.MaxSessionsPerClient, 1, 100000},
		"at most `N` sessions held by one remote host (429 past it; local clients count only in all)")
	ranged("session-idle", "SEXTANT_SESSION_IDLE", rangedDuration{&limits.SessionTimeout, 10 * time.Second, 24 * time.Hour},
		"close a session after `DURATION` without a request")
	ranged("body-timeout", "SEXTANT_BODY_TIMEOUT", rangedDuration{&limits.BodyTimeout, time.Second, 10 * time.Minute},
		"refuse a request body not received within `DURATION` (408)")
	return limits, func() error {
		if envErr != nil {
			return envErr
		}
		fs.Visit(func(f *flag.Flag) { perClientSet = perClientSet || f.Name == "max-sessions-per-client" })
		if limits.MaxSessionsPerClient > limits.MaxSessions {
			if perClientSet {
				return usageError{fmt.Sprintf("--max-sessions-per-client %d: at most --max-sessions (%d)", limits.MaxSessionsPerClient, limits.MaxSessions)}
			}
			limits.MaxSessionsPerClient = limits.MaxSessions
		}
		return nil
	}
}

// rangedInt is an integer setting held to lo..hi.
type rangedInt struct {
	v      *int
	lo, hi int
}

func (r rangedInt) String() string {
	if r.v == nil {
		return ""
	}
	return strconv.Itoa(*r.v)
}

func (r rangedInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < r.lo || n > r.hi {
		return fmt.Errorf("want an integer from %d to %d", r.lo, r.hi)
	}
	*r.v = n
	return nil
}

// rangedDuration is a duration setting held to lo..hi.
type rangedDuration struct {
	v      *time.Duration
	lo, hi time.Duration
}

func (r rangedDuration) String() string {
	if r.v == nil {
		return ""
	}
	return shortDuration(*r.v)
}

func (r rangedDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < r.lo || d > r.hi {
		return fmt.Errorf("want a duration from %s to %s", shortDuration(r.lo), shortDuration(r.hi))
	}
	*r.v = d
	return nil
}

// shortDuration writes 24h for 24h0m0s and 10m for 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// loopbackDefault gives a host-less address (":8080") the loopback host,
// so the server is never reachable from the network unless asked to be.
func loopbackDefault(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: want HOST:PORT or :PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// checkExposure refuses to listen beyond loopback without a token: any
// host on the network could otherwise read the roots through the tools.
func checkExposure(addr, token string) error {
	host, _, _ := net.SplitHostPort(addr)
	if httpguard.IsLoopback(host) || token != "" {
		return nil
	}
	return fmt.Errorf("--http %s listens beyond loopback: set a bearer token with --token or SEXTANT_TOKEN (clients send Authorization: Bearer TOKEN)", addr)
}

// startCPUProfile writes a CPU profile to the file SEXTANT_CPUPROFILE
// names (hidden, for benchmarks; read by serve, index and tests record)
// until the returned stop runs; without it, stop does nothing.
func startCPUProfile(e env) (stop func(), err error) {
	path := e.getenv("SEXTANT_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("SEXTANT_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("SEXTANT_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// envInt is the integer an environment variable holds, or def when it is
// unset or not a number.
func envInt(v string, def int) int {
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return def
}
