package git

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// blobSHA1 is git's object id of a blob in a SHA-1 repository: the SHA-1
// of "blob <size>\x00" and the content.
func blobSHA1(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// BlobIDFor is the object id git gives a file of this content, in the hash
// of the object id like (SHA-256 when it is 64 characters long), so that a
// caller can tell which files on disk differ from a commit without asking
// git to read the working tree.
func BlobIDFor(content []byte, like string) string {
	if len(like) == 64 {
		h := sha256.New()
		h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
		h.Write(content)
		return hex.EncodeToString(h.Sum(nil))
	}
	return blobSHA1(content)
}
