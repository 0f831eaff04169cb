package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// ContentHash is File.Hash of a file with this content: the hex SHA-256,
// as every frontend records it and every freshness check compares it.
func ContentHash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// PackageHash is Package.Hash of a package of these files: the hex
// SHA-256 over their (path, hash) pairs in path order. It changes exactly
// when a file of the package is added, removed, renamed or edited, which
// is what re-deriving only the packages that changed needs to know.
func PackageHash(files []File) string {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range sorted {
		h.Write([]byte(f.Path))
		h.Write([]byte{0})
		h.Write([]byte(f.Hash))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
