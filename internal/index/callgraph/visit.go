package callgraph

import "go/types"

// FuncName spells a function or method as Func.Name does
// ("example.com/p.T.M", "io.Writer.Write"), for packages that match
// names against the edges' (internal/index/effects).
func FuncName(obj *types.Func) string { return funcName(obj.Origin()) }
