package webui

import (
	"html/template"
	"path"
	"strings"
)

// funcs are the templates' functions. None returns trusted HTML: every
// value reaches the page through html/template's escaping.
var funcs = template.FuncMap{
	"sym": symHref,
	"pkg": pkgHref,
	"typeHref": func(key string) string {
		if key == "" {
			return ""
		}
		return "/type?key=" + key
	},
	"dir":  path.Dir,
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
	"add0": func(a, b float64) float64 { return a + b },
}
