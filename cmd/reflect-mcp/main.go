// Command reflect-mcp is reflect's MCP server on stdio. Agents start it as
// `reflect mcp`, which hands over to this binary: the server links the MCP
// SDK, whose package initialisation would otherwise be paid by every hook
// process of the main binary (ARCHITECTURE §2). Build it with the same tag
// as reflect: go build -tags sqlite_fts5 ./cmd/reflect-mcp.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/mcpserver"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 {
		if args[0] == "--version" || args[0] == "version" {
			fmt.Println("reflect-mcp", version)
			return 0
		}
		fmt.Fprintf(os.Stderr, "reflect-mcp: takes no arguments (got %q); agents start it as 'reflect mcp'\n", args[0])
		return 2
	}
	c, err := config.Load(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reflect-mcp:", err)
		return 1
	}
	if err := mcpserver.Serve(context.Background(), c, version, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reflect-mcp:", err)
		return 1
	}
	return 0
}
