package graph

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// KeyVersion is the version of the stable-key format. Bump it when the
// identity that goes into a key changes; keys of different versions never
// collide because the version is hashed in.
const KeyVersion = "1"

// Identity is the canonical identity of a symbol: everything that names it
// and nothing that places it, so moving code keeps its key.
type Identity struct {
	Language      string // "go"
	Repository    string
	PackagePath   string
	QualifiedName string
	Kind          Kind
	Variant       string // "" for ordinary code, "test" for code of _test.go files
}

// String is the canonical text hashed into the key, fields separated by a
// byte that cannot occur in any of them.
func (id Identity) String() string {
	return strings.Join([]string{KeyVersion, id.Language, id.Repository,
		id.PackagePath, id.QualifiedName, string(id.Kind), id.Variant}, "\x00")
}

var keyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// StableKey returns the key of the symbol with this identity: 32 base32
// characters (160 bits of SHA-256).
func StableKey(id Identity) string {
	sum := sha256.Sum256([]byte(id.String()))
	return keyEncoding.EncodeToString(sum[:20])
}

// PackageKeys returns the keys the symbol of a Go package (its package
// clause) of each import path can have in repository repo: of ordinary
// code, and of test code, which a package of test files alone has. The
// store says which exist.
func PackageKeys(repo string, paths []string) []string {
	keys := make([]string, 0, 2*len(paths))
	for _, p := range paths {
		for _, variant := range []string{"", "test"} {
			keys = append(keys, StableKey(Identity{Language: "go", Repository: repo,
				PackagePath: p, QualifiedName: p, Kind: KindPackage, Variant: variant}))
		}
	}
	return keys
}

// ValidKey reports whether s has the shape of a stable key.
func ValidKey(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}
