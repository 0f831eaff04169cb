//go:build !linux

package fswatch

// newQueue off Linux is fsnotify with a barrier: see the package comment.
var newQueue newQueueFunc = newBarrier
