//go:build unix

package doctor

import (
	"fmt"
	"io/fs"
	"os/user"
	"strconv"
	"syscall"
)

// ownerOf names fi's owner: "owner NAME (uid N)".
func ownerOf(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "owner unknown"
	}
	uid := strconv.FormatUint(uint64(st.Uid), 10)
	if u, err := user.LookupId(uid); err == nil {
		return fmt.Sprintf("owner %s (uid %s)", u.Username, uid)
	}
	return "owner uid " + uid
}
