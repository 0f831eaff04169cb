//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package fswatch

// maxWatched bounds the directories watched. inotify holds one watch per
// directory, which the kernel bounds itself (fs.inotify.max_user_watches:
// adding past it fails); ReadDirectoryChangesW holds a handle and a 4 KiB
// buffer per directory.
var maxWatched = 16384

func checkBudget(root string, dirs []string) error {
	if len(dirs) > maxWatched {
		return ErrTooMany
	}
	return nil
}
