// The release binary is linked statically (Makefile), which cuts a hook's
// start-up (measured in docs/benchmarks.md). A static glibc cannot load the
// NSS modules its resolver needs, so DNS always goes through Go's own
// resolver (only the ollama and openai embedders ever resolve a name).
// The package documentation is in doc.go.

//go:debug netdns=go
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], SystemStreams(), os.LookupEnv))
}
