package graph

// Dedupe returns list without its repeats, in the order first met: the
// key lists the Reader's by-key calls are given, and the names an answer
// lists once each.
func Dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
