package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUIRefuses: the UI listens beyond loopback only with a token chosen
// for it, and refuses a token too short to be secret, before anything is
// opened.
func TestUIRefuses(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, nil, "token"},
		{[]string{"--addr", "[::]:0"}, nil, "token"},
		{[]string{"--addr", "192.168.1.5:0"}, map[string]string{"SEXTANT_TOKEN": "an MCP token is not the UI's"}, "token"},
		{[]string{"--token", "short"}, nil, "16 characters"},
		{[]string{"--addr", "nonsense"}, nil, "--addr"},
		{[]string{"--wait", "601"}, nil, "--wait"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		args := append(c.args, "--db", t.TempDir()+"/db", t.TempDir())
		err := runUI(context.Background(), env_(c.env, &stderr), args)
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ui %v: %v, want a usage error naming %s", c.args, err, c.want)
		}
	}
}
