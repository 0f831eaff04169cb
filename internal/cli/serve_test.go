package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestServeRefusesNetworkWithoutToken: listening beyond loopback needs a
// bearer token, from the flag or the environment; loopback does not.
func TestServeRefusesNetworkWithoutToken(t *testing.T) {
	cases := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"[::1]:8080", "", true},
		{"localhost:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{"[::]:8080", "", false},
		{"192.168.1.5:8080", "", false},
		{"example.com:8080", "", false},
		{"0.0.0.0:8080", "s3cret", true},
	}
	for _, c := range cases {
		if err := checkExposure(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("checkExposure(%q, %q) = %v, want ok=%v", c.addr, c.token, err, c.ok)
		}
	}
	// Through the command: refused before anything is opened.
	for _, env := range []map[string]string{{}, {"SEXTANT_TOKEN": ""}} {
		var stderr bytes.Buffer
		e := env_(env, &stderr)
		err := runServe(context.Background(), e, []string{"--http", "0.0.0.0:0", "--db", t.TempDir() + "/db", t.TempDir()})
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), "token") {
			t.Errorf("serve --http 0.0.0.0:0 without a token: %v, want a usage error naming the token", err)
		}
	}
}

func env_(vars map[string]string, stderr *bytes.Buffer) env {
	return env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: stderr, getenv: func(k string) string { return vars[k] }}
}
