// Command lspfake is the fake language server of internal/lsp/lspfake as
// a program of its own, for the end-to-end tests and the LSP benchmark:
// a server whose answers, delays, hangs, deaths and memory growth the
// files it is given choose.
package main

import "github.com/sextant-dev/sextant/internal/lsp/lspfake"

func main() { lspfake.Main() }
