package main

import (
	"context"
	"io"
)

type tokenResult struct{}
type latencyResult struct{}

func tokenCost(ctx context.Context, c *corpus, gopls string) (*tokenResult, error) { return nil, nil }
func latency(ctx context.Context, c *corpus, n int) (*latencyResult, error)       { return nil, nil }
func reportTokens(w io.Writer, t *tokenResult)                                     {}
func reportLatency(w io.Writer, l *latencyResult)                                  {}
