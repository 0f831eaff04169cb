package effects

import (
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// The table of functions outside the repository: what calling each one
// does, as far as its caller can tell. Each line is a name, spelled as
// call-edge callee names are ("os.ReadFile", "os.File.Write",
// "net/http.Client.Do", "io.Writer.Write"), then its effects:
//
//   - "fs" is a certain effect of every call; "fs?" a possible one (the
//     function does it on some inputs or configurations only, or a
//     wildcard line guesses it for a whole package);
//   - "open" makes the caller open: the callee runs code the caller
//     cannot see (reflect.Value.Call);
//   - "@arg" and "@recv" say that the effect depends on the dynamic type
//     of the io.Writer/io.Reader argument, or of the *os.File receiver,
//     which the Collector decides at the call site (see Collector); a
//     call through a candidate edge, where the Collector saw no static
//     call, takes the line's other effects, as possible;
//   - no effect at all says the function is pure, which overrides a
//     wildcard.
//
// A name is matched exactly first, then by "pkg.Type.*" (every method of
// the type), then by "pkg.*" (everything in the package). A name the
// table does not match has no effect, except an interface method (a call
// on an interface value whose implementations are outside the repository
// and too many to list, or unknown): that makes the caller open unless
// the table lists the method (error.Error, fmt.Stringer.String, ... are
// assumed pure).
//
// The table covers the standard library's effectful surface; code of
// other modules is analysed from its own calls only when it is indexed
// as a repository.
const tableText = `
# filesystem
os.ReadFile fs
os.WriteFile fs
os.Open fs
os.OpenFile fs
os.OpenInRoot fs
os.OpenRoot fs
os.Create fs
os.CreateTemp fs env
os.MkdirTemp fs env
os.Mkdir fs
os.MkdirAll fs
os.Remove fs
os.RemoveAll fs
os.Rename fs
os.Stat fs
os.Lstat fs
os.ReadDir fs
os.Readlink fs
os.Symlink fs
os.Link fs
os.Chmod fs
os.Chown fs
os.Lchown fs
os.Chtimes fs
os.Truncate fs
os.CopyFS fs
os.Root.* fs
os.File.* @recv fs? stdio?
os.File.Name
os.File.Fd
os.NewFile
os.DirFS
os.IsExist
os.IsNotExist
os.IsPermission
os.IsTimeout
os.SameFile
os.PathError.*
os.LinkError.*
os.SyscallError.*
io/ioutil.ReadFile fs
io/ioutil.WriteFile fs
io/ioutil.ReadDir fs
io/ioutil.TempFile fs env
io/ioutil.TempDir fs env
io/ioutil.ReadAll @arg
path/filepath.Walk fs
path/filepath.WalkDir fs
path/filepath.Glob fs
path/filepath.EvalSymlinks fs
path/filepath.Abs env
io/fs.ReadFile fs?
io/fs.ReadDir fs?
io/fs.Stat fs?
io/fs.Glob fs?
io/fs.WalkDir fs?
io/fs.FS.* fs?
io/fs.File.* fs?
io/fs.FileInfo.*
io/fs.DirEntry.*
io/fs.FileMode.*
io/fs.ValidPath
io/fs.Sub
embed.FS.*
# environment, working directory, arguments, identity
os.Getenv env
os.LookupEnv env
os.Setenv env
os.Unsetenv env
os.Clearenv env
os.Environ env
os.ExpandEnv env
os.Getwd env
os.Chdir env fs
os.Hostname env
os.Getpid env
os.Getppid env
os.Getuid env
os.Geteuid env
os.Getgid env
os.Getegid env
os.Getgroups env
os.Getpagesize env
os.Executable env fs
os.UserHomeDir env
os.UserCacheDir env
os.UserConfigDir env
os.TempDir env
os/user.* env fs
syscall.Getenv env
syscall.Setenv env
flag.Parse env stdio? exit?
flag.Parsed
flag.Args env
flag.Arg env
flag.NArg env
flag.NFlag env
flag.Bool global
flag.BoolVar global
flag.Int global
flag.IntVar global
flag.Int64 global
flag.Int64Var global
flag.Uint global
flag.UintVar global
flag.String global
flag.StringVar global
flag.Float64 global
flag.Float64Var global
flag.Duration global
flag.DurationVar global
flag.Var global
flag.Func global
flag.Set global
flag.Usage stdio
flag.PrintDefaults stdio
flag.FlagSet.Parse stdio? exit?
flag.FlagSet.PrintDefaults stdio?
# processes
os/exec.* exec
os/exec.Command fs env
os/exec.CommandContext fs env
os/exec.LookPath fs env
os/exec.Cmd.String
os/exec.Cmd.Environ env
os/exec.Cmd.Start exec spawn?
os/exec.Cmd.Run exec spawn? chan?
os/exec.Cmd.Output exec spawn? chan?
os/exec.Cmd.CombinedOutput exec spawn? chan?
os/exec.Cmd.Wait exec chan?
os/exec.ExitError.*
os/exec.Error.*
os.StartProcess exec
os.FindProcess exec
os.Process.* exec
os.ProcessState.*
syscall.Exec exec
syscall.ForkExec exec
syscall.Kill exec
syscall.* fs? net?
os/signal.Notify global
os/signal.Stop global
os/signal.Ignore global
os/signal.Reset global
os/signal.NotifyContext global spawn
# exit, panic. A function is listed as panicking when panicking is how it
# reports bad input data (regexp.MustCompile, template.Must); a panic on a
# misuse such as a negative count (strings.Repeat, Buffer.Grow) is left
# out, like an index out of range.
os.Exit exit
log.Fatal stdio exit
log.Fatalf stdio exit
log.Fatalln stdio exit
log.Panic stdio panic
log.Panicf stdio panic
log.Panicln stdio panic
log.Logger.Fatal stdio? exit
log.Logger.Fatalf stdio? exit
log.Logger.Fatalln stdio? exit
log.Logger.Panic stdio? panic
log.Logger.Panicf stdio? panic
log.Logger.Panicln stdio? panic
regexp.MustCompile panic
regexp.MustCompilePOSIX panic
text/template.Must panic
html/template.Must panic
# network
net.* net
net.ParseIP
net.ParseCIDR
net.ParseMAC
net.IPv4
net.IPv4Mask
net.CIDRMask
net.JoinHostPort
net.SplitHostPort
net.IP.*
net.IPNet.*
net.IPMask.*
net.HardwareAddr.*
net.Dialer.* net
net/http.* net?
net/http.Get net
net/http.Head net
net/http.Post net
net/http.PostForm net
net/http.ListenAndServe net spawn
net/http.ListenAndServeTLS net spawn fs
net/http.Serve net spawn
net/http.ServeTLS net spawn fs
net/http.Client.* net
net/http.Transport.* net
net/http.Server.* net spawn?
net/http.NewRequest
net/http.NewRequestWithContext
net/http.Header.*
net/http.Cookie.*
net/http.StatusText
net/http.NewServeMux
net/http.ServeMux.Handle
net/http.ServeMux.HandleFunc
net/http.ServeMux.ServeHTTP open
net/http.HandlerFunc.ServeHTTP open
net/http.Handle global
net/http.HandleFunc global
net/http.Request.* net?
net/http.ResponseWriter.* net?
net/http.Error net?
net/http/httptest.NewServer net spawn
net/http/httptest.NewTLSServer net spawn
net/http/httptest.Server.* net
net/smtp.* net
net/rpc.* net?
crypto/tls.Dial net
crypto/tls.DialWithDialer net
crypto/tls.Listen net
crypto/tls.Conn.* net
crypto/tls.LoadX509KeyPair fs
# time
time.Now time
time.Since time
time.Until time
time.Sleep time
time.After time
time.AfterFunc time spawn
time.Tick time
time.NewTimer time
time.NewTicker time
time.Timer.* time
time.Ticker.* time
time.LoadLocation fs env
context.WithTimeout time sync
context.WithTimeoutCause time sync
context.WithDeadline time sync
context.WithDeadlineCause time sync
context.WithCancel sync
context.WithCancelCause sync
context.AfterFunc sync spawn
context.Cause sync
context.Context.* sync?
# synchronisation
sync.* sync
sync.Map.* sync
sync/atomic.* sync
runtime.LockOSThread sync
runtime.UnlockOSThread sync
runtime.Gosched sync
# randomness
math/rand.* rand
math/rand/v2.* rand
crypto/rand.* rand
# standard streams and logging
fmt.Print stdio
fmt.Printf stdio
fmt.Println stdio
fmt.Scan stdio
fmt.Scanf stdio
fmt.Scanln stdio
fmt.Fprint @arg
fmt.Fprintf @arg
fmt.Fprintln @arg
fmt.Fscan @arg
fmt.Fscanf @arg
fmt.Fscanln @arg
io.Copy @arg
io.CopyN @arg
io.CopyBuffer @arg
io.WriteString @arg
io.ReadAll @arg
io.ReadFull @arg
io.ReadAtLeast @arg
io.MultiWriter @arg
io.MultiReader @arg
io.TeeReader @arg
bufio.NewReader @arg
bufio.NewReaderSize @arg
bufio.NewWriter @arg
bufio.NewWriterSize @arg
bufio.NewScanner @arg
bufio.NewReadWriter @arg
encoding/csv.NewReader @arg
encoding/csv.NewWriter @arg
compress/gzip.NewReader @arg
compress/gzip.NewWriter @arg
compress/gzip.NewWriterLevel @arg
text/tabwriter.NewWriter @arg
text/tabwriter.Writer.Init @arg
io.NewSectionReader @arg
io.LimitReader @arg
io.Pipe sync
io.PipeReader.* sync chan
io.PipeWriter.* sync chan
log.Print stdio
log.Printf stdio
log.Println stdio
log.Output stdio
log.Writer
log.New @arg
log.SetOutput global @arg
log.SetFlags global
log.SetPrefix global
log.Logger.Print stdio?
log.Logger.Printf stdio?
log.Logger.Println stdio?
log.Logger.Output stdio?
log/slog.Debug stdio?
log/slog.DebugContext stdio?
log/slog.Info stdio?
log/slog.InfoContext stdio?
log/slog.Warn stdio?
log/slog.WarnContext stdio?
log/slog.Error stdio?
log/slog.ErrorContext stdio?
log/slog.Log stdio?
log/slog.LogAttrs stdio?
log/slog.Logger.* stdio?
log/slog.SetDefault global
log/slog.NewTextHandler @arg
log/slog.NewJSONHandler @arg
# reflection
reflect.* reflect
reflect.Value.Call reflect open
reflect.Value.CallSlice reflect open
reflect.Value.Method reflect open
reflect.Value.MethodByName reflect open
reflect.Type.* reflect
encoding/json.Marshal reflect
encoding/json.MarshalIndent reflect
encoding/json.Unmarshal reflect
encoding/json.NewEncoder @arg
encoding/json.NewDecoder @arg
encoding/json.Encoder.* reflect
encoding/json.Decoder.* reflect
encoding/xml.Marshal reflect
encoding/xml.MarshalIndent reflect
encoding/xml.Unmarshal reflect
encoding/xml.NewEncoder @arg
encoding/xml.NewDecoder @arg
encoding/xml.Encoder.* reflect
encoding/xml.Decoder.* reflect
encoding/gob.* reflect
encoding/binary.Read @arg reflect
encoding/binary.Write @arg reflect
text/template.Template.Execute @arg reflect open
text/template.Template.ExecuteTemplate @arg reflect open
html/template.Template.Execute @arg reflect open
html/template.Template.ExecuteTemplate @arg reflect open
# databases
database/sql.* db?
database/sql.Open db
database/sql.OpenDB db
database/sql.Register global
database/sql.Drivers
database/sql.DB.* db
database/sql.Tx.* db
database/sql.Conn.* db
database/sql.Stmt.* db
database/sql.Rows.* db
database/sql.Row.* db
# cgo
runtime/cgo.* cgo
# interface methods assumed pure (see above)
error.Error
fmt.Stringer.String
fmt.GoStringer.GoString
sort.Interface.*
hash.Hash.*
hash.Hash32.*
hash.Hash64.*
go/ast.Node.*
go/ast.Expr.*
go/ast.Stmt.*
go/ast.Decl.*
go/ast.Spec.*
go/types.Type.*
go/types.Object.*
go/constant.Value.*
`

// entry is one line of the table.
type entry struct {
	name    string
	effects []tableEffect
	// arg and recv: decided at the call site (see Collector).
	arg, recv bool
}

type tableEffect struct {
	effect   graph.Effect
	possible bool
}

// Table is the parsed table, by name (wildcards keep their "*").
var Table = mustParseTable(tableText)

func mustParseTable(text string) map[string]*entry {
	t, err := parseTable(text)
	if err != nil {
		panic(err) // the table is a constant of this package; TestTable parses it
	}
	return t
}

func parseTable(text string) (map[string]*entry, error) {
	t := map[string]*entry{}
	for i, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		e := &entry{name: fields[0]}
		if _, dup := t[e.name]; dup {
			return nil, fmt.Errorf("effects table line %d: %s listed twice", i, e.name)
		}
		for _, f := range fields[1:] {
			switch f {
			case "@arg":
				e.arg = true
				continue
			case "@recv":
				e.recv = true
				continue
			}
			possible := strings.HasSuffix(f, "?")
			eff := graph.Effect(strings.TrimSuffix(f, "?"))
			if !Valid(eff) && eff != graph.EffectOpen {
				return nil, fmt.Errorf("effects table line %d: unknown effect %q", i, f)
			}
			e.effects = append(e.effects, tableEffect{effect: eff, possible: possible})
		}
		t[e.name] = e
	}
	return t, nil
}

// lookup returns the table line that matches name, or nil.
func lookup(name string) *entry {
	if e := Table[name]; e != nil {
		return e
	}
	slash := strings.LastIndexByte(name, '/')
	rest := name[slash+1:]
	dot := strings.IndexByte(rest, '.')
	if dot < 0 {
		return nil
	}
	pkg := name[:slash+1+dot]
	member := rest[dot+1:]
	if i := strings.IndexByte(member, '.'); i >= 0 {
		if e := Table[pkg+"."+member[:i]+".*"]; e != nil {
			return e
		}
	}
	return Table[pkg+".*"]
}

func (e *entry) has(eff graph.Effect) bool {
	for _, te := range e.effects {
		if te.effect == eff {
			return true
		}
	}
	return false
}
