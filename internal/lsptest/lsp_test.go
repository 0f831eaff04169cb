package lsptest

import "testing"

func TestColumns(t *testing.T) {
	line := "a := \"é😀x\""
	// x is the 9th character: a, space, :, =, space, ", é, 😀, x.
	if got := UTF16Column(line, 9); got != 9 {
		t.Errorf("UTF16Column = %d, want 9", got)
	}
	if got := CharColumn(line, 9); got != 9 {
		t.Errorf("CharColumn = %d, want 9", got)
	}
	if got := ByteToCharColumn(line, len("a := \"é😀")+1); got != 9 {
		t.Errorf("ByteToCharColumn = %d, want 9", got)
	}
}
