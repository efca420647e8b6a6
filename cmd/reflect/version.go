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

// NewCmdVersion builds `reflect version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Example: `  reflect version
  reflect --version
  reflect version --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, goVersion, platform := versionInfo()
			if asJSON {
				return printJSON(f.IO.Out, map[string]string{"version": v, "go": goVersion, "platform": platform})
			}
			fmt.Fprintf(f.IO.Out, "reflect %s\n", versionString())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
