package effects_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// stdCase is one standard-library function (or method) and its row,
// checked by hand against its source and documentation. The test calls
// it from a function of its own in a generated module, indexes the
// module, and compares that function's row with want: "fs" must be
// present and certain, "fs?" present (certain or possible), and nothing
// else may be certain. "open" is the open row; "" is pure.
type stdCase struct {
	name    string // the function, as call edges name it
	imports string // import paths the statement needs, space-separated
	stmt    string // a statement that calls it and does nothing else
	want    string
}

var stdCases = []stdCase{
	{"strings.ToUpper", "strings", `_ = strings.ToUpper("a")`, ""},
	{"strings.Split", "strings", `_ = strings.Split("a,b", ",")`, ""},
	{"strings.Contains", "strings", `_ = strings.Contains("ab", "b")`, ""},
	{"strings.Repeat", "strings", `_ = strings.Repeat("a", 2)`, ""},
	{"strings.Builder.WriteString", "strings", `var b strings.Builder; b.WriteString("a")`, ""},
	{"strconv.Itoa", "strconv", `_ = strconv.Itoa(1)`, ""},
	{"strconv.Atoi", "strconv", `_, _ = strconv.Atoi("1")`, ""},
	{"bytes.Equal", "bytes", `_ = bytes.Equal(nil, nil)`, ""},
	{"bytes.Buffer.WriteString", "bytes", `var b bytes.Buffer; b.WriteString("a")`, ""},
	{"sort.Ints", "sort", `sort.Ints(nil)`, ""},
	{"sort.Slice", "sort", `xs := []int{2, 1}; sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })`, ""},
	{"slices.Sort", "slices", `slices.Sort([]int{2, 1})`, ""},
	{"unicode.IsUpper", "unicode", `_ = unicode.IsUpper('a')`, ""},
	{"unicode/utf8.RuneCountInString", "unicode/utf8", `_ = utf8.RuneCountInString("é")`, ""},
	{"math.Sqrt", "math", `_ = math.Sqrt(2)`, ""},
	{"path.Join", "path", `_ = path.Join("a", "b")`, ""},
	{"path/filepath.Join", "path/filepath", `_ = filepath.Join("a", "b")`, ""},
	{"path/filepath.Abs", "path/filepath", `_, _ = filepath.Abs("a")`, "env"},
	{"path/filepath.WalkDir", "path/filepath", `_ = filepath.WalkDir(".", nil)`, "fs"},
	{"path/filepath.Glob", "path/filepath", `_, _ = filepath.Glob("*.go")`, "fs"},
	{"errors.New", "errors", `_ = errors.New("x")`, ""},
	{"errors.Is", "errors", `_ = errors.Is(nil, nil)`, ""},
	{"errors.Join", "errors", `_ = errors.Join(nil)`, ""},
	{"html.EscapeString", "html", `_ = html.EscapeString("<")`, ""},
	{"encoding/base64.Encoding.EncodeToString", "encoding/base64", `_ = base64.StdEncoding.EncodeToString(nil)`, ""},
	{"crypto/sha256.Sum256", "crypto/sha256", `_ = sha256.Sum256(nil)`, ""},
	{"hash/crc32.ChecksumIEEE", "hash/crc32", `_ = crc32.ChecksumIEEE(nil)`, ""},
	{"net/url.Parse", "net/url", `_, _ = url.Parse("http://x")`, ""},
	{"regexp.Compile", "regexp", `_, _ = regexp.Compile("a")`, ""},
	{"regexp.Regexp.MatchString", "regexp", `var re *regexp.Regexp; _ = re.MatchString("a")`, ""},
	{"regexp.MustCompile", "regexp", `_ = regexp.MustCompile("a")`, "panic"},
	{"text/template.Must", "text/template", `_ = template.Must(nil, nil)`, "panic"},

	{"os.ReadFile", "os", `_, _ = os.ReadFile("f")`, "fs"},
	{"os.WriteFile", "os", `_ = os.WriteFile("f", nil, 0o644)`, "fs"},
	{"os.Open", "os", `_, _ = os.Open("f")`, "fs"},
	{"os.Create", "os", `_, _ = os.Create("f")`, "fs"},
	{"os.MkdirAll", "os", `_ = os.MkdirAll("d", 0o755)`, "fs"},
	{"os.Remove", "os", `_ = os.Remove("f")`, "fs"},
	{"os.Stat", "os", `_, _ = os.Stat("f")`, "fs"},
	{"os.ReadDir", "os", `_, _ = os.ReadDir("d")`, "fs"},
	{"os.File.Write", "os", `f, _ := os.Create("f"); _, _ = f.Write(nil)`, "fs"},
	{"os.File.Write (stdout)", "os", `_, _ = os.Stdout.Write(nil)`, "stdio"},
	{"os.File.Read (stdin)", "os", `_, _ = os.Stdin.Read(nil)`, "stdio"},
	{"os.IsNotExist", "os", `_ = os.IsNotExist(nil)`, ""},
	{"os.CreateTemp", "os", `_, _ = os.CreateTemp("", "x")`, "fs env"},
	{"os.Getenv", "os", `_ = os.Getenv("HOME")`, "env"},
	{"os.Setenv", "os", `_ = os.Setenv("K", "v")`, "env"},
	{"os.Getwd", "os", `_, _ = os.Getwd()`, "env"},
	{"os.Hostname", "os", `_, _ = os.Hostname()`, "env"},
	{"os.Getpid", "os", `_ = os.Getpid()`, "env"},
	{"os.UserHomeDir", "os", `_, _ = os.UserHomeDir()`, "env"},
	{"os.TempDir", "os", `_ = os.TempDir()`, "env"},
	{"os.Exit", "os", `os.Exit(1)`, "exit"},
	{"os/user.Current", "os/user", `_, _ = user.Current()`, "env fs"},
	{"os/exec.LookPath", "os/exec", `_, _ = exec.LookPath("ls")`, "fs env"},
	{"os/exec.Cmd.Run", "os/exec", `_ = exec.Command("ls").Run()`, "exec fs env spawn? chan?"},
	{"os/signal.Notify", "os/signal", `signal.Notify(nil)`, "global"},
	{"flag.Parse", "flag", `flag.Parse()`, "env stdio? exit?"},

	{"net.Dial", "net", `_, _ = net.Dial("tcp", "x:1")`, "net"},
	{"net.Listen", "net", `_, _ = net.Listen("tcp", ":0")`, "net"},
	{"net.LookupHost", "net", `_, _ = net.LookupHost("x")`, "net"},
	{"net.ParseIP", "net", `_ = net.ParseIP("127.0.0.1")`, ""},
	{"net.JoinHostPort", "net", `_ = net.JoinHostPort("h", "1")`, ""},
	{"net/http.Get", "net/http", `_, _ = http.Get("http://x")`, "net"},
	{"net/http.Post", "net/http", `_, _ = http.Post("http://x", "", nil)`, "net"},
	{"net/http.NewRequest", "net/http", `_, _ = http.NewRequest("GET", "http://x", nil)`, ""},
	{"net/http.Client.Do", "net/http", `_, _ = new(http.Client).Do(nil)`, "net"},
	{"net/http.ListenAndServe", "net/http", `_ = http.ListenAndServe(":0", nil)`, "net spawn"},
	{"net/http.StatusText", "net/http", `_ = http.StatusText(200)`, ""},

	{"time.Now", "time", `_ = time.Now()`, "time"},
	{"time.Sleep", "time", `time.Sleep(1)`, "time"},
	{"time.Since", "time", `_ = time.Since(time.Time{})`, "time"},
	{"time.Duration.String", "time", `_ = time.Duration(5).String()`, ""},
	{"time.Unix", "time", `_ = time.Unix(0, 0)`, ""},
	{"time.NewTimer", "time", `_ = time.NewTimer(1)`, "time"},
	{"time.AfterFunc", "time", `_ = time.AfterFunc(1, nil)`, "time spawn"},
	{"time.LoadLocation", "time", `_, _ = time.LoadLocation("UTC")`, "fs env"},
	{"context.Background", "context", `_ = context.Background()`, ""},
	{"context.WithCancel", "context", `_, _ = context.WithCancel(context.Background())`, "sync"},
	{"context.WithTimeout", "context", `_, _ = context.WithTimeout(context.Background(), 1)`, "time sync"},
	{"sync.Mutex.Lock", "sync", `var mu sync.Mutex; mu.Lock()`, "sync"},
	{"sync.WaitGroup.Wait", "sync", `var wg sync.WaitGroup; wg.Wait()`, "sync"},
	{"sync.Once.Do", "sync", `var o sync.Once; o.Do(func() {})`, "sync"},
	{"sync/atomic.AddInt64", "sync/atomic", `var n int64; atomic.AddInt64(&n, 1)`, "sync"},
	{"runtime.NumGoroutine", "runtime", `_ = runtime.NumGoroutine()`, ""},

	{"math/rand.Intn", "math/rand", `_ = rand.Intn(6)`, "rand"},
	{"math/rand/v2.IntN", "math/rand/v2", `_ = rand.IntN(6)`, "rand"},
	{"crypto/rand.Read", "crypto/rand", `_, _ = rand.Read(nil)`, "rand"},

	{"fmt.Println", "fmt", `fmt.Println("x")`, "stdio"},
	{"fmt.Printf", "fmt", `fmt.Printf("x")`, "stdio"},
	{"fmt.Sprintf", "fmt", `_ = fmt.Sprintf("%d", 1)`, ""},
	{"fmt.Errorf", "fmt", `_ = fmt.Errorf("x")`, ""},
	{"fmt.Scanln", "fmt", `_, _ = fmt.Scanln()`, "stdio"},
	{"fmt.Fprintln (stderr)", "fmt os", `fmt.Fprintln(os.Stderr, "x")`, "stdio"},
	{"fmt.Fprintf (buffer)", "fmt bytes", `var b bytes.Buffer; fmt.Fprintf(&b, "x")`, ""},
	{"fmt.Fprintf (file)", "fmt os", `f, _ := os.Open("f"); fmt.Fprintf(f, "x")`, "fs"},
	{"fmt.Fprintf (unknown writer)", "fmt io", `var ws []io.Writer; fmt.Fprintf(ws[0], "x")`, "open"},
	{"fmt.Fprintf (bufio over stdout)", "bufio fmt os", `w := bufio.NewWriter(os.Stdout); fmt.Fprintf(w, "x"); w.Flush()`, "stdio"},
	{"text/tabwriter.NewWriter", "text/tabwriter os", `w := tabwriter.NewWriter(os.Stdout, 0, 8, 1, ' ', 0); w.Flush()`, "stdio"},
	{"io.Pipe", "io", `r, w := io.Pipe(); w.Close(); r.Close()`, "sync chan?"},
	{"io.Copy", "io os", `_, _ = io.Copy(os.Stdout, os.Stdin)`, "stdio"},
	{"io.ReadAll", "io strings", `_, _ = io.ReadAll(strings.NewReader("x"))`, ""},
	{"bufio.NewScanner", "bufio os", `_ = bufio.NewScanner(os.Stdin)`, "stdio"},
	{"log.Println", "log", `log.Println("x")`, "stdio"},
	{"log.Fatal", "log", `log.Fatal("x")`, "stdio exit"},
	{"log.Panicf", "log", `log.Panicf("x")`, "stdio panic"},
	{"log/slog.Info", "log/slog", `slog.Info("x")`, "stdio?"},

	{"encoding/json.Marshal", "encoding/json", `_, _ = json.Marshal(1)`, "reflect"},
	{"encoding/json.Encoder.Encode", "encoding/json os", `_ = json.NewEncoder(os.Stdout).Encode(1)`, "stdio reflect"},
	{"reflect.TypeOf", "reflect", `_ = reflect.TypeOf(1)`, "reflect"},
	{"reflect.Value.Call", "reflect", `_ = reflect.ValueOf(1).Call(nil)`, "reflect open"},
	{"database/sql.Open", "database/sql", `_, _ = sql.Open("d", "x")`, "db"},
	{"database/sql.DB.Query", "database/sql", `var db *sql.DB; _, _ = db.Query("x")`, "db"},
}

// TestStdlib checks the rows of the functions that call each stdCase.
func TestStdlib(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	// math/rand and math/rand/v2, text/template and html/template share
	// names: one file per case keeps imports apart.
	for i, c := range stdCases {
		src.Reset()
		src.WriteString("package std\n\nimport (\n")
		for _, imp := range strings.Fields(c.imports) {
			fmt.Fprintf(&src, "\t%q\n", imp)
		}
		fmt.Fprintf(&src, ")\n\n// F%03d calls %s.\nfunc F%03d() {\n\t%s\n}\n", i, c.name, i, c.stmt)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/std\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := indexDir(t, dir)
	rows := ix.rows(t)
	for i, c := range stdCases {
		fn := fmt.Sprintf("F%03d", i)
		recs, ok := rows[fn]
		if !ok {
			t.Errorf("%s: no row for %s (did it compile?)", c.name, fn)
			continue
		}
		checkRow(t, c.name, recs, c.want)
	}
	if len(stdCases)+len(xtoolsCases) < 80 {
		t.Errorf("%d cases; the acceptance asks for at least 80", len(stdCases)+len(xtoolsCases))
	}
}

// checkRow compares a function's records with a hand-checked want (see
// stdCase): no missed effect, no certain effect beyond want.
func checkRow(t *testing.T, name string, recs []graph.EffectRecord, wantRow string) {
	t.Helper()
	got := map[graph.Effect]bool{} // effect → certain
	for _, r := range recs {
		got[r.Effect] = r.Certain
	}
	want := map[graph.Effect]bool{}
	for _, w := range strings.Fields(wantRow) {
		want[graph.Effect(strings.TrimSuffix(w, "?"))] = !strings.HasSuffix(w, "?")
	}
	if len(want) == 0 {
		want[graph.EffectPure] = true
	}
	for e, certain := range want {
		gc, ok := got[e]
		switch {
		case !ok:
			t.Errorf("%s: missed %s (row %v)", name, e, describe(recs))
		case certain && !gc:
			t.Errorf("%s: %s is possible, want certain (row %v)", name, e, describe(recs))
		}
	}
	for e, certain := range got {
		if _, ok := want[e]; !ok && certain {
			t.Errorf("%s: false certain %s (row %v)", name, e, describe(recs))
		}
	}
}

func describe(recs []graph.EffectRecord) string {
	var s []string
	for _, r := range recs {
		e := string(r.Effect)
		if !r.Certain {
			e += "?"
		}
		s = append(s, e)
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}
