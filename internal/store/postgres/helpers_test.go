package postgres_test

import (
	"net/url"
	"testing"
)

// replacePassword returns the URL u with password pw.
func replacePassword(t *testing.T, u, pw string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	name := "sextant"
	if p.User != nil {
		name = p.User.Username()
	}
	p.User = url.UserPassword(name, pw)
	return p.String()
}
