package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

func envMap(env []string) map[string][]string {
	m := map[string][]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = append(m[k], v)
	}
	return m
}

func TestEnv(t *testing.T) {
	base := []string{"HOME=/home/x", "GOTOOLCHAIN=auto", "GOWORK=/elsewhere/go.work", "GOFLAGS=-mod=mod -tags=integration --mod=vendor", "GOPROXY=off"}
	for _, tc := range []struct {
		name            string
		unit            Unit
		gowork, goflags string
	}{
		{"module", Unit{Dir: "/r/m"}, "off", "-tags=integration -mod=readonly"},
		// A unit's Dir is a clean path of the platform (\r on Windows).
		{"workspace", Unit{Dir: filepath.FromSlash("/r"), Workspace: true}, filepath.Join("/r", "go.work"), "-tags=integration -mod=readonly"},
		{"vendor", Unit{Dir: "/r/m", Vendor: true}, "off", "-tags=integration -mod=vendor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := envMap(Env(base, tc.unit))
			want := map[string][]string{
				"HOME":        {"/home/x"},
				"GOPROXY":     {"off"},
				"GOTOOLCHAIN": {"local"},
				"GOWORK":      {tc.gowork},
				"GOFLAGS":     {tc.goflags},
			}
			for k, v := range want {
				if !slices.Equal(env[k], v) {
					t.Errorf("%s=%q, want %q", k, env[k], v)
				}
			}
		})
	}
	if got := envMap(Env(nil, Unit{}))["GOFLAGS"]; !slices.Equal(got, []string{"-mod=readonly"}) {
		t.Errorf("GOFLAGS with none set: %q", got)
	}
}

// The go command gets no network unless NetworkEnv is on: a GOPROXY or
// GOSUMDB the user set is replaced by off, once, and kept with the
// opt-in.
func TestEnvNetwork(t *testing.T) {
	base := []string{"GOPROXY=https://proxy.example,direct", "GOSUMDB=sum.golang.org"}
	for _, tc := range []struct {
		network, proxy, sumdb string
	}{
		{"", "off", "off"},
		{"1", "off", "off"}, // only "on" opts in
		{"on", "https://proxy.example,direct", "sum.golang.org"},
	} {
		t.Setenv(NetworkEnv, tc.network)
		env := envMap(Env(base, Unit{Dir: "/r"}))
		if !slices.Equal(env["GOPROXY"], []string{tc.proxy}) || !slices.Equal(env["GOSUMDB"], []string{tc.sumdb}) {
			t.Errorf("%s=%q: GOPROXY=%q GOSUMDB=%q, want %q and %q", NetworkEnv, tc.network, env["GOPROXY"], env["GOSUMDB"], tc.proxy, tc.sumdb)
		}
	}
}

func TestConfig(t *testing.T) {
	u := Unit{Dir: "/r", Patterns: []string{"./..."}}
	cfg := Config(u)
	if cfg.Mode != Mode || !cfg.Tests || cfg.Dir != "/r" || cfg.Logf != nil || cfg.Context != nil {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Mode&packages.NeedDeps != 0 {
		t.Error("Mode loads dependencies from source")
	}
	for _, need := range []packages.LoadMode{packages.NeedTypes, packages.NeedSyntax, packages.NeedTypesInfo, packages.NeedModule, packages.NeedCompiledGoFiles} {
		if cfg.Mode&need == 0 {
			t.Errorf("Mode lacks %v", need)
		}
	}
}

func TestLoadTestVariants(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod":      "module example.com/p\n\ngo 1.22\n",
		"p.go":        "package p\n\nfunc F() int { return 1 }\n",
		"p_test.go":   "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
		"x_test.go":   "package p_test\n\nimport \"example.com/p\"\n\nvar _ = p.F\n",
		"cmd/main.go": "package main\n\nfunc main() {}\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(context.Background(), plan.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pkgs {
		ids = append(ids, p.ID)
		if len(p.Errors) > 0 {
			t.Errorf("%s: %v", p.ID, p.Errors)
		}
		if !strings.HasSuffix(p.ID, ".test") && (p.Types == nil || p.TypesInfo == nil || len(p.Syntax) == 0) {
			t.Errorf("%s was not type-checked from source", p.ID)
		}
	}
	slices.Sort(ids)
	want := []string{"example.com/p", "example.com/p [example.com/p.test]", "example.com/p.test", "example.com/p/cmd", "example.com/p_test [example.com/p.test]"}
	if !slices.Equal(ids, want) {
		t.Errorf("loaded %q, want %q", ids, want)
	}
}

// The go command must not write to the user's tree, whatever GOFLAGS says,
// and must not fetch a toolchain a go.mod asks for.
func TestLoadIsReadOnly(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	gomod := "module example.com/ro\n\ngo 1.22\n"
	dir := writeTree(t, map[string]string{
		"go.mod": gomod,
		"ro.go":  "package ro\n\nimport _ \"golang.org/x/text/language\"\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(context.Background(), plan.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) == 0 {
		t.Errorf("want one package with an error for the missing requirement, got %v", pkgs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !bytes.Equal(b, []byte(gomod)) {
		t.Errorf("go.mod was rewritten:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
		t.Error("go.sum was written")
	}

	future := writeTree(t, map[string]string{
		"go.mod": "module example.com/future\n\ngo 1.999\n",
		"f.go":   "package future\n",
	})
	plan, err = Discover(future)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err = Load(context.Background(), plan.Units[0])
	if err == nil {
		// Some go/packages versions report the failure on a package.
		var msgs []string
		for _, p := range pkgs {
			for _, e := range p.Errors {
				msgs = append(msgs, e.Msg)
			}
		}
		if !strings.Contains(strings.Join(msgs, "\n"), "1.999") {
			t.Errorf("loading a module that needs go 1.999 succeeded: %v", msgs)
		}
	} else if !strings.Contains(err.Error(), "1.999") {
		t.Errorf("error does not name the version asked for: %v", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"c.go":   "package c\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, plan.Units[0]); err == nil {
		t.Error("Load with a cancelled context succeeded")
	}
}

// TestTestMains holds that a test binary's main is told by the variants
// compiled for it, and that a command named like a test binary without
// them, or a package under test itself, is not one.
func TestTestMains(t *testing.T) {
	p := &packages.Package{ID: "example.com/p", PkgPath: "example.com/p", Name: "p"}
	pt := &packages.Package{ID: "example.com/p [example.com/p.test]", PkgPath: "example.com/p", Name: "p"}
	main := &packages.Package{ID: "example.com/p.test", PkgPath: "example.com/p.test", Name: "main"}
	lone := &packages.Package{ID: "example.com/q.test", PkgPath: "example.com/q.test", Name: "main"}
	got := TestMains([]*packages.Package{p, nil, pt, main, lone})
	if len(got) != 1 || !got[main] {
		t.Errorf("TestMains = %v, want only %s", got, main.ID)
	}
}
