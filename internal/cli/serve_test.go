package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
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

// TestServeHTTPLimitsRanged: the HTTP limits of serve, from flags or the
// environment, are range-checked before anything is opened, and the
// error names the setting and its range.
func TestServeHTTPLimitsRanged(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--max-sessions", "0"}, nil, "1 to 100000"},
		{[]string{"--max-sessions", "17592186044416"}, nil, "1 to 100000"},
		{[]string{"--max-sessions", "many"}, nil, "max-sessions"},
		{nil, map[string]string{"SEXTANT_MAX_SESSIONS": "-1"}, "SEXTANT_MAX_SESSIONS"},
		{[]string{"--max-sessions-per-client", "0"}, nil, "1 to 100000"},
		{[]string{"--max-sessions", "10", "--max-sessions-per-client", "11"}, nil, "at most --max-sessions"},
		{nil, map[string]string{"SEXTANT_MAX_SESSIONS_PER_CLIENT": "100001"}, "SEXTANT_MAX_SESSIONS_PER_CLIENT"},
		{[]string{"--session-idle", "1ms"}, nil, "10s to 24h"},
		{[]string{"--session-idle", "1000h"}, nil, "10s to 24h"},
		{nil, map[string]string{"SEXTANT_SESSION_IDLE": "soon"}, "SEXTANT_SESSION_IDLE"},
		{[]string{"--body-timeout", "0s"}, nil, "1s to 10m"},
		{nil, map[string]string{"SEXTANT_BODY_TIMEOUT": "11m"}, "SEXTANT_BODY_TIMEOUT"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		args := append([]string{"--http", "127.0.0.1:0", "--db", t.TempDir() + "/db"}, c.args...)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second) // a server that starts stops
		err := runServe(ctx, env_(c.env, &stderr), append(args, t.TempDir()))
		cancel()
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error()+stderr.String(), c.want) {
			t.Errorf("serve %v env %v: %v (stderr %.120q), want a usage error naming %q", c.args, c.env, err, stderr.String(), c.want)
		}
	}
}
