// Package cli is Sextant's command line: index, serve, instructions, and
// one subcommand per tool with the tool's parameters as flags. Every tool
// subcommand runs the same internal/query code as the MCP server.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/proc"
	"github.com/sextant-dev/sextant/internal/query"
)

// Exit codes. Scripts branch on them, so they are stable.
const (
	ExitOK       = 0
	ExitFailure  = 1 // internal failures, indexing failures, I/O
	ExitUsage    = 2 // bad flags or arguments: fix the command
	ExitNotFound = 3 // the symbol, file or repository does not exist
)

// env is what a command runs with; tests substitute the streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// Main runs the command line and returns the process exit code.
//
// The binary is also the guard of the go commands it starts (package
// proc): started as one, it is nothing else. Otherwise every go command
// it starts is guarded, so that none outlives it (doctor, which changes
// nothing, only reports whether the guard can be made).
func Main(args []string) int {
	if code, ok := proc.ShimMain(); ok {
		return code
	}
	// doctor reports on the guard's directory rather than make it, and
	// completion starts no go command.
	if len(args) == 0 || args[0] != "doctor" && args[0] != "completion" {
		if err := proc.GuardGo(); err != nil {
			fmt.Fprintf(os.Stderr, "sextant: %v; go commands it starts may outlive it if it is killed\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, args)
}

func run(ctx context.Context, e env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "index":
		return e.exit(runIndex(ctx, e, rest))
	case "serve":
		return e.exit(runServe(ctx, e, rest))
	case "gc":
		return e.exit(runGC(ctx, e, rest))
	case "doctor":
		return e.exit(runDoctor(ctx, e, rest))
	case "completion":
		return e.exit(runCompletion(e, rest))
	case "tests":
		return e.exit(runTests(ctx, e, rest))
	case "ui":
		return e.exit(runUI(ctx, e, rest))
	case "publish":
		err := runPublish(ctx, e, rest)
		if err != nil && isDatabaseError(err) {
			e.exit(err) // prints it
			return ExitDatabase
		}
		return e.exit(err)
	case "instructions":
		// The guide `serve --tools SPEC` gives (SPEC as in serve; default:
		// the default profile).
		spec := os.Getenv("SEXTANT_TOOLS")
		if len(rest) > 0 {
			spec = rest[0]
		}
		tools, err := query.SelectTools(spec)
		if err != nil {
			fmt.Fprintf(e.stderr, "sextant: %v\n", err)
			return ExitUsage
		}
		fmt.Fprint(e.stdout, query.InstructionsFor(tools))
		return ExitOK
	case "version", "--version":
		fmt.Fprintln(e.stdout, versionLine())
		return ExitOK
	case "help", "-h", "--help":
		if len(rest) > 0 {
			if t, ok := query.LookupTool(rest[0]); ok {
				fs, _ := toolFlags(t, e)
				fs.SetOutput(e.stdout)
				fs.Usage()
				return ExitOK
			}
		}
		usage(e.stdout)
		return ExitOK
	}
	if t, ok := query.LookupTool(cmd); ok {
		return e.exit(runTool(ctx, e, t, rest))
	}
	fmt.Fprintf(e.stderr, "sextant: unknown command %q\n\n", cmd)
	usage(e.stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Sextant: compiler-accurate answers about Go code, for coding agents and people.

Usage:
  sextant index [--db PATH] [DIR...]        index the Go modules under each DIR (default .)
  sextant serve [--http ADDR] [--db PATH] [DIR...]
                                            serve MCP over stdio (or streamable HTTP at /mcp)
  sextant publish --db URL [--commit SHA] [DIR]
                                            index a checkout and publish it into the shared graph (CI)
  sextant ui [--addr ADDR] [--open] [--db PATH] [DIR...]
                                            serve a read-only web view of the graph to a local browser
  sextant gc [--db PATH] [--dry-run]        drop repositories of the local database whose root is gone
  sextant tests record [--db PATH] [DIR]    run the module's tests once with coverage and record what each runs,
                                            for get_impact (this one RUNS the repository's code)
  sextant instructions                      print the guide the server gives agents
  sextant doctor [--json] [DIR...]          what this machine has and lacks, with the fixes
  sextant completion bash|zsh|fish|powershell
                                            a shell completion script
  sextant --version                         the version, commit and build date
  sextant TOOL [flags]                      run one tool; --json prints the structured answer
  sextant help TOOL                         a tool's flags

Tools:
`)
	for _, t := range query.Tools() {
		fmt.Fprintf(w, "  %-20s %s\n", t.Name, t.Title)
	}
	fmt.Fprint(w, `
The database is $SEXTANT_DB, else sextant/sextant.db in the user cache directory;
a postgres://user:password@host/db URL names a shared PostgreSQL graph.
Exit codes: 0 ok, 1 failure, 2 usage error, 3 not found (publish: 4 database unusable).
`)
}

// usageError marks an error in the command line itself.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// exit prints err and maps it to an exit code.
func (e env) exit(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(e.stderr, "sextant:", ue.msg)
		}
		return ExitUsage
	}
	var reported reportedError
	var coded *graph.Error
	switch {
	case errors.As(err, &reported):
	case errors.As(err, &coded):
		fmt.Fprintln(e.stderr, "sextant:", query.EscapeControls(query.ErrorOf(coded).Text()))
	default:
		fmt.Fprintln(e.stderr, "sextant:", strings.TrimSpace(err.Error()))
	}
	return exitCode(graph.CodeOf(err))
}

// reportedError is an error the command already printed.
type reportedError struct{ error }

func (r reportedError) Unwrap() error { return r.error }

func exitCode(c graph.Code) int {
	switch c {
	case graph.CodeInvalidArgument, graph.CodeCursorInvalid, graph.CodeOutsideRoots,
		graph.CodeAmbiguousSymbol, graph.CodeNotAFunction:
		return ExitUsage
	case graph.CodeSymbolNotFound, graph.CodeFileNotFound, graph.CodeRepositoryNotFound:
		return ExitNotFound
	}
	return ExitFailure
}
