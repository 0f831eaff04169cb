//go:build !linux

package fswatch

var queues = map[string]newQueueFunc{"barrier": newBarrier}
