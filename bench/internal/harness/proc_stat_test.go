package harness

import "testing"

func TestParseStatTicks(t *testing.T) {
	// A command name with a space and a parenthesis in it; utime 120,
	// stime 30, cutime 7, cstime 3.
	line := []byte("4242 (go (list) x) S 1 4242 4242 0 -1 4194560 2000 0 0 0 120 30 7 3 20 0 9 0 100 1000000 500 18446744073709551615\n")
	for _, c := range []struct {
		waited bool
		want   int64
	}{{false, 150}, {true, 160}} {
		got, ok := parseStatTicks(line, c.waited)
		if !ok || got != c.want {
			t.Errorf("parseStatTicks(waited %v) = %d, %v; want %d", c.waited, got, ok, c.want)
		}
	}
	if _, ok := parseStatTicks([]byte("4242 (short) S 1"), true); ok {
		t.Errorf("a truncated line parsed")
	}
}
