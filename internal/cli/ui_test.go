package cli

import (
	"bytes"
	"context"
	"os"
	"runtime"
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

// TestUIOpenPage: --open hands the browser a private file that redirects
// to the address, so the token is on no command line.
func TestUIOpenPage(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no xdg-open, open or rundll32: the start fails, the page is made
	link := "http://127.0.0.1:1/?token=abc&x=<y>"
	page, err := openBrowser(link)
	if page == "" {
		t.Fatalf("no page (%v)", err)
	}
	defer os.Remove(page)
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the page is %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(page)
	if !strings.Contains(string(b), `url=http://127.0.0.1:1/?token=abc&amp;x=&lt;y&gt;"`) {
		t.Errorf("the page reads %s", b)
	}
}
