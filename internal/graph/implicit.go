package graph

import "strings"

// A use of a method declared outside the graph (io.Writer.Write,
// error.Error) counts as a reference to the methods of its package that
// correspond to it through interface satisfaction (a Write method of a
// type that is an io.Writer), as gopls counts it, but only for those
// methods themselves: not for the methods related to them in turn, whose
// references a query of theirs also reads. Such a reference is stored
// under ImplicitTarget of the method's key rather than the key, so that
// a query reads it only when it asks for that method's own implicit
// uses.

// implicitSuffix cannot end a stable key, which is base32.
const implicitSuffix = "~implicit"

// ImplicitTarget is the Ref.Target of the implicit uses of the symbol
// with this key.
func ImplicitTarget(key string) string { return key + implicitSuffix }

// ImplicitOf returns the key an implicit target stands for, and whether
// target is one.
func ImplicitOf(target string) (string, bool) { return strings.CutSuffix(target, implicitSuffix) }
