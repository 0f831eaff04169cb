package graph

import (
	"slices"
	"strings"
	"testing"
)

func TestSearchWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"ParseConfig", []string{"parse", "config", "parseconfig"}},
		{"parseHTTPConfig_v2", []string{"parse", "http", "config", "parsehttpconfig", "v", "2", "v2"}},
		{"Server.Start", []string{"server", "start"}},
		{"internal/lsp/cache.go", []string{"internal", "lsp", "cache", "go"}},
		{"x", []string{"x"}},
		{"", nil},
		{"éCole Über", []string{"é", "cole", "école", "über"}},
	} {
		got := SearchWords(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("SearchWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// AppendSearchText is the joined SearchWords, byte for byte.
func TestAppendSearchText(t *testing.T) {
	for _, s := range searchTextSeeds {
		if got, want := string(AppendSearchText(nil, s)), strings.Join(SearchWords(s), " "); got != want {
			t.Errorf("AppendSearchText(%q) = %q, want %q", s, got, want)
		}
	}
}

var searchTextSeeds = []string{
	"", "x", "ParseConfig", "parseHTTPConfig_v2", "Server.Start", "internal/lsp/cache.go",
	"éCole Über", "func (s *Server) Start(ctx context.Context) error { return s.runHTTP2(ctx) }",
	"ABC", "ABCdef", "aB", "a1b2C3", "HTTPServer2Go", "\xff\xfeab\xffCD", "日本語Name", "x\u00e9Y", "ǅa",
	"  leading and trailing  ", "tab\tnew\nline", "İstanbul IŞIK",
}

func FuzzAppendSearchText(f *testing.F) {
	for _, s := range searchTextSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendSearchText(nil, s)), strings.Join(SearchWords(s), " "); got != want {
			t.Errorf("AppendSearchText(%q) = %q, want %q", s, got, want)
		}
	})
}
