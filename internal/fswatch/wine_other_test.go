//go:build !windows

package fswatch

func underWine() bool { return false }
