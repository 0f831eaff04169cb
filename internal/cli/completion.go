package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/query"
)

// command is one subcommand as the completion scripts offer it.
type command struct {
	name, summary string
	flags         []cflag
	words         []string // the words its first argument is one of (a verb, a tool, a shell), if any
	dirs          bool     // its arguments are directories (else files)
}

// cflag is one flag of a subcommand.
type cflag struct {
	name, usage string
	value       bool // takes a value (else a switch)
}

// builtins are the subcommands other than the tools, with what their
// arguments are; their flags are read from their own flag sets.
var builtins = []struct {
	name, summary string
	words         []string
	dirs          bool
	run           func(context.Context, env, []string) error
}{
	{"index", "index the code under each DIR", nil, true, runIndex},
	{"serve", "serve MCP over stdio or streamable HTTP", nil, true, runServe},
	{"ui", "serve a read-only web view of the graph to a local browser", nil, true, runUI},
	{"publish", "index a checkout into the shared graph", nil, true, runPublish},
	{"gc", "drop repositories whose root is gone", nil, false, runGC},
	{"doctor", "what this machine has and lacks", nil, true, runDoctor},
	{"tests", "record what each test runs (runs the tests)", []string{"record"}, true, runTestsRecord},
}

// runTestsRecord is tests record, the one verb of tests, as completion
// asks it for its flags.
func runTestsRecord(ctx context.Context, e env, argv []string) error {
	return runTests(ctx, e, append([]string{"record"}, argv...))
}

// commands lists every subcommand with its flags: each built-in's and
// each tool's, read from the flag sets the commands parse with (asked for
// their help), so the scripts offer exactly the flags the commands take.
func commands() []command {
	var out []command
	for _, b := range builtins {
		out = append(out, command{name: b.name, summary: b.summary, words: b.words, dirs: b.dirs, flags: flagsOf(func(e env) { _ = b.run(context.Background(), e, []string{"-h"}) })})
	}
	out = append(out,
		command{name: "instructions", summary: "print the guide the server gives agents"},
		command{name: "completion", summary: "print a shell completion script", words: shellNames()},
		command{name: "help", summary: "a tool's flags", words: toolNames()},
		command{name: "version", summary: "the version, commit and build date"},
	)
	for _, t := range query.Tools() {
		out = append(out, command{name: t.Name, summary: t.Title, flags: flagsOf(func(e env) { _ = runTool(context.Background(), e, t, []string{"-h"}) })})
	}
	return out
}

// defaultLine is a flag's line in flag.PrintDefaults: "  -name" and its
// value's type, if any.
var defaultLine = regexp.MustCompile(`^  -([A-Za-z0-9][A-Za-z0-9_-]*)(?: ([A-Za-z]+))?(?:\t(.*))?$`)

// flagsOf reads the flags a command prints for -h (flag.PrintDefaults's
// format), sorted by name.
func flagsOf(help func(env)) []cflag {
	var buf bytes.Buffer
	help(env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &buf, getenv: func(string) string { return "" }})
	var flags []cflag
	for _, line := range strings.Split(buf.String(), "\n") {
		if m := defaultLine.FindStringSubmatch(line); m != nil {
			flags = append(flags, cflag{name: m[1], value: m[2] != "", usage: m[3]})
			continue
		}
		if n := len(flags); n > 0 && flags[n-1].usage == "" && strings.HasPrefix(line, "    \t") {
			flags[n-1].usage = strings.TrimSpace(line)
		}
	}
	sort.Slice(flags, func(i, j int) bool { return flags[i].name < flags[j].name })
	return flags
}

// summary cuts a flag's usage to a short description with none of the
// characters the shells' quoting would need to escape.
func summary(s string) string {
	if i := strings.IndexAny(s, ";("); i > 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("'\"`$\\[]{}|&<>", r) {
			return -1
		}
		return r
	}, s)
	if len(s) > 60 {
		s = s[:60]
		if i := strings.LastIndexByte(s, ' '); i > 30 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// pathFlags are the flags whose value is a file or directory.
var pathFlags = map[string]bool{"db": true, "root": true, "file": true, "path": true}

var shells = map[string]func(io.Writer, []command){"bash": bashScript, "zsh": zshScript, "fish": fishScript, "powershell": powershellScript}

// runCompletion prints the completion script of a shell.
func runCompletion(e env, argv []string) error {
	if len(argv) != 1 || shells[argv[0]] == nil {
		return usageError{"usage: sextant completion bash|zsh|fish|powershell\n\n" +
			"  bash:       source <(sextant completion bash)   (or save it in /etc/bash_completion.d/sextant)\n" +
			"  zsh:        sextant completion zsh > \"${fpath[1]}/_sextant\"   (or source <(sextant completion zsh) after compinit)\n" +
			"  fish:       sextant completion fish > ~/.config/fish/completions/sextant.fish\n" +
			"  powershell: sextant completion powershell | Out-String | Invoke-Expression   (add it to $PROFILE)"}
	}
	shells[argv[0]](e.stdout, commands())
	return nil
}

func names(cmds []command) string {
	var n []string
	for _, c := range cmds {
		n = append(n, c.name)
	}
	return strings.Join(n, " ")
}

func bashScript(w io.Writer, cmds []command) {
	fmt.Fprintf(w, `# bash completion for sextant: source <(sextant completion bash)
_sextant() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "%s --version --help" -- "$cur"))
    return
  fi
  local words="" flags="" values="" dirs=""
  case "${COMP_WORDS[1]}" in
`, names(cmds))
	for _, c := range cmds {
		if len(c.flags) == 0 && len(c.words) == 0 {
			continue
		}
		var all, values []string
		for _, f := range c.flags {
			all = append(all, "--"+f.name)
			if f.value {
				values = append(values, "--"+f.name)
			}
		}
		dirs := ""
		if c.dirs {
			dirs = " dirs=1"
		}
		fmt.Fprintf(w, "  %s) words=%q flags=%q values=%q%s ;;\n", c.name, strings.Join(c.words, " "), strings.Join(all, " "), strings.Join(values, " "), dirs)
	}
	fmt.Fprint(w, `  esac
  if [[ -n "$words" && $COMP_CWORD -eq 2 && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return
  fi
  if [[ " $values " == *" $prev "* ]]; then
    COMPREPLY=()  # a flag's value: the default completion (files)
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ -n "$dirs" ]]; then
    COMPREPLY=($(compgen -d -- "$cur"))
  fi
}
complete -o default -o bashdefault -F _sextant sextant
`)
}

// toolNames are the tools' names, which help takes.
func toolNames() []string {
	var n []string
	for _, t := range query.Tools() {
		n = append(n, t.Name)
	}
	return n
}

// shellNames are the shells completion writes scripts for, sorted.
func shellNames() []string {
	var n []string
	for s := range shells {
		n = append(n, s)
	}
	sort.Strings(n)
	return n
}

func zshScript(w io.Writer, cmds []command) {
	fmt.Fprint(w, `#compdef sextant
# zsh completion for sextant: sextant completion zsh > "${fpath[1]}/_sextant"
_sextant() {
  local -a commands
  commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "    '%s:%s'\n", c.name, summary(c.summary))
	}
	fmt.Fprint(w, `  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'sextant command' commands
    return
  fi
  case $words[2] in
`)
	for _, c := range cmds {
		if len(c.flags) == 0 && len(c.words) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s)\n    _arguments", c.name)
		if len(c.words) > 0 {
			fmt.Fprintf(w, " \\\n      '1:%s:(%s)'", c.name, strings.Join(c.words, " "))
		}
		for _, f := range c.flags {
			spec := fmt.Sprintf("--%s[%s]", f.name, summary(f.usage))
			switch {
			case pathFlags[f.name]:
				spec += ":" + f.name + ":_files"
			case f.value:
				spec += ":" + f.name + ": "
			}
			fmt.Fprintf(w, " \\\n      '%s'", spec)
		}
		switch {
		case len(c.flags) == 0: // its word alone
		case c.dirs:
			fmt.Fprint(w, " \\\n      '*:directory:_files -/'")
		default:
			fmt.Fprint(w, " \\\n      '*:file:_files'")
		}
		fmt.Fprint(w, " ;;\n")
	}
	fmt.Fprint(w, `  esac
}
if [[ "${funcstack[1]}" == "_sextant" ]]; then
  _sextant "$@"
else
  compdef _sextant sextant
fi
`)
}

func fishScript(w io.Writer, cmds []command) {
	fmt.Fprintf(w, "# fish completion for sextant: sextant completion fish > ~/.config/fish/completions/sextant.fish\n")
	fmt.Fprintf(w, "set -l sextant_commands %s\n", names(cmds))
	fmt.Fprint(w, "complete -c sextant -n \"not __fish_seen_subcommand_from $sextant_commands\" -l version -d 'the version'\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c sextant -f -n \"not __fish_seen_subcommand_from $sextant_commands\" -a %s -d '%s'\n", c.name, summary(c.summary))
	}
	for _, c := range cmds {
		cond := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.name)
		if len(c.words) > 0 {
			ws := strings.Join(c.words, " ")
			fmt.Fprintf(w, "complete -c sextant -f -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -a '%s'\n", c.name, ws, ws)
		}
		for _, f := range c.flags {
			req := ""
			if f.value {
				req = " -r"
			}
			fmt.Fprintf(w, "complete -c sextant -n %s -l %s%s -d '%s'\n", cond, f.name, req, summary(f.usage))
		}
	}
}

func powershellScript(w io.Writer, cmds []command) {
	fmt.Fprint(w, `# PowerShell completion for sextant: sextant completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName sextant, sextant.exe -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $commands = [ordered]@{
`)
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "'--"+f.name+"'")
		}
		for _, n := range c.words {
			fl = append(fl, "'"+n+"'")
		}
		fmt.Fprintf(w, "    '%s' = @(%s)\n", c.name, strings.Join(fl, ", "))
	}
	fmt.Fprint(w, `  }
  $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
  if ($words.Count -lt 2 -or ($words.Count -eq 2 -and $wordToComplete -ne '')) {
    $candidates = @($commands.Keys) + @('--version', '--help')
  } else {
    $candidates = $commands[$words[1]]
  }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`)
}
