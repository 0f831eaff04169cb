package harness

import "testing"

func TestParseStatTicks(t *testing.T) {
	// A command name with a space and a parenthesis in it; utime 120,
	// stime 30, cutime 7, cstime 3.
	line := []byte("4242 (go (list) x) S 1 4242 4242 0 -1 4194560 2000 0 0 0 120 30 7 3 20 0 9 0 100 1000000 500 18446744073709551615\n")
	own, waited, ok := parseStatTicks(line)
	if !ok || own != 150 || own+waited != 160 {
		t.Errorf("parseStatTicks = %d, %d, %v; want 150 of its own and 160 with its waited-for children", own, waited, ok)
	}
	if _, _, ok := parseStatTicks([]byte("4242 (short) S 1")); ok {
		t.Errorf("a truncated line parsed")
	}
}
