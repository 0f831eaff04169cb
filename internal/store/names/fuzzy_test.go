package names

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestSplitHumps(t *testing.T) {
	tests := []struct {
		in       string
		acronyms bool
		want     []string
	}{
		{"NewSrvMux", false, []string{"New", "Srv", "Mux"}},
		{"newServeMux", false, []string{"new", "Serve", "Mux"}},
		{"HTTPServer", false, []string{"H", "T", "T", "P", "Server"}},
		{"HTTPServer", true, []string{"HTTP", "Server"}},
		{"ServeHTTP", true, []string{"Serve", "HTTP"}},
		{"Base64Encoding", false, []string{"Base", "64", "Encoding"}},
		{"utf8string", false, []string{"utf", "8", "string"}},
		{"max_len__x", false, []string{"max", "len", "x"}},
		{"_", false, nil},
		{"", false, nil},
		{"ÉtéÀ", false, []string{"Été", "À"}},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range SplitHumps(tt.in, tt.acronyms) {
			got = append(got, string(h))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitHumps(%q, %v) = %q, want %q", tt.in, tt.acronyms, got, tt.want)
		}
	}
}

func TestFuzzyMatch(t *testing.T) {
	tests := []struct {
		query string
		match []string
		miss  []string
	}{
		{"NewSrvMux", []string{"NewServeMux", "newServeMux", "NewServerMuxer"}, []string{"NewServer", "NewMuxServe", "ServeMux"}},
		{"NSM", []string{"NewServeMux", "NoSuchMethod"}, []string{"NewMux", "Nsm"}},
		{"SrvMux", []string{"ServeMux", "NewServeMux"}, []string{"ServerMix"}},
		{"HttpSrv", []string{"HTTPServer", "HttpServer"}, []string{"HTServer"}},
		{"HSrv", []string{"HTTPServer", "HandleServer"}, []string{"ServeHTTP"}},
		{"srv", []string{"Server", "serve", "NewServer"}, []string{"Sorted", "rsv"}},
		{"srvhlp", nil, []string{"serveHelper"}},
		{"b64", []string{"Base64", "base64Encode"}, []string{"Base32"}},
		{"max_len", []string{"maxLen", "max_len", "MaxLength"}, []string{"minLen"}},
		{"", []string{"anything"}, nil},
	}
	for _, tt := range tests {
		m := newFuzzyMatcher(tt.query)
		for _, name := range tt.match {
			if !m.match(name) {
				t.Errorf("%q does not match %q", tt.query, name)
			}
		}
		for _, name := range tt.miss {
			if m.match(name) {
				t.Errorf("%q matches %q", tt.query, name)
			}
		}
		// The name table's pre-split humps answer as match does.
		var tab Table
		for _, name := range append(slices.Clone(tt.match), tt.miss...) {
			tab.Entries = append(tab.Entries, Entry{Name: name})
		}
		for i, h := range tab.fuzzyHumps() {
			if got, want := m.matchSplit(h), m.match(tab.Entries[i].Name); got != want {
				t.Errorf("%q on %q: matchSplit %v, match %v", tt.query, tab.Entries[i].Name, got, want)
			}
		}
	}
}

// firstSorted leaves the k smallest in order at the front, the same as a
// full sort under a total order.
func TestFirstSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		for _, k := range []int{0, 1, 2, n / 3, n} {
			k = min(k, n)
			s := make([]int, n)
			for i := range s {
				s[i] = rng.IntN(20)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			firstSorted(s, k, cmp.Compare[int])
			if !slices.Equal(s[:k], want[:k]) {
				t.Fatalf("n=%d k=%d: got %v, want %v", n, k, s[:k], want[:k])
			}
			rest := slices.Clone(s)
			slices.Sort(rest)
			if !slices.Equal(rest, want) {
				t.Fatalf("n=%d k=%d: not a permutation", n, k)
			}
		}
	}
}
