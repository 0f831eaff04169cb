package graph

// UseCount says how much one symbol is used inside its own repository:
// the reference graph's ranking of what matters in a repository, which
// get_repository_overview orders entry points and hot spots by. Uses in
// _test.go files are not counted: a package's tests use everything.
type UseCount struct {
	Target   string // stable key of the symbol used
	Package  string // import path of the symbol's package
	Refs     int    // uses in the repository's non-test files
	External int    // of those, uses in files of packages other than Package
	Calls    int    // of Refs, the uses that call it
}
