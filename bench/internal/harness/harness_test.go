package harness

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/sextant-dev/sextant/internal/graph"
)

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 1000; i >= 1; i-- { // reversed, to check Summarize sorts a copy
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := Summarize(ds)
	want := Latency{N: 1000, Min: time.Millisecond, P50: 500 * time.Millisecond, P90: 900 * time.Millisecond,
		P99: 990 * time.Millisecond, Max: 1000 * time.Millisecond, Mean: 500500 * time.Microsecond}
	if got != want {
		t.Errorf("Summarize = %+v, want %+v", got, want)
	}
	if ds[0] != 1000*time.Millisecond {
		t.Errorf("Summarize reordered its input")
	}
	if (Summarize(nil) != Latency{}) {
		t.Errorf("Summarize(nil) is not zero")
	}
}

func TestPercentileAndMedian(t *testing.T) {
	s := []int{10, 20, 30}
	for _, c := range []struct {
		p    float64
		want int
	}{{1, 10}, {33, 10}, {34, 20}, {50, 20}, {99, 30}, {100, 30}} {
		if got := Percentile(s, c.p); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", s, c.p, got, c.want)
		}
	}
	if got := Median([]int64{5, 1, 9, 3}); got != 3 {
		t.Errorf("Median of an even count = %d, want the lower middle 3", got)
	}
	if got := Median([]float64{2.5, 0.5, 1.5}); got != 1.5 {
		t.Errorf("Median = %v, want 1.5", got)
	}
}

// TestSummarizePairs holds the paired summary to its median difference
// and ratio and to an interval that holds them and narrows with n.
func TestSummarizePairs(t *testing.T) {
	var a, b []time.Duration
	for i := range 101 {
		base := time.Duration(1000+37*(i%13)*(i%7)) * time.Microsecond // spread between inputs
		a = append(a, base)
		b = append(b, base+time.Duration(100+i%5)*time.Microsecond) // a fixed cost, a little noise
	}
	p := SummarizePairs(a, b)
	if p.N != 101 || p.DiffMedian != 102*time.Microsecond {
		t.Errorf("SummarizePairs: n %d, median difference %v, want 101 and 102µs", p.N, p.DiffMedian)
	}
	if p.DiffLow < 100*time.Microsecond || p.DiffHigh > 104*time.Microsecond || p.DiffLow > p.DiffMedian || p.DiffHigh < p.DiffMedian {
		t.Errorf("SummarizePairs: interval %v–%v around %v, want within 100–104µs", p.DiffLow, p.DiffHigh, p.DiffMedian)
	}
	if p.RatioLow <= 1 || p.RatioMed < p.RatioLow || p.RatioHigh < p.RatioMed {
		t.Errorf("SummarizePairs: ratio %v (%v–%v), want above 1 and ordered", p.RatioMed, p.RatioLow, p.RatioHigh)
	}
	wide := SummarizePairs(a[:10], b[:10])
	if wide.DiffHigh-wide.DiffLow < p.DiffHigh-p.DiffLow {
		t.Errorf("the interval of 10 pairs (%v–%v) is narrower than of 101 (%v–%v)", wide.DiffLow, wide.DiffHigh, p.DiffLow, p.DiffHigh)
	}
	if (SummarizePairs(nil, nil) != Paired{}) {
		t.Errorf("SummarizePairs(nil, nil) is not zero")
	}
}

func TestParseStatus(t *testing.T) {
	st := parseStatus([]byte("Name:\tsextant\nVmPeak:\t  900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t   65432 kB\nThreads:\t7\n"))
	if st != (Status{RSSKiB: 65432, HWMKiB: 123456}) {
		t.Errorf("parseStatus = %+v", st)
	}
}

// matches is the hump-wise subsequence rule of find_symbol's fuzzy mode,
// restated: each query hump (split at every upper-case letter, digit run
// and underscore) is a subsequence of a later name hump starting with the
// same letter, case-insensitively, with the name split either way.
func matches(query, name string) bool {
	split := func(s string, acronyms bool) [][]rune {
		var out [][]rune
		for _, h := range humps(s) {
			r := []rune(strings.ToLower(string(h.runes)))
			if acronyms || len(h.runes) < 2 || !unicode.IsUpper(h.runes[1]) {
				out = append(out, r)
				continue
			}
			for _, c := range r { // an acronym, one hump per letter
				out = append(out, []rune{c})
			}
		}
		return out
	}
	q := split(query, false)
	for _, acr := range []bool{false, true} {
		n := split(name, acr)
		j, ok := 0, true
		for _, qh := range q {
			for j < len(n) && !(n[j][0] == qh[0] && isSubseq(qh[1:], n[j][1:])) {
				j++
			}
			if j == len(n) {
				ok = false
				break
			}
			j++
		}
		if ok {
			return true
		}
	}
	return false
}

func isSubseq(a, b []rune) bool {
	i := 0
	for _, r := range b {
		if i < len(a) && r == a[i] {
			i++
		}
	}
	return i == len(a)
}

func TestAbbreviate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"NewServeMux", "HTTPServer", "parseGo118File", "x86asm", "foo_bar", "ALL_CAPS", "_private", "A", "ID"}
	for _, name := range names {
		for range 50 {
			q := Abbreviate(name, rng)
			if q == "" || !matches(q, name) {
				t.Errorf("Abbreviate(%q) = %q, which does not match it", name, q)
			}
		}
	}
	got := humps("HTTPServer")
	if len(got) != 2 || string(got[0].runes) != "HTTP" || string(got[1].runes) != "Server" {
		t.Errorf("humps(HTTPServer) = %v", got)
	}
}

func TestQuerySets(t *testing.T) {
	syms := []graph.Symbol{
		{Key: "K1", Name: "Load", QualifiedName: "Load", Kind: graph.KindFunc, PackagePath: "example.com/m/load", Path: "load/load.go"},
		{Key: "K2", Name: "Start", QualifiedName: "Server.Start", Kind: graph.KindMethod, PackagePath: "example.com/m", Path: "server.go"},
		{Key: "K3", Name: "m", QualifiedName: "m", Kind: graph.KindPackage, PackagePath: "example.com/m", Path: "server.go"},
		{Key: "K4", Name: "_", QualifiedName: "_", Kind: graph.KindVar, PackagePath: "example.com/m", Path: "server.go"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	find := FindSymbolCalls(syms, 400, rng)
	if len(find) != 400 {
		t.Fatalf("FindSymbolCalls made %d calls, want 400", len(find))
	}
	perMode := map[string]int{}
	for _, c := range find {
		perMode[c.Mode]++
		name := c.Args["name"].(string)
		if c.Args["mode"] != c.Mode || name == "" || name == "_" || name == "m" {
			t.Errorf("bad find_symbol call %+v", c)
		}
		if c.Mode == "exact" && name != "Load" && name != "Start" {
			t.Errorf("exact query %q is not a symbol's name", name)
		}
	}
	for _, m := range FindSymbolModes {
		if perMode[m] != 100 {
			t.Errorf("mode %s has %d calls, want 100", m, perMode[m])
		}
	}
	get := GetSymbolCalls(syms, 400, rng)
	for _, c := range get {
		switch c.Mode {
		case "key":
			if k := c.Args["stable_key"]; k == "K4" {
				t.Errorf("blank identifier selected: %+v", c)
			}
		case "qualified":
			if q := c.Args["qualified_name"]; q != "Load" && q != "Server.Start" {
				t.Errorf("qualified call %+v", c)
			}
		case "import_path":
			if q := c.Args["qualified_name"]; q != "example.com/m/load.Load" && q != "example.com/m.Server.Start" {
				t.Errorf("import_path call %+v", c)
			}
		case "file":
			if !slices.Contains([]string{"load/load.go", "server.go"}, c.Args["file"].(string)) {
				t.Errorf("file call %+v", c)
			}
		default:
			t.Errorf("unknown mode %q", c.Mode)
		}
	}
}

func TestMeasure(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// A child that starts a grandchild, so the tree has a descendant.
	u, err := Measure(exec.Command(sh, "-c", "sleep 0.2 & wait"), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if u.Wall < 200*time.Millisecond || u.MaxRSSKiB <= 0 || u.Samples == 0 || u.SelfHWMKiB <= 0 || u.TreePeakKiB < u.SelfHWMKiB/2 {
		t.Errorf("implausible usage %+v", u)
	}
	if u.MaxDescendants < 1 {
		t.Errorf("the sleep grandchild was never seen: %+v", u)
	}
	if _, err := Measure(exec.Command(sh, "-c", "exit 3"), 10*time.Millisecond); err == nil {
		t.Errorf("a failing child reported no error")
	}
}

func TestCheck(t *testing.T) {
	c := AtMost("index wall", 1.8, 1.5, "x", "")
	if c.Pass || c.Verdict() != "MISS (+20%)" || c.Format(c.Value) != "1.80×" {
		t.Errorf("check %+v: %s %s", c, c.Verdict(), c.Format(c.Value))
	}
	if c := AtMost("p50", 0.4, 2, "ms", ""); !c.Pass || c.Verdict() != "PASS" || c.Format(c.Value) != "0.40 ms" {
		t.Errorf("check %+v", c)
	}
}

// TestResultPath: results are named by date and commit; outside a git
// checkout the name says there was none.
func TestResultPath(t *testing.T) {
	dir := t.TempDir()
	got := ResultPath(dir, "xref")
	want := filepath.Join(dir, "bench", "results", time.Now().UTC().Format("2006-01-02")+"-xref-nocommit.json")
	if got != want {
		t.Errorf("outside git: %s, want %s", got, want)
	}
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "f")
	run("commit", "-q", "-m", "f")
	head, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))
	if got, want := filepath.Base(ResultPath(dir, "xref")), time.Now().UTC().Format("2006-01-02")+"-xref-"+commit+".json"; got != want {
		t.Errorf("clean checkout: %s, want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ResultPath(dir, "xref"); !strings.HasSuffix(got, "-xref-"+commit+"-dirty.json") {
		t.Errorf("edited checkout: %s, want COMMIT-dirty", got)
	}
}
