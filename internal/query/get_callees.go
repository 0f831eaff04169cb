package query

import "context"

// GetCallees walks the call graph towards the callees of a function.
func GetCallees(ctx context.Context, s *Service, in CallGraphInput, progress func(Progress)) (*CallGraphOutput, error) {
	return callGraph(ctx, s, in, progress, false)
}
