package scipindexer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/sextant-dev/sextant/internal/proctree"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// Tool says how to run one indexer.
type Tool struct {
	// Command is the indexer's program, looked up on PATH unless it holds
	// a path separator. A repository's file may set it only when trusted
	// (TrustEnv).
	Command string `toml:"command"`
	// Disabled skips the indexer: its projects are found, not indexed.
	Disabled bool `toml:"disabled"`
}

// Config is how the indexers run: the [scip] section of sextant.toml over
// the defaults.
type Config struct {
	// Timeout is the deadline of one run (default DefaultTimeout, at most
	// MaxTimeout).
	Timeout Duration `toml:"timeout"`
	// MemoryMB caps each run's memory: the Node heap
	// (--max-old-space-size) and, where the kernel caps a process tree
	// (Linux RLIMIT_AS, a Windows job), the tree. 0 is the default
	// (DefaultMemoryMB), -1 none.
	MemoryMB   int  `toml:"memory_mb"`
	TypeScript Tool `toml:"typescript"`
	Python     Tool `toml:"python"`
	// Source is the configuration file read, "" for the defaults.
	Source string `toml:"-"`
}

// Duration is a duration written as "10m" in TOML.
type Duration = proctree.Duration

// The defaults and bounds of Config.
const (
	DefaultTimeout  = 10 * time.Minute
	MaxTimeout      = 2 * time.Hour
	DefaultMemoryMB = 8192
	MinMemoryMB     = 256
	MaxMemoryMB     = 1 << 20
)

// The indexers' default commands and the commands that install the
// versions Sextant is tested with.
const (
	TypeScriptCommand = "scip-typescript"
	PythonCommand     = "scip-python"
	TypeScriptInstall = "npm install -g @sourcegraph/scip-typescript@0.4.0"
	PythonInstall     = "npm install -g @sourcegraph/scip-python@0.6.6"
)

// TrustEnv is the variable that lets a repository's sextant.toml name the
// indexers' commands and lift their bounds, as it lets it name language
// servers (internal/lsp's TrustEnv, the same variable).
const TrustEnv = "SEXTANT_TRUST_REPO_CONFIG"

// ConfigFiles are the names looked for in a root, first found wins: the
// files internal/lsp reads its [lsp] section from.
var ConfigFiles = []string{"sextant.toml", filepath.Join(".sextant", "config.toml")}

// maxConfigBytes bounds what is read of a configuration file.
const maxConfigBytes = 1 << 20

// Defaults returns the built-in configuration.
func Defaults() Config {
	return Config{}.withDefaults()
}

func (c Config) withDefaults() Config {
	if c.Timeout.Duration <= 0 {
		c.Timeout.Duration = DefaultTimeout
	}
	if c.MemoryMB == 0 {
		c.MemoryMB = DefaultMemoryMB
	}
	if c.TypeScript.Command == "" {
		c.TypeScript.Command = TypeScriptCommand
	}
	if c.Python.Command == "" {
		c.Python.Command = PythonCommand
	}
	return c
}

// check reports the first setting outside its range.
func (c Config) check() error {
	if d := c.Timeout.Duration; d < 0 || d > MaxTimeout {
		return fmt.Errorf("timeout = %s is out of range: it must be between 0 (the default) and %s", d, MaxTimeout)
	}
	if mb := c.MemoryMB; mb != -1 && mb != 0 && (mb < MinMemoryMB || mb > MaxMemoryMB) {
		return fmt.Errorf("memory_mb = %d is out of range: it must be -1 (no cap), 0 (the default) or between %d and %d MiB", mb, MinMemoryMB, MaxMemoryMB)
	}
	return nil
}

// untrusted names the first setting of c (as written in a repository's
// file) that only the user may make: a command, a longer deadline, a
// larger or no memory cap. "" when c only tightens the defaults.
func (c Config) untrusted() string {
	if c.TypeScript.Command != "" {
		return fmt.Sprintf("[scip.typescript] command = %q names a program to run", c.TypeScript.Command)
	}
	if c.Python.Command != "" {
		return fmt.Sprintf("[scip.python] command = %q names a program to run", c.Python.Command)
	}
	if c.Timeout.Duration > DefaultTimeout {
		return fmt.Sprintf("[scip] timeout = %s lifts the bound of %s", c.Timeout.Duration, DefaultTimeout)
	}
	if c.MemoryMB == -1 || c.MemoryMB > DefaultMemoryMB {
		return fmt.Sprintf("[scip] memory_mb = %d lifts the bound of %d MiB", c.MemoryMB, DefaultMemoryMB)
	}
	return ""
}

// LoadConfig reads the [scip] section of root's configuration file, if
// any, over the defaults; the file's other sections ([lsp]) are
// internal/lsp's. A malformed file, an unknown key under [scip] and a
// setting out of range are errors naming the file; a missing file is
// not. The file is the repository's, not the user's: unless TrustEnv is
// 1, one that names a command or lifts a bound (a longer timeout, a larger
// or no memory cap) is refused; settings that only tighten apply. It is
// read through os.Root: a symlink out of the root, or a file that is not
// regular, is refused.
func LoadConfig(root string) (Config, error) {
	fsRoot, err := os.OpenRoot(root)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("opening %s: %w", root, err)
	}
	defer fsRoot.Close()
	for _, name := range ConfigFiles {
		p := filepath.Join(root, name)
		data, err := rootfs.ReadRegular(fsRoot, name, maxConfigBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, fmt.Errorf("reading %s: %w", p, err)
		}
		var fc struct {
			SCIP Config `toml:"scip"`
		}
		md, err := toml.Decode(string(data), &fc)
		if err != nil {
			return Config{}, fmt.Errorf("parsing %s: %w", p, err)
		}
		for _, k := range md.Undecoded() {
			if len(k) > 0 && k[0] == "scip" {
				return Config{}, fmt.Errorf("parsing %s: unknown key %s", p, k)
			}
		}
		if err := fc.SCIP.check(); err != nil {
			return Config{}, fmt.Errorf("%s: [scip] %w", p, err)
		}
		if why := fc.SCIP.untrusted(); why != "" && os.Getenv(TrustEnv) != "1" {
			// Whoever wrote the file chooses what Sextant would run and
			// how long: only the user can say to trust it.
			return Config{}, fmt.Errorf("%s: %s, and a repository's file may only tighten the indexers' settings: Sextant applies it only with %s=1 in its environment (trust this repository)", p, why, TrustEnv)
		}
		c := fc.SCIP.withDefaults()
		c.Source = p
		return c, nil
	}
	return Defaults(), nil
}
