package index

// SetEdgeRound sets edgeRound for a test and returns the function that
// puts it back.
func SetEdgeRound(n int) (restore func()) {
	prev := edgeRound
	edgeRound = n
	return func() { edgeRound = prev }
}
