package testrec

import (
	"strings"
	"testing"
)

// FuzzParseProfile: a coverage profile is written by the repository's own
// test binary, so it is outside input. Whatever it holds, parseProfile
// returns without panicking, and every block it accepts is one a
// declaration can hold: a .go file, lines from 1 on, in order.
func FuzzParseProfile(f *testing.F) {
	for _, seed := range []string{
		"mode: set\nexample.com/m/a.go:3.13,5.2 1 1\nexample.com/m/a.go:7.1,7.9 2 0\n",
		"mode: atomic\n",
		"mode: set\nC:\\x\\a.go:1.1,2.2 1 1\n",
		"mode: set\na.go:0.1,2.2 1 1\n",
		"",
		"mode: set\na.go:9.1,2.2 1 -1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		blocks, err := parseProfile(data)
		if err != nil {
			if blocks != nil {
				t.Fatalf("an error (%v) with %d blocks", err, len(blocks))
			}
			return
		}
		for _, b := range blocks {
			if !strings.HasSuffix(b.file, ".go") || b.from < 1 || b.to < b.from {
				t.Fatalf("accepted block %+v", b)
			}
		}
	})
}
