package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// versionInfo returns the version (the module version of a `go install`
// when not set at build time), the Go version and the platform.
func versionInfo() (v, goVersion, platform string) {
	v = version
	if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return v, runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH
}

// VersionOptions are the inputs of `reflect version`.
type VersionOptions struct {
	IO   *Streams
	JSON bool
}

// NewCmdVersion builds `reflect version`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Example: `  reflect version
  reflect --version
  reflect version --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func versionRun(opts *VersionOptions) error {
	v, goVersion, platform := versionInfo()
	if opts.JSON {
		return printJSON(opts.IO.Out, map[string]string{"version": v, "go": goVersion, "platform": platform})
	}
	fmt.Fprintf(opts.IO.Out, "reflect %s\n", versionString())
	return nil
}
