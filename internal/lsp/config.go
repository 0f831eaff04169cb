package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/sextant-dev/sextant/internal/proctree"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// ServerSpec says how to run one language server and which files it serves.
type ServerSpec struct {
	Name    string   `toml:"name"`
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
	// Globs match a file's base name ("*.py") or, when they hold a slash,
	// its root-relative path ("src/**/*.lean" matches any depth).
	Globs []string `toml:"globs"`
	// LanguageIDs maps a glob to the languageId sent in didOpen; LanguageID
	// is the default for files no entry matches.
	LanguageID  string            `toml:"language_id"`
	LanguageIDs map[string]string `toml:"language_ids"`
	InitOptions map[string]any    `toml:"init_options"`
	// Settings answer the server's workspace/configuration requests, by
	// section ("python.analysis"); an unknown section gets null.
	Settings map[string]any    `toml:"settings"`
	Env      map[string]string `toml:"env"`
	// CustomMethods are methods beyond LSP that lsp_request may call; they
	// are listed to agents in the answers of lsp_request and lsp_restart.
	CustomMethods []string `toml:"custom_methods"`
	// MemoryMB is the hard cap on the server's address space (RLIMIT_AS),
	// 0 for the pool default, -1 for none. MemoryFlag is how the server is
	// told its own heap limit: "env:NAME=FORMAT" or an argument, FORMAT or
	// the argument holding {mb} (e.g. "env:GOMEMLIMIT={mb}MiB").
	MemoryMB   int    `toml:"memory_mb"`
	MemoryFlag string `toml:"memory_flag"`
	// Timeout overrides the pool's per-request deadline ("45s").
	Timeout Duration `toml:"timeout"`
}

// Duration is a duration written as "30s" in TOML.
type Duration = proctree.Duration

// PoolConfig bounds the pool. Every field has a range (see Bounds); 0
// means the default.
type PoolConfig struct {
	MaxServers     int      `toml:"max_servers"`     // processes at once (default 8)
	IdleTimeout    Duration `toml:"idle_timeout"`    // shut an unused server down after (default 10m)
	RequestTimeout Duration `toml:"request_timeout"` // deadline of one request (default 30s)
	// StartTimeout bounds starting a server: the process and its answer to
	// initialize (default 60s). The call that starts a server waits for it
	// no longer than its own deadline either (the request timeout), and a
	// server that does not answer in time is killed: LSP_TIMEOUT.
	StartTimeout Duration `toml:"start_timeout"`
	MemoryMB     int      `toml:"memory_mb"`      // hard cap per server (default 8192; -1 none)
	SoftMemoryMB int      `toml:"soft_memory_mb"` // SERVER LARGE above this footprint (default 2048)
	QuietPeriod  Duration `toml:"quiet"`          // diagnostics settled after this long without news (default 1s)
	MaxOpenFiles int      `toml:"max_open_files"` // documents kept open per server (default 50)
}

// The ranges of the numeric settings. A value outside its range is a
// configuration error naming the setting, never clamped or wrapped.
const (
	MinMemoryMB    = 64      // memory_mb: -1 (no cap), 0 (default) or MinMemoryMB..MaxMemoryMB
	MaxMemoryMB    = 1 << 20 // 1 TiB
	MaxServerCount = 256     // max_servers: 0 (default) or 1..MaxServerCount
	MaxOpenFilesN  = 10000   // max_open_files: 0 (default) or 1..MaxOpenFilesN
	// MaxTimeout bounds request_timeout, start_timeout and a server's
	// timeout; idle_timeout is bounded by MaxIdleTimeout and quiet by
	// MaxQuiet. Durations may not be negative.
	MaxTimeout     = time.Hour
	MaxIdleTimeout = 24 * time.Hour
	MaxQuiet       = time.Minute
)

// check reports the first setting outside its range.
func (c PoolConfig) check() error {
	if err := checkInt("max_servers", c.MaxServers, 0, MaxServerCount); err != nil {
		return err
	}
	if err := checkMemory("memory_mb", c.MemoryMB); err != nil {
		return err
	}
	if err := checkInt("soft_memory_mb", c.SoftMemoryMB, 0, MaxMemoryMB); err != nil {
		return err
	}
	if err := checkInt("max_open_files", c.MaxOpenFiles, 0, MaxOpenFilesN); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		v    Duration
		max  time.Duration
	}{
		{"idle_timeout", c.IdleTimeout, MaxIdleTimeout},
		{"request_timeout", c.RequestTimeout, MaxTimeout},
		{"start_timeout", c.StartTimeout, MaxTimeout},
		{"quiet", c.QuietPeriod, MaxQuiet},
	} {
		if err := checkDuration(d.name, d.v.Duration, d.max); err != nil {
			return err
		}
	}
	return nil
}

// check reports the first setting of s outside its range.
func (s ServerSpec) check() error {
	if err := checkMemory("memory_mb", s.MemoryMB); err != nil {
		return err
	}
	return checkDuration("timeout", s.Timeout.Duration, MaxTimeout)
}

func checkInt(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s = %d is out of range: it must be between %d and %d (0 for the default)", name, v, lo, hi)
	}
	return nil
}

// CheckMemoryMB reports whether mb is a valid memory cap: -1 (none), 0
// (the default) or MinMemoryMB..MaxMemoryMB MiB.
func CheckMemoryMB(mb int) error { return checkMemory("memory_mb", mb) }

func checkMemory(name string, mb int) error {
	if mb == -1 || mb == 0 || mb >= MinMemoryMB && mb <= MaxMemoryMB {
		return nil
	}
	return fmt.Errorf("%s = %d is out of range: it must be -1 (no cap), 0 (the default) or between %d and %d MiB", name, mb, MinMemoryMB, MaxMemoryMB)
}

func checkDuration(name string, d, max time.Duration) error {
	if d < 0 || d > max {
		return fmt.Errorf("%s = %s is out of range: it must be between 0 (the default) and %s", name, d, max)
	}
	return nil
}

// loosened names the first setting of c that lifts a bound of def (the
// built-in defaults): a value above the default, or no memory cap. What
// an untrusted repository's file may set is what loosened lets through.
func (c PoolConfig) loosened(def PoolConfig) string {
	ints := []struct {
		name   string
		v, def int
	}{
		{"max_servers", c.MaxServers, def.MaxServers},
		{"memory_mb", c.MemoryMB, def.MemoryMB},
		{"soft_memory_mb", c.SoftMemoryMB, def.SoftMemoryMB},
		{"max_open_files", c.MaxOpenFiles, def.MaxOpenFiles},
	}
	for _, s := range ints {
		if s.v < 0 || s.v > s.def {
			return fmt.Sprintf("%s = %d (the bound is %d)", s.name, s.v, s.def)
		}
	}
	durs := []struct {
		name   string
		v, def time.Duration
	}{
		{"idle_timeout", c.IdleTimeout.Duration, def.IdleTimeout.Duration},
		{"request_timeout", c.RequestTimeout.Duration, def.RequestTimeout.Duration},
		{"start_timeout", c.StartTimeout.Duration, def.StartTimeout.Duration},
		{"quiet", c.QuietPeriod.Duration, def.QuietPeriod.Duration},
	}
	for _, s := range durs {
		if s.v > s.def {
			return fmt.Sprintf("%s = %s (the bound is %s)", s.name, s.v, s.def)
		}
	}
	return ""
}

// withDefaults fills the zero fields.
func (c PoolConfig) withDefaults() PoolConfig {
	if c.MaxServers <= 0 {
		c.MaxServers = 8
	}
	if c.IdleTimeout.Duration <= 0 {
		c.IdleTimeout.Duration = 10 * time.Minute
	}
	if c.RequestTimeout.Duration <= 0 {
		c.RequestTimeout.Duration = 30 * time.Second
	}
	if c.StartTimeout.Duration <= 0 {
		c.StartTimeout.Duration = 60 * time.Second
	}
	if c.MemoryMB == 0 {
		c.MemoryMB = 8192
	}
	if c.SoftMemoryMB == 0 {
		c.SoftMemoryMB = 2048
	}
	if c.QuietPeriod.Duration <= 0 {
		c.QuietPeriod.Duration = time.Second
	}
	if c.MaxOpenFiles <= 0 {
		c.MaxOpenFiles = 50
	}
	return c
}

// Config is a root's language-server configuration: its pool settings and
// its servers, the configured ones first, then the built-in defaults.
type Config struct {
	Pool    PoolConfig
	Servers []ServerSpec
	// Source is the configuration file read, "" for the built-in defaults.
	Source string
}

// fileConfig is the layout of sextant.toml: everything under [lsp].
type fileConfig struct {
	LSP struct {
		PoolConfig
		Servers []ServerSpec `toml:"server"`
	} `toml:"lsp"`
}

// OtherSections are the sections of the configuration file that other
// packages read: [scip] is the SCIP indexers' (internal/scipindexer).
var OtherSections = []string{"scip"}

// ConfigFiles are the names looked for in a root, first found wins.
var ConfigFiles = []string{"sextant.toml", filepath.Join(".sextant", "config.toml")}

// Defaults are the built-in servers, offered when their command is on PATH.
func Defaults() []ServerSpec {
	return []ServerSpec{
		{Name: "gopls", Command: "gopls", Globs: []string{"*.go", "go.mod", "go.work"},
			LanguageID: "go", LanguageIDs: map[string]string{"go.mod": "go.mod", "go.work": "go.work"},
			// The local toolchain, so that gopls never downloads another.
			Env:        map[string]string{"GOTOOLCHAIN": "local"},
			MemoryFlag: "env:GOMEMLIMIT={mb}MiB"},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Globs: []string{"*.py", "*.pyi"},
			LanguageID: "python", MemoryFlag: "env:NODE_OPTIONS=--max-old-space-size={mb}"},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Globs:      []string{"*.ts", "*.tsx", "*.js", "*.jsx", "*.mjs", "*.cjs", "*.mts", "*.cts"},
			LanguageID: "typescript", LanguageIDs: map[string]string{"*.tsx": "typescriptreact", "*.js": "javascript", "*.mjs": "javascript", "*.cjs": "javascript", "*.jsx": "javascriptreact"},
			MemoryFlag: "env:NODE_OPTIONS=--max-old-space-size={mb}"},
		{Name: "clangd", Command: "clangd", Globs: []string{"*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx"},
			LanguageID: "cpp", LanguageIDs: map[string]string{"*.c": "c"}},
		{Name: "rust-analyzer", Command: "rust-analyzer", Globs: []string{"*.rs"}, LanguageID: "rust"},
	}
}

// maxConfigBytes bounds what is read of a configuration file.
const maxConfigBytes = 1 << 20

// TrustEnv is the environment variable that lets the [[lsp.server]]
// entries of a repository's configuration file run (they name commands)
// and its [lsp] settings loosen the resource bounds: the repository is
// not trusted by default.
const TrustEnv = "SEXTANT_TRUST_REPO_CONFIG"

// LoadConfig reads root's configuration file, if any, over the defaults.
// A malformed file is an error naming it; a missing one is not, and nor is
// a setting outside its range (see the Max constants). Unless TrustEnv is
// 1, the file is the repository's and not the user's: one that defines
// servers is refused, and so is one whose [lsp] settings lift a bound
// above its built-in default (more servers, longer timeouts, a larger or
// no memory cap); lower values, which only tighten, are applied.
//
// The file is read through os.Root like every file of a root (package
// rootfs): a configuration file that is a symlink out of the root is
// refused (rootfs.Outside reports the error), and so is one that is not a
// regular file (rootfs.ErrNotRegular), which could block the read.
func LoadConfig(root string) (*Config, error) {
	cfg := &Config{}
	fsRoot, err := os.OpenRoot(root)
	if errors.Is(err, fs.ErrNotExist) {
		fsRoot = nil // no root, no file: the defaults
	} else if err != nil {
		return nil, fmt.Errorf("opening %s: %w", root, err)
	} else {
		defer fsRoot.Close()
	}
	for _, name := range ConfigFiles {
		if fsRoot == nil {
			break
		}
		p := filepath.Join(root, name)
		data, err := rootfs.ReadRegular(fsRoot, name, maxConfigBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		var fc fileConfig
		md, err := toml.Decode(string(data), &fc)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", p, err)
		}
		for _, k := range md.Undecoded() {
			if len(k) > 0 && slices.Contains(OtherSections, k[0]) {
				continue // another reader's section
			}
			// Free-form tables (init_options, settings) hold any keys.
			if len(k) > 3 && k[0] == "lsp" && k[1] == "server" && (k[2] == "init_options" || k[2] == "settings") {
				continue
			}
			return nil, fmt.Errorf("parsing %s: unknown key %s", p, k)
		}
		for i, s := range fc.LSP.Servers {
			if s.Name == "" || s.Command == "" || len(s.Globs) == 0 {
				return nil, fmt.Errorf("%s: [[lsp.server]] %d needs name, command and globs", p, i+1)
			}
			if err := s.check(); err != nil {
				return nil, fmt.Errorf("%s: [[lsp.server]] %s: %w", p, s.Name, err)
			}
		}
		if err := fc.LSP.PoolConfig.check(); err != nil {
			return nil, fmt.Errorf("%s: [lsp] %w", p, err)
		}
		trusted := os.Getenv(TrustEnv) == "1"
		if l := fc.LSP.PoolConfig.withDefaults().loosened(PoolConfig{}.withDefaults()); l != "" && !trusted {
			// The resource bounds protect the user from the repository:
			// its file may lower them, only the user may lift them.
			return nil, fmt.Errorf("%s: [lsp] %s lifts a resource bound, and a repository's file may only tighten them: Sextant applies it only with %s=1 in its environment (trust this repository)", p, l, TrustEnv)
		}
		if len(fc.LSP.Servers) > 0 && !trusted {
			// The file is the repository's: whoever wrote it chooses the
			// command Sextant would run. Only the user can say to trust it.
			return nil, fmt.Errorf("%s defines language servers, and a repository's file may name any command: Sextant starts them only with %s=1 in its environment (trust this repository), or use the built-in servers", p, TrustEnv)
		}
		cfg.Pool = fc.LSP.PoolConfig
		cfg.Servers = fc.LSP.Servers
		cfg.Source = p
		break
	}
	cfg.Pool = cfg.Pool.withDefaults()
	// Configured servers come first and replace a default of the same name.
	for _, d := range Defaults() {
		replaced := false
		for _, s := range cfg.Servers {
			if s.Name == d.Name {
				replaced = true
			}
		}
		if !replaced {
			cfg.Servers = append(cfg.Servers, d)
		}
	}
	return cfg, nil
}

// ServerFor returns the first server whose globs match rel (a
// root-relative, slash-separated path).
func (c *Config) ServerFor(rel string) (*ServerSpec, bool) {
	for i := range c.Servers {
		if matchAny(c.Servers[i].Globs, rel) {
			return &c.Servers[i], true
		}
	}
	return nil, false
}

// Server returns the server called name.
func (c *Config) Server(name string) (*ServerSpec, bool) {
	for i := range c.Servers {
		if c.Servers[i].Name == name {
			return &c.Servers[i], true
		}
	}
	return nil, false
}

// Names lists the configured and built-in servers.
func (c *Config) Names() []string {
	names := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		names[i] = s.Name
	}
	return names
}

// LanguageIDFor returns the languageId of rel under s.
func (s *ServerSpec) LanguageIDFor(rel string) string {
	for glob, id := range s.LanguageIDs {
		if matchGlob(glob, rel) {
			return id
		}
	}
	if s.LanguageID != "" {
		return s.LanguageID
	}
	return strings.TrimPrefix(path.Ext(rel), ".")
}

// Available reports whether s's command can be run, and if not, why.
func (s *ServerSpec) Available() error {
	if _, err := exec.LookPath(s.Command); err != nil {
		return fmt.Errorf("%s is not on PATH", s.Command)
	}
	return nil
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if matchGlob(g, rel) {
			return true
		}
	}
	return false
}

// matchGlob matches a base-name glob against rel's last element, and a
// glob with a slash against the whole path, where "**/" matches any number
// of directories.
func matchGlob(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(rel))
		return ok
	}
	if prefix, suffix, ok := strings.Cut(glob, "**/"); ok {
		if !strings.HasPrefix(rel, prefix) {
			return false
		}
		rest := rel[len(prefix):]
		for {
			if matchGlob(suffix, rest) && (strings.Contains(suffix, "/") || !strings.Contains(rest, "/")) {
				return true
			}
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				return false
			}
			rest = rest[i+1:]
		}
	}
	ok, _ := path.Match(glob, rel)
	return ok
}
