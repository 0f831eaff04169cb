package sextant_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// refreshPkgs is the size of the module TestKillServerDuringRefresh
// refreshes, in packages of 240 types: small, so that one refresh takes
// well under a second and hundreds of kills fit in CI, yet large enough
// that loading, extracting and publishing each take a measurable slice.
const refreshPkgs = 2

// TestKillServerDuringRefresh kills `sextant serve` at random instants
// while it refreshes a stale root, hundreds of times against one database
// (SEXTANT_CRASH_REFRESH_RUNS, else SEXTANT_CRASH_RUNS, which .ci/run sets
// to 200). Each run edits the root, starts serve on the existing database
// and calls a tool with a progress token: the call finds the root stale
// and refreshes it before answering. Runs alternate two edits, one per
// write path: a new function (a new declaration: the root is indexed
// whole into a new snapshot) and a changed function body (the current
// snapshot is amended in place). The kill comes at a random instant after
// the first progress notification (the refresh has started), between 40%
// and 140% of the time an unkilled refresh of that kind takes to answer.
// After each kill, a fresh reader must find the database intact (PRAGMA
// integrity_check), every snapshot whole, the other root's snapshot
// unchanged, and the refreshed root exactly at its old state or its new
// one: symbol count and the edited file's recorded hash agree.
func TestKillServerDuringRefresh(t *testing.T) {
	runs := 40
	if testing.Short() {
		runs = 10
	}
	for _, env := range []string{"SEXTANT_CRASH_RUNS", "SEXTANT_CRASH_REFRESH_RUNS"} {
		if s := os.Getenv(env); s != "" {
			runs, _ = strconv.Atoi(s)
		}
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "crash.db")
	other, root := canonicalTempDir(t), canonicalTempDir(t)
	writeModule(t, other, 1, 0)
	writeModule(t, root, refreshPkgs, 0)
	old := refreshState{hash: writeRefreshEdit(t, root, 0, 0)}
	for _, r := range []string{other, root} {
		if out, err := crashChild(db, r).CombinedOutput(); err != nil {
			t.Fatalf("first index of %s: %v\n%s", r, err, out)
		}
	}
	want := crashRepos(t, ctx, db)
	base := want[root]
	old.symbols = base

	// Unkilled runs first (two of each kind) measure how long a refresh
	// takes from its first progress notification to the answer; the
	// shortest of a kind scales its kill instants, so that few land after
	// the answer on a loaded machine.
	const warm = 4
	kinds := [2]string{"amend", "whole"} // by the parity of the run
	window := [2]time.Duration{1<<63 - 1, 1<<63 - 1}
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	var answered, published, kept, amended [2]int
	amends := 0                // snapshots published as amends, unkilled runs too
	phases := map[string]int{} // the phase each kill cut
	var startup, checking time.Duration
	fnsPublished := 0 // the Extra functions of the current snapshot
	start := time.Now()
	for i := 1; i <= warm+runs; i++ {
		// A body edit is made against the current snapshot, so that it is
		// amended even after a whole refresh was cut short.
		kind := i % 2
		fns := fnsPublished + kind
		next := refreshState{symbols: base + fns, hash: writeRefreshEdit(t, root, fns, i)}
		began := time.Now()
		s := startRefreshServe(t, db, other, root)
		killed := i > warm
		var delay time.Duration
		select {
		case <-s.progressed:
		case <-s.exited:
			s.cmd.Wait()
			t.Fatalf("run %d: serve ended before refreshing:\n%s", i, s.stderr.String())
		}
		if killed {
			startup += s.progressAt.Sub(began)
			// Kills are drawn over the later part of the refresh, from 40%
			// of its time on, where it writes (an amend reports no phases
			// to aim at: its write comes last), to a little past its end
			// (the shortest refresh measured; most take longer).
			delay = window[kind]*4/10 + time.Duration(rng.Int64N(int64(window[kind])+1))
			select {
			case <-time.After(delay):
			case <-s.answered:
			}
			_ = s.cmd.Process.Signal(syscall.SIGKILL)
			s.cmd.Wait()
		} else {
			select {
			case <-s.answered:
			case <-s.exited:
				s.cmd.Wait()
				t.Fatalf("run %d: serve ended without answering:\n%s", i, s.stderr.String())
			}
			window[kind] = min(window[kind], time.Since(s.progressAt))
			s.stdin.Close()
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("run %d: serve: %v\n%s", i, err, s.stderr.String())
			}
		}
		done := s.done()
		checked := time.Now()
		if done && s.answer.IsError {
			t.Fatalf("run %d: the call failed: %s", i, s.answer.raw)
		}
		got := crashRepos(t, ctx, db)
		if got[other] != want[other] {
			t.Fatalf("run %d: the other root changed from %d to %d symbols", i, want[other], got[other])
		}
		now := refreshStateOf(t, ctx, db, root)
		if now.symbols != got[root] {
			t.Fatalf("run %d: two readers disagree: %d and %d symbols", i, now.symbols, got[root])
		}
		switch {
		case now.same(next):
			fnsPublished = fns
			if killed {
				published[kind]++
			}
			if now.amended {
				amends++
				if killed {
					amended[kind]++
				}
			}
		case now.same(old):
			if done {
				t.Fatalf("run %d (%s): serve answered after refreshing, yet the snapshot is the old one (%+v, want %+v)", i, kinds[kind], now, next)
			}
			if !killed {
				t.Fatalf("run %d (%s): an unkilled refresh left %+v, want %+v", i, kinds[kind], now, next)
			}
			kept[kind]++
		default:
			t.Fatalf("run %d (%s, killed %v into the refresh): the snapshot is %+v, neither the old %+v nor the new %+v",
				i, kinds[kind], delay, now, old, next)
		}
		if killed && done {
			answered[kind]++
			// A refresh that answered before its kill measured one more
			// duration: a first measurement slowed by a busy machine
			// does not stretch the kills of the whole test.
			window[kind] = min(window[kind], s.answeredAt.Sub(s.progressAt))
		} else if killed {
			phases[kinds[kind]+" "+s.phase()]++
		}
		old = now
		if killed {
			checking += time.Since(checked)
		}
		if i == warm {
			t.Logf("a refresh takes %v (whole) and %v (amend) from its first progress notification to the answer; %d kills", window[1].Round(time.Millisecond), window[0].Round(time.Millisecond), runs)
			start = time.Now()
		}
	}
	t.Logf("%d kills in %v; none mixed (the shortest refreshes seen: %v whole, %v amend)", runs, time.Since(start).Round(time.Millisecond),
		window[1].Round(time.Millisecond), window[0].Round(time.Millisecond))
	for k, name := range kinds {
		t.Logf("%s: %d published the new state before the kill (%d answered too; %d were amends), %d left the old one",
			name, published[k], answered[k], amended[k], kept[k])
	}
	if amends == 0 {
		t.Errorf("no body edit was published as an amend: the amend path was not exercised")
	}
	t.Logf("the last progress before the kills that cut a refresh short: %v", phases)
	t.Logf("per run: %v from start to the first progress, %v checking the database after the kill",
		(startup / time.Duration(max(runs, 1))).Round(time.Millisecond), (checking / time.Duration(max(runs, 1))).Round(time.Millisecond))
	// Refreshes cut short leave garbage behind; the next one collects it.
	if n := snapshotsLeft(t, ctx, db); n > 6 {
		t.Errorf("%d snapshots left after %d runs: old snapshots are not being collected", n, runs)
	} else {
		t.Logf("%d snapshots left in the database (2 current)", n)
	}
}

// refreshState is what distinguishes the refreshed root's snapshots: its
// symbol count and the hash recorded for the edited file; and whether the
// snapshot was amended.
type refreshState struct {
	symbols int
	hash    string
	amended bool
}

func (s refreshState) same(o refreshState) bool { return s.symbols == o.symbols && s.hash == o.hash }

// refreshStateOf reads root's current state in db with a fresh reader.
func refreshStateOf(t *testing.T, ctx context.Context, db, root string) refreshState {
	t.Helper()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, repo := range repos {
		if repo.Root != root {
			continue
		}
		files, err := r.Files(ctx, repo.Name)
		if err != nil {
			t.Fatal(err)
		}
		out := refreshState{symbols: repo.Symbols, amended: len(repo.Snapshot.Amended) > 0}
		for _, f := range files {
			if f.Path == "p0/extra.go" {
				out.hash = f.Hash
			}
		}
		return out
	}
	t.Fatalf("%s is not in the database", root)
	return refreshState{}
}

// writeRefreshEdit writes p0/extra.go of the refreshed root: fns functions
// Extra1..Extrafns and Body, whose body returns body. It returns the
// file's hash, as a snapshot of it records it.
func writeRefreshEdit(t *testing.T, root string, fns, body int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("package p0\n\n")
	for k := 1; k <= fns; k++ {
		fmt.Fprintf(&b, "func Extra%d() {}\n", k)
	}
	fmt.Fprintf(&b, "\n// Body changes with every run; what it declares does not.\nfunc Body() int { return %d }\n", body)
	if err := os.WriteFile(filepath.Join(root, "p0", "extra.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256([]byte(b.String())))
}

// refreshServe is one `sextant serve` asked, over stdio, for a tool call
// that refreshes a stale root first.
type refreshServe struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	stderr     *bytes.Buffer
	progressed chan struct{} // closed at the first progress notification
	progressAt time.Time
	mu         sync.Mutex
	last       float64       // the last progress value heard
	answered   chan struct{} // closed when the call's answer came
	answeredAt time.Time
	answer     struct {
		IsError bool `json:"isError"`
		raw     string
	}
	exited chan struct{} // closed when stdout ends
}

// startRefreshServe starts serve on db with roots and sends
// find_symbol (a default tool) with a progress token.
func startRefreshServe(t *testing.T, db string, roots ...string) *refreshServe {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashServeEnv+"="+strings.Join(append([]string{db}, roots...), string(os.PathListSeparator)))
	s := &refreshServe{cmd: cmd, stderr: &bytes.Buffer{}, progressed: make(chan struct{}), answered: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash","version":"0"}}}`)
	fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"Extra1","mode":"exact"},"_meta":{"progressToken":"refresh"}}}`)
	go func() {
		defer close(s.exited)
		var once sync.Once
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var msg struct {
				ID     int             `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Params struct {
					Progress float64 `json:"progress"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) != nil {
				continue
			}
			switch {
			case msg.Method == "notifications/progress":
				s.mu.Lock()
				s.last = msg.Params.Progress
				s.mu.Unlock()
				once.Do(func() {
					s.progressAt = time.Now()
					close(s.progressed)
				})
			case msg.ID == 2:
				json.Unmarshal(msg.Result, &s.answer)
				s.answer.raw = sc.Text()
				select {
				case <-s.progressed:
				default:
					// No progress before the answer: nothing was refreshed.
					// The test waits on progressed, so say so there.
					s.answer.IsError = true
					s.answer.raw = "answered without refreshing: " + s.answer.raw
					once.Do(func() { close(s.progressed) })
				}
				s.answeredAt = time.Now()
				close(s.answered)
				io.Copy(io.Discard, stdout)
				return
			}
		}
	}()
	return s
}

// done reports whether the call was answered; call it after Wait.
func (s *refreshServe) done() bool {
	<-s.exited
	select {
	case <-s.answered:
		return true
	default:
		return false
	}
}

// phase names the indexing phase of the last progress value heard, on the
// scale of mcpserver's progressFunc.
func (s *refreshServe) phase() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.last < 10:
		return "discover"
	case s.last < 50:
		return "load"
	case s.last < 95:
		return "extract"
	case s.last < 100:
		return "publish"
	}
	return "done"
}

// canonicalTempDir is a temporary directory as serve names its root.
func canonicalTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshotsLeft counts the snapshots in db, current or not.
func snapshotsLeft(t *testing.T, ctx context.Context, db string) int {
	t.Helper()
	sdb, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var n int
	if err := sdb.QueryRowContext(ctx, `SELECT count(*) FROM snapshots`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
