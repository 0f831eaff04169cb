package query

import "context"

// GetCallers walks the call graph towards the callers of a function.
func GetCallers(ctx context.Context, s *Service, in CallGraphInput, progress func(Progress)) (*CallGraphOutput, error) {
	return callGraph(ctx, s, in, progress, true)
}
