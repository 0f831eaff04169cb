// Package pgtest gives tests a PostgreSQL database: the server named by
// $SEXTANT_TEST_POSTGRES (a connection URL), with a fresh schema per
// caller. Without the variable a test skips with a message saying how to
// run it; under CI (CI=true) its absence fails the test instead, so a CI
// job that lost its database cannot pass by skipping.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the variable that holds the test server's URL.
const EnvVar = "SEXTANT_TEST_POSTGRES"

// URL returns the test server's URL, or skips (fails under CI) when none
// is configured.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvVar)
	if u != "" {
		return u
	}
	msg := "PostgreSQL tests NOT RUN: set " + EnvVar + " to a connection URL " +
		"(postgres://user:password@127.0.0.1:5432/db?sslmode=disable); `. .ci/postgres.sh` starts one"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (required when CI=true)")
	}
	t.Skip("SKIP: " + msg)
	return ""
}

// Schema creates a schema with a random name on the test server, drops it
// (with everything in it) when the test ends, and returns a URL whose
// connections use it (search_path).
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	b := make([]byte, 6)
	rand.Read(b)
	name := "sextant_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("connecting to drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{name}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("dropping schema %s: %v", name, err)
		}
	})
	return WithSearchPath(t, base, name)
}

// WithSearchPath returns the URL u with its search_path set to schema.
func WithSearchPath(t testing.TB, u, schema string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatalf("%s is not a URL", EnvVar)
	}
	q := p.Query()
	q.Set("search_path", schema)
	p.RawQuery = q.Encode()
	return p.String()
}
