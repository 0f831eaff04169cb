// Package webui is `sextant ui`: a local, read-only web application over
// the same graph, with the same freshness, as the tools. Every page is a
// thin shell over the tools of internal/query, run through their registry
// (call.go): it computes nothing of the graph itself, only lays out what
// the tools answer. Beside them it reads two things no agent needs from
// a tool: the impact page's diff, which query.WorkingTreeDiff reads as
// get_impact reads the working tree (an agent has git diff), and the
// links of a TypeScript, JavaScript or Python symbol's identifiers, from
// the references its SCIP index recorded (query.ScriptUses), since
// infer_type reads Go alone.
//
// Its endpoints, each a GET whose URL a person can share on the machine:
//
//	/                  the overview: modules, languages, packages by import layer, hot spots
//	/package?dir=      a package directory's files and declarations
//	/symbol?key=       a symbol: verified source with identifiers linked,
//	                   references, callers and callees (expand=KEY adds a
//	                   node's next level), effects
//	/type?key=         a type's protocol (explain_type)
//	/search?q=         find_symbol and search_code; /search/results?q= is the
//	                   fragment the page fetches as a person types
//	/impact            the working tree's impact: changes, its diff against
//	                   HEAD (cut at a cap), reach, breaking changes, tests
//	                   and go test lines
//	/def?file=&line=&col=  the definition of the identifier there (infer_type)
//	/static/           the embedded style sheet and script
//
// Security (guard.go): the server is meant for loopback; every request
// needs the token printed with the address (then kept in an HttpOnly,
// SameSite=Strict cookie); a Host that is not loopback on a loopback
// address, and cross-origin requests, are refused by the rules the MCP
// transport applies (internal/httpguard); every answer carries a strict
// Content-Security-Policy with no inline script; repository content goes
// through html/template's escaping everywhere.
package webui

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/sextant-dev/sextant/internal/query"
)

//go:embed assets
var assets embed.FS

// Options configure a UI handler.
type Options struct {
	// Token is the secret every request must present (required).
	Token string
	// Logger receives the failures of pages; nil discards them.
	Logger *slog.Logger
}

// New returns the UI's handler over svc. It only reads.
func New(svc *query.Service, o Options) (http.Handler, error) {
	if len(o.Token) < MinTokenLen {
		return nil, errShortToken
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	p := &pages{svc: svc, tmpl: tmpl, log: o.Logger}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.overview)
	mux.HandleFunc("GET /package", p.pkg)
	mux.HandleFunc("GET /symbol", p.symbol)
	mux.HandleFunc("GET /type", p.typ)
	mux.HandleFunc("GET /search", p.search)
	mux.HandleFunc("GET /search/results", p.searchResults)
	mux.HandleFunc("GET /impact", p.impact)
	mux.HandleFunc("GET /def", p.def)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		// Asked for by a browser of a page naming no icon (the token's).
		http.ServeFileFS(w, r, static, "favicon.svg")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p.fail(w, r, http.StatusNotFound, "no such page")
	})
	return guard(mux, o.Token), nil
}

// parseTemplates parses each page with the layout it fills.
func parseTemplates() (map[string]*template.Template, error) {
	names, err := fs.Glob(assets, "assets/pages/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html", n)
		if err != nil {
			return nil, err
		}
		out[n[len("assets/pages/"):len(n)-len(".html")]] = t
	}
	return out, nil
}
