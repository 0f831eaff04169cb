package graph

import (
	"slices"
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
