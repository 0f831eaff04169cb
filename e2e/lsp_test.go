package e2e_test

import (
	"testing"

	"github.com/sextant-dev/sextant/internal/lsptest"
)

// lsp adapts the shared minimal LSP client (internal/lsptest, also used by
// the benchmarks) to a test: start failures fail the test, and the server
// is shut down when the test ends.
type lsp struct{ *lsptest.Client }

type (
	lspPosition = lsptest.Position
	lspLocation = lsptest.Location
)

// startLSP starts the language server bin in root and initializes it.
func startLSP(t *testing.T, bin string, root string, args ...string) *lsp {
	t.Helper()
	c, err := lsptest.Start(bin, root, args...)
	if err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(c.Close)
	return &lsp{c}
}

func (c *lsp) call(method string, params, result any) error { return c.Call(method, params, result) }

var (
	fileURI          = lsptest.FileURI
	uriPath          = lsptest.URIPath
	utf16Column      = lsptest.UTF16Column
	charColumn       = lsptest.CharColumn
	byteToCharColumn = lsptest.ByteToCharColumn
)
