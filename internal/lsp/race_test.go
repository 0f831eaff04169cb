//go:build race

package lsp_test

// The race detector reserves terabytes of address space, more than any
// address-space cap allows.
const raceEnabled = true
