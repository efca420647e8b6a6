// The release binary is linked statically (Makefile), so a hook does not
// pay the dynamic loader at every start. A static glibc cannot load the
// NSS modules its resolver needs, so DNS always goes through Go's own
// resolver (only the ollama and openai embedders ever resolve a name).
// The package documentation is in doc.go.

//go:debug netdns=go
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], SystemStreams(), os.LookupEnv))
}
