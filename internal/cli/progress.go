package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/sextant-dev/sextant/internal/query"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressPrinter shows indexing progress on stderr: a bar redrawn in
// place on a terminal, plain lines (one per phase, and every tenth of the
// work) otherwise, so logs stay readable.
func progressPrinter(e env) func(query.Progress) {
	tty := isTerminal(e.stderr)
	var (
		mu        sync.Mutex
		lastPhase string
		lastTenth = -1
		drawn     bool
	)
	return func(p query.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if tty {
			if p.Phase == "done" {
				if drawn {
					fmt.Fprint(e.stderr, "\r\033[K")
				}
				return
			}
			const width = 30
			filled := 0
			if p.Total > 0 {
				filled = width * p.Done / p.Total
			}
			fmt.Fprintf(e.stderr, "\r\033[K%-8s [%s%s] %d/%d %s", p.Phase,
				strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.Done, p.Total, shorten(p.Message, 40))
			drawn = true
			return
		}
		tenth := -1
		if p.Total > 0 {
			tenth = 10 * p.Done / p.Total
		}
		if p.Phase == lastPhase && tenth == lastTenth {
			return
		}
		lastPhase, lastTenth = p.Phase, tenth
		if p.Phase == "done" {
			return
		}
		if p.Total > 0 {
			fmt.Fprintf(e.stderr, "%s: %s %d/%d\n", p.Root, p.Phase, p.Done, p.Total)
		} else {
			fmt.Fprintf(e.stderr, "%s: %s\n", p.Root, p.Phase)
		}
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}
