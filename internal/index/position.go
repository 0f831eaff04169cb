package index

import (
	"os"

	"github.com/sextant-dev/sextant/internal/position"
)

// siteFiles reads each file that call sites and effect causes point into
// once, and converts their byte columns to character columns with a table
// of line starts, so that the tens of thousands of sites of a large unit
// cost a lookup each rather than a scan from the start of their file.
type siteFiles map[string]*position.Lines

// charColumnAt is position.CharColumnAt on the content of the file named
// filename (columns unchanged when it cannot be read).
func (s siteFiles) charColumnAt(filename string, line, col int) int {
	l, ok := s[filename]
	if !ok {
		content, err := os.ReadFile(filename)
		if err != nil {
			content = nil
		}
		l = position.NewLines(content)
		s[filename] = l
	}
	return l.CharColumnAt(line, col)
}
