package sqlite

import (
	"fmt"
	"strconv"
	"strings"
)

// checkVersion refuses an SQLite library with the WAL-reset bug, which can
// corrupt a WAL database when a checkpoint races a writer. It is fixed in
// 3.51.3 and backported to 3.50.7 and 3.44.6; the bundled library
// (modernc.org/sqlite) is newer, so this guards a dependency change.
func checkVersion(v string) error {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) != 3 {
		return fmt.Errorf("sqlite version %q: want MAJOR.MINOR.PATCH", v)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("sqlite version %q: %w", v, err)
		}
		n[i] = x
	}
	ok := false
	switch {
	case n[0] != 3:
		ok = n[0] > 3
	case n[1] > 51:
		ok = true
	case n[1] == 51:
		ok = n[2] >= 3
	case n[1] == 50:
		ok = n[2] >= 7
	case n[1] == 44:
		ok = n[2] >= 6
	}
	if !ok {
		return fmt.Errorf("sqlite %s has the WAL-reset corruption bug (fixed in 3.51.3, 3.50.7 and 3.44.6); rebuild with a fixed modernc.org/sqlite", v)
	}
	return nil
}
