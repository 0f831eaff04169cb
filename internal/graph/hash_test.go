package graph

import "testing"

// A package's hash follows its files' paths and contents, not the order
// a frontend lists them in.
func TestPackageHash(t *testing.T) {
	a := File{Path: "p/a.go", Hash: ContentHash([]byte("package p\n"))}
	b := File{Path: "p/b.go", Hash: ContentHash([]byte("package p // b\n"))}
	if PackageHash([]File{a, b}) != PackageHash([]File{b, a}) {
		t.Error("the hash depends on the files' order")
	}
	edited := b
	edited.Hash = ContentHash([]byte("package p // edited\n"))
	renamed := b
	renamed.Path = "p/c.go"
	for name, files := range map[string][]File{"edited": {a, edited}, "renamed": {a, renamed}, "removed": {a}} {
		if PackageHash(files) == PackageHash([]File{a, b}) {
			t.Errorf("%s: the hash did not change", name)
		}
	}
}
