package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/proc"
)

// versionTimeout bounds one program's answer to its version flag.
const versionTimeout = 10 * time.Second

func lookPath(name string) (string, error) { return exec.LookPath(name) }

// programVersion is the first line a program prints for arg (its
// version flag), else the version in the package.json of the npm package
// it is a link into, else "".
func programVersion(ctx context.Context, path, arg string) string {
	if path == "" {
		return ""
	}
	if arg != "" {
		if out, err := runQuiet(ctx, path, arg); err == nil {
			for _, line := range strings.Split(out, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					if len(line) > 80 {
						line = line[:80]
					}
					return line
				}
			}
		}
	}
	return npmVersion(path)
}

// runQuiet runs path with args, no input, in the temporary directory (so
// that no go.mod there asks for another toolchain), within
// versionTimeout, and returns what it printed.
func runQuiet(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// npmVersion reads "name version" from the package.json above the file
// a link on PATH resolves to (npm links its programs' bins so).
func npmVersion(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if data, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
			var pkg struct{ Name, Version string }
			if json.Unmarshal(data, &pkg) == nil && pkg.Version != "" {
				return strings.TrimSpace(pkg.Name + " " + pkg.Version)
			}
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// checkGo finds the go command and its version, and whether it is new
// enough for each root's go.mod (Sextant runs it with GOTOOLCHAIN=local,
// so it never fetches the toolchain a go.mod asks for).
func checkGo(ctx context.Context, neededBy []string, roots []Root) Check {
	c := Check{Feature: "go", Name: "go", NeededBy: neededBy, Detail: "indexes Go code (go list, go env)"}
	path, err := lookPath("go")
	if real := os.Getenv(proc.RealGoEnv); real != "" {
		path, err = real, nil // the go the guard's shim, first on PATH, stands for
	}
	if err != nil {
		c.Status, c.Fix = Missing, goInstall(runtimeGo())
		c.Detail = "Go code is not indexed without it"
		return c
	}
	c.Path = path
	out, err := runQuiet(ctx, path, "env", "GOVERSION")
	v := strings.TrimSpace(out)
	if err != nil || !version.IsValid(v) {
		c.Status, c.Detail = Broken, "`go env GOVERSION` failed: "+firstLine(out)
		c.Fix = goInstall(runtimeGo())
		return c
	}
	c.Status, c.Version = OK, v
	for _, r := range roots {
		want := goDirective(filepath.Join(r.Dir, "go.mod"))
		if want != "" && version.Compare(v, want) < 0 {
			c.Status = Broken
			c.Detail = fmt.Sprintf("%s/go.mod needs %s; this go is %s, and Sextant never downloads another toolchain (GOTOOLCHAIN=local)", r.Dir, want, v)
			c.Fix = goInstall(want)
		}
	}
	return c
}

// goDirective returns the go line of a go.mod as a Go version ("go1.22"),
// or "".
func goDirective(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "go" && version.IsValid("go"+f[1]) {
			return "go" + f[1]
		}
	}
	return ""
}

// runtimeGo is the Go release this binary was built with, offered when
// no go is installed.
func runtimeGo() string {
	if v := runtime.Version(); version.IsValid(v) && strings.Count(v, ".") == 2 {
		return v
	}
	return "go1.26.0"
}

// goInstall is the command that installs Go v (go1.x.y, or go1.x: its
// first release go1.x.0) on this platform.
func goInstall(v string) string {
	if strings.Count(v, ".") == 1 {
		v += ".0"
	}
	switch runtime.GOOS {
	case "darwin":
		return "brew install go  (or the installer at https://go.dev/dl/" + v + ".darwin-" + runtime.GOARCH + ".pkg)"
	case "windows":
		return "winget install --id GoLang.Go -e  (or the installer at https://go.dev/dl/)"
	}
	return fmt.Sprintf("curl -fsSL https://go.dev/dl/%s.%s-%s.tar.gz | sudo tar -C /usr/local -xz && export PATH=/usr/local/go/bin:$PATH", v, runtime.GOOS, runtime.GOARCH)
}

// Git versions: core.hooksPath, which keeps a repository's hooks from
// running, came in 2.9 (GIT_ALLOW_PROTOCOL, which keeps git off every
// remote, in 2.6.1); GIT_NO_LAZY_FETCH, which stops a partial clone's
// fetch of a missing object before it starts, in 2.45. Package git sets
// them all.
var (
	gitSafe      = [3]int{2, 9, 0}
	gitNoFetch   = [3]int{2, 45, 0}
	gitVersionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)
)

// checkGit finds git and says whether its version takes every switch
// package git runs it with on a repository nobody vetted.
func checkGit(ctx context.Context, neededBy []string) Check {
	c := Check{Feature: "git", Name: "git", NeededBy: neededBy, Detail: "commits for get_impact's diff and base, the overview's recent changes"}
	path, err := lookPath("git")
	if err != nil {
		c.Status, c.Fix = Missing, gitInstall()
		c.Detail = "get_impact's diff and base and the overview's history need it"
		return c
	}
	c.Path = path
	out, err := runQuiet(ctx, path, "--version")
	m := gitVersionRE.FindStringSubmatch(out)
	if err != nil || m == nil {
		c.Status, c.Detail, c.Fix = Broken, "`git --version` failed: "+firstLine(out), gitInstall()
		return c
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	c.Version = strings.TrimSpace(strings.TrimPrefix(firstLine(out), "git version "))
	switch {
	case less(v, gitSafe):
		c.Status, c.Fix = Broken, gitInstall()
		c.Detail = "too old to be made safe on a hostile repository: core.hooksPath needs git 2.9 or later"
	case less(v, gitNoFetch):
		c.Status = OK
		c.Detail = "safe: hooks, filters, pager and every remote off; a partial clone's missing object is refused by GIT_ALLOW_PROTOCOL (git 2.45 or later does not even try to fetch it)"
	default:
		c.Status, c.Detail = OK, "safe: hooks, filters, pager, every remote and lazy fetching off"
	}
	return c
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func gitInstall() string {
	return packageInstall(map[string]string{"apt-get": "git", "dnf": "git", "apk": "git", "pacman": "git", "brew": "git", "winget": "Git.Git"})
}

// packageInstall is the command that installs a package with the
// package manager this machine has, from pkgs (manager → package name).
func packageInstall(pkgs map[string]string) string {
	switch runtime.GOOS {
	case "windows":
		return "winget install --id " + pkgs["winget"] + " -e"
	case "darwin":
		return "brew install " + pkgs["brew"]
	}
	for _, m := range []struct{ manager, cmd string }{
		{"apt-get", "sudo apt-get install -y "}, {"dnf", "sudo dnf install -y "},
		{"apk", "sudo apk add "}, {"pacman", "sudo pacman -S --noconfirm "},
	} {
		if p, ok := pkgs[m.manager]; ok {
			if _, err := exec.LookPath(m.manager); err == nil {
				return m.cmd + p
			}
		}
	}
	if p, ok := pkgs["apt-get"]; ok {
		return "sudo apt-get install -y " + p
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
