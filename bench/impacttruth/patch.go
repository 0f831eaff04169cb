package impacttruth

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BodyPatch writes a unified diff that changes the body of each of decls
// (functions of the module in dir) without changing its signature: an
// empty block statement after the line that opens the body. The diff is
// not applied; get_impact reads it against the disk as a change to do.
func BodyPatch(dir string, decls []Decl) (string, error) {
	byFile := map[string][]int{}
	for _, d := range decls {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d.Path)))
		if err != nil {
			return "", err
		}
		lines := strings.Split(string(data), "\n")
		at := 0
		for l := d.StartLine; l <= d.EndLine && l <= len(lines); l++ {
			if strings.HasSuffix(strings.TrimSpace(lines[l-1]), "{") {
				at = l
				break
			}
		}
		if at == 0 || at == d.EndLine {
			continue // a one-line body: leave it
		}
		byFile[d.Path] = append(byFile[d.Path], at)
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		ats := byFile[f]
		sort.Ints(ats)
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", f, f)
		added := 0
		for _, at := range ats {
			fmt.Fprintf(&b, "@@ -%d,0 +%d @@\n+\t{}\n", at, at+added+1)
			added++
		}
	}
	return b.String(), nil
}
