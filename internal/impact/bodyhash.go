package impact

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/sextant-dev/sextant/internal/graph"
)

// DeclHash is one declaration of a Go file with the hash get_impact
// compares with a test recording: of its signature's and body's tokens
// (comments and layout dropped), as a change compares them, so that a
// declaration whose hash is the one recorded is, for get_impact, the
// declaration the recorded tests ran.
type DeclHash struct {
	QualifiedName string
	Kind          graph.Kind
	Line, EndLine int
	Hash          string
}

// DeclHashes returns the functions, methods and package-level variables
// of a Go file's content with their hashes, in source order; init
// functions are left out (several share the name, and a change to one is
// answered by the static reach). A file that does not parse has none.
func DeclHashes(name string, content []byte) []DeclHash {
	fv := parseVersion(name, content)
	if fv.syntaxErr != "" {
		return nil
	}
	var out []DeclHash
	for i := range fv.decls {
		if d := &fv.decls[i]; hashed(d) {
			out = append(out, DeclHash{QualifiedName: d.QualifiedName, Kind: d.Kind, Line: d.Line, EndLine: d.EndLine, Hash: declHash(d)})
		}
	}
	return out
}

// hashed reports whether the recording keeps a hash of d: a function
// other than init, a method, or a package-level variable.
func hashed(d *versionDecl) bool {
	switch {
	case d.Kind == graph.KindFunc && d.QualifiedName == "init":
		return false
	case d.Kind == graph.KindFunc, d.Kind == graph.KindMethod, d.Kind == graph.KindVar && d.Receiver == "":
		return true
	}
	return false
}

// declHash is the hash of a declaration's signature and body tokens.
func declHash(d *versionDecl) string {
	h := sha256.New()
	h.Write([]byte(tokensOf(d.sig)))
	h.Write([]byte{1})
	h.Write([]byte(tokensOf(d.body)))
	return hex.EncodeToString(h.Sum(nil)[:16])
}
