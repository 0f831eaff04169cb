package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/query"
)

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, []string{"completion", shell}); code != ExitOK {
		t.Fatalf("sextant completion %s: exit %d", shell, code)
	}
	return out.String()
}

// TestCompletionCoversFlags: every shell's script offers every
// subcommand and every flag of every tool (as the CLI builds them from
// the registry), and the built-in commands' flags.
func TestCompletionCoversFlags(t *testing.T) {
	var want []string
	for _, tl := range query.Tools() {
		fs, _ := toolFlags(tl, env{stderr: io.Discard})
		want = append(want, tl.Name)
		fs.VisitAll(func(f *flag.Flag) { want = append(want, "--"+f.Name) })
		want = append(want, "--json", "--root", "--db")
	}
	want = append(want, "index", "serve", "ui", "publish", "gc", "doctor", "tests", "record", "completion", "--watch", "--http", "--token", "--commit", "--dry-run", "--staged", "--addr", "--open")
	for shell := range shells {
		script := completionScript(t, shell)
		for _, w := range want {
			word := w
			if shell == "fish" && strings.HasPrefix(w, "--") {
				word = "-l " + strings.TrimPrefix(w, "--") // fish names long flags so
			}
			if !strings.Contains(script, word) {
				t.Errorf("%s script lacks %s", shell, word)
			}
		}
	}
}

// TestCompletionLoads: the bash and zsh scripts parse and load in the
// real shells, and complete a tool's flag and a subcommand; fish's and
// PowerShell's parse where those shells are installed.
func TestCompletionLoads(t *testing.T) {
	dir := t.TempDir()
	write := func(shell string) string {
		p := filepath.Join(dir, "sextant."+shell)
		if err := os.WriteFile(p, []byte(completionScript(t, shell)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shell := func(name string, required bool) string {
		p, err := exec.LookPath(name)
		if err != nil {
			msg := name + " is not installed: its completion script was NOT loaded"
			if required && os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Log("SKIPPED LOUDLY: " + msg)
		}
		return p
	}
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if bash := shell("bash", true); bash != "" {
		p := write("bash")
		run(bash, "-n", p)
		got := run(bash, "-c", `source "$1"; complete -p sextant >/dev/null || exit 1
COMP_WORDS=(sextant find_symbol --na); COMP_CWORD=2; _sextant; echo "${COMPREPLY[*]}"
COMP_WORDS=(sextant doc); COMP_CWORD=1; _sextant; echo "${COMPREPLY[*]}"
COMP_WORDS=(sextant tests re); COMP_CWORD=2; _sextant; echo "${COMPREPLY[*]}"
COMP_WORDS=(sextant tests record --pack); COMP_CWORD=3; _sextant; echo "${COMPREPLY[*]}"
COMP_WORDS=(sextant help find_s); COMP_CWORD=2; _sextant; echo "${COMPREPLY[*]}"
COMP_WORDS=(sextant completion z); COMP_CWORD=2; _sextant; echo "${COMPREPLY[*]}"`, "bash", p)
		if want := "--name\ndoctor\nrecord\n--packages\nfind_symbol\nzsh"; got != want {
			t.Errorf("bash completed %q, want %q", got, want)
		}
	}
	if zsh := shell("zsh", true); zsh != "" {
		p := write("zsh")
		run(zsh, "-n", p)
		got := run(zsh, "-fc", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- "${_comps[sextant]}"`, "zsh", p)
		if got != "_sextant" {
			t.Errorf("zsh registered %q for sextant, want _sextant", got)
		}
	}
	if fish := shell("fish", false); fish != "" {
		run(fish, "-n", write("fish"))
	}
	if pwsh := shell("pwsh", false); pwsh != "" {
		run(pwsh, "-NoProfile", "-Command", ". "+write("powershell"))
	}
}
