// Command sextant indexes Go code and answers questions about it over MCP
// and on the command line. The program lives in internal/cli.
package main

import (
	"os"

	"github.com/sextant-dev/sextant/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
