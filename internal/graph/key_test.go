package graph

import "testing"

// TestStableKey pins the key format: a key that changed silently would
// orphan every key an agent or a cursor holds.
func TestStableKey(t *testing.T) {
	id := Identity{Language: "go", Repository: "example.com/m", PackagePath: "example.com/m/p",
		QualifiedName: "Server.Start", Kind: KindMethod}
	k := StableKey(id)
	if !ValidKey(k) {
		t.Fatalf("StableKey = %q, not a valid key", k)
	}
	if k != StableKey(id) {
		t.Fatal("StableKey is not deterministic")
	}
	tests := []struct {
		name   string
		change func(*Identity)
	}{
		{"repository", func(i *Identity) { i.Repository = "example.com/other" }},
		{"package", func(i *Identity) { i.PackagePath = "example.com/m/q" }},
		{"name", func(i *Identity) { i.QualifiedName = "Server.Stop" }},
		{"kind", func(i *Identity) { i.Kind = KindInterfaceMethod }},
		{"variant", func(i *Identity) { i.Variant = "test" }},
		// The separator keeps field boundaries: moving a character from
		// one field to the next must change the key.
		{"boundary", func(i *Identity) { i.PackagePath, i.QualifiedName = "example.com/m/pS", "erver.Start" }},
	}
	for _, tt := range tests {
		other := id
		tt.change(&other)
		if StableKey(other) == k {
			t.Errorf("changing %s kept the key %s", tt.name, k)
		}
	}
}

func TestStableKeyGolden(t *testing.T) {
	got := StableKey(Identity{Language: "go", Repository: "r", PackagePath: "p", QualifiedName: "F", Kind: KindFunc})
	const want = "KA7HI7SQLU2FPCPDZQPUEODFWKSE2B7A"
	if got != want {
		t.Fatalf("StableKey format changed: got %s, want %s; bump KeyVersion if intended", got, want)
	}
}

func TestValidKey(t *testing.T) {
	for s, want := range map[string]bool{
		"ALSHUYAU2VSFTNPUXJVO7ONXSVJWNDF7":  true,
		"alshuyau2vsftnpuxjvo7onxsvjwndf7":  false,
		"ALSHUYAU2VSFTNPUXJVO7ONXSVJWNDF":   false,
		"ALSHUYAU2VSFTNPUXJVO7ONXSVJWNDF71": false,
		"ALSHUYAU2VSFTNPUXJVO7ONXSVJWNDF1":  false,
		"":                                  false,
	} {
		if got := ValidKey(s); got != want {
			t.Errorf("ValidKey(%q) = %v, want %v", s, got, want)
		}
	}
}
