package graph

import "testing"

// The overview reads back what the index wrote of a language it found and
// did not index: the message and its reader are one format.
func TestNotIndexedRoundTrip(t *testing.T) {
	for _, c := range []struct {
		lang     string
		projects []string
		why      string
		prefix   string
	}{
		{LanguageTypeScript, []string{"web", "tools/ui"}, "scip-typescript is not on PATH; install it with `npm install -g @sourcegraph/scip-typescript@0.4.0`", ""},
		{LanguagePython, []string{"."}, "disabled in sextant.toml", "pyproject.toml: "},
		{LanguageJavaScript, []string{"site"}, "disabled in sextant.toml", "site/package.json: "},
	} {
		msg := NotIndexedMessage(c.lang, c.projects, c.why)
		lang, why, ok := NotIndexedOf(c.prefix + msg)
		if !ok || lang != c.lang || why != c.why {
			t.Errorf("NotIndexedOf(%q) = %q, %q, %v; want %q, %q", c.prefix+msg, lang, why, ok, c.lang, c.why)
		}
	}
	if _, _, ok := NotIndexedOf("go.work:6: go.work uses ./c, which holds no go.mod"); ok {
		t.Error("another skipped diagnostic read as a language not indexed")
	}
}
