package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
)

// positional names the parameter a tool's first bare argument fills, so
// `sextant find_symbol Server` works like `--name Server`.
var positional = map[string]string{
	"find_symbol":          "name",
	"get_symbol":           "qualified_name",
	"get_file_outline":     "path",
	"find_references":      "qualified_name",
	"get_callers":          "qualified_name",
	"get_callees":          "qualified_name",
	"find_implementations": "qualified_name",
	"explain_effects":      "qualified_name",
	"explain_type":         "qualified_name",
	// The language-server tools take the file first: `sextant lsp_hover app.py --line 3 --column 5`.
	"lsp_diagnostics":       "file",
	"lsp_hover":             "file",
	"lsp_definition":        "file",
	"lsp_references":        "file",
	"lsp_document_symbols":  "file",
	"lsp_completion":        "file",
	"lsp_workspace_symbols": "query",
	"lsp_request":           "method",
	"check_file":            "file",
	"render_ssa":            "qualified_name",
	"get_impact":            "qualified_name",
}

// toolFlags builds a flag set from the tool's input type: one flag per
// JSON parameter, named as in MCP, described by its jsonschema tag. The
// returned function collects the flags that were set as JSON arguments.
func toolFlags(t query.Tool, e env) (*flag.FlagSet, func() (map[string]any, error)) {
	fs := flag.NewFlagSet(t.Name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	values := map[string]func() (any, error){}
	for _, f := range reflect.VisibleFields(t.Input) {
		if f.Anonymous { // an embedded struct: its fields follow, promoted
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		desc := f.Tag.Get("jsonschema")
		if d, ok := t.ParamDocs[name]; ok {
			desc = d
		}
		switch f.Type.Kind() {
		case reflect.String:
			p := fs.String(name, "", desc)
			values[name] = func() (any, error) { return *p, nil }
		case reflect.Int:
			p := fs.String(name, "", desc+" (integer)")
			values[name] = func() (any, error) {
				n, err := strconv.Atoi(*p)
				if err != nil {
					return nil, usageError{fmt.Sprintf("--%s must be an integer (got %q)", name, *p)}
				}
				return n, nil
			}
		case reflect.Bool: // a switch: --diff alone sets it
			p := fs.Bool(name, false, desc)
			values[name] = func() (any, error) { return *p, nil }
		case reflect.Pointer:
			if f.Type.Elem().Kind() == reflect.Bool {
				p := fs.String(name, "", desc+" (true or false)")
				values[name] = func() (any, error) {
					b, err := strconv.ParseBool(*p)
					if err != nil {
						return nil, usageError{fmt.Sprintf("--%s must be true or false (got %q)", name, *p)}
					}
					return b, nil
				}
			}
		}
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: sextant %s [flags]", t.Name)
		if p := positional[t.Name]; p != "" {
			fmt.Fprintf(fs.Output(), " [%s]", strings.ToUpper(p))
		}
		fmt.Fprintf(fs.Output(), "\n\n%s\n\nFlags:\n", t.Description)
		fs.PrintDefaults()
	}
	collect := func() (map[string]any, error) {
		args := map[string]any{}
		var err error
		fs.Visit(func(f *flag.Flag) {
			get, ok := values[f.Name]
			if !ok || err != nil {
				return
			}
			var v any
			if v, err = get(); err == nil {
				args[f.Name] = v
			}
		})
		return args, err
	}
	return fs, collect
}

// runTool runs one tool from the command line, printing its text (or with
// --json its structured answer) to stdout.
func runTool(ctx context.Context, e env, t query.Tool, argv []string) error {
	fs, collect := toolFlags(t, e)
	asJSON := fs.Bool("json", false, "print the structured answer as JSON instead of text")
	dbPath := dbFlag(fs)
	var roots stringList
	fs.Var(&roots, "root", "a directory the tool may read (repeatable; default: the indexed repository the working directory is in, else the working directory if it holds a go.mod, go.work or a TypeScript or Python project file, else none: answers from the database alone)")
	// Flags may come before and after the positional argument:
	// `sextant get_callers Server.Start --depth 2` parses like
	// `sextant get_callers --depth 2 Server.Start`.
	var rest []string
	for {
		if err := fs.Parse(argv); err != nil {
			return usageErr(err)
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		rest = append(rest, left[0])
		argv = left[1:]
	}
	args, err := collect()
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		p := positional[t.Name]
		if p == "" || len(rest) > 1 {
			return usageError{fmt.Sprintf("%s takes flags only; unexpected %q", t.Name, strings.Join(rest, " "))}
		}
		if _, set := args[p]; set {
			return usageError{fmt.Sprintf("%s given both as --%s and as an argument", p, p)}
		}
		args[p] = rest[0]
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	var st graph.Store
	if t.Group != query.GroupLSP { // the language-server tools read no index
		if st, err = openServingStore(ctx, e, *dbPath); err != nil {
			return err
		}
		defer st.Close()
	}
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		roots = stringList{wd}
		if st != nil {
			roots = defaultToolRoots(ctx, st, wd)
		}
	}
	svc, err := newService(st, roots, e)
	if err != nil {
		return err
	}
	defer svc.Close() // shuts down the language servers the lsp tools started
	// Run inside a repository, a tool answers about it (and the other
	// roots), not about every repository the local database once held; a
	// shared graph is read whole.
	svc.SetScope(!postgres.IsURL(dbName(e, *dbPath)))
	answer, err := t.Call(ctx, svc, raw, progressPrinter(e))
	if err != nil {
		if *asJSON {
			b, _ := json.MarshalIndent(map[string]any{"error": query.ErrorOf(err)}, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return reportedError{err}
		}
		return err
	}
	if *asJSON {
		b, err := json.MarshalIndent(answer, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	fmt.Fprint(e.stdout, query.RenderText(answer))
	return nil
}

func usageErr(err error) error {
	if err == flag.ErrHelp {
		return err
	}
	return usageError{err.Error()}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
