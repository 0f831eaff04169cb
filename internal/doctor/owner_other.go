//go:build !unix

package doctor

import "io/fs"

// ownerOf names fi's owner where the platform keeps it in ACLs that
// Sextant does not read.
func ownerOf(fs.FileInfo) string { return "owner per ACL" }
