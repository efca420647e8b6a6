// Command reflect gives coding agents a long-term memory of learnings.
// This package only wires cobra commands to the domain packages: flags in,
// formatted output and exit codes out.

// The release binary is linked statically (Makefile): the dynamic loader's
// work was a tenth of a hook's start-up. A static glibc cannot load the
// NSS modules its resolver needs, so DNS always goes through Go's own
// resolver (only the ollama and openai embedders ever resolve a name).
//
//go:debug netdns=go
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], SystemStreams()))
}
