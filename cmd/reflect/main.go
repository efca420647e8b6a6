// Command reflect gives coding agents a long-term memory of learnings.
// This package only wires cobra commands to the domain packages: flags in,
// formatted output and exit codes out.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], SystemStreams()))
}
