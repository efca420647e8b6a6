package main

import (
	"errors"
	"strconv"

	"github.com/spf13/cobra"
)

// uiBinary serves the web view. It is separate, as reflect-mcp is, so the
// web view's packages are not initialised by every hook (ARCHITECTURE §2).
const uiBinary = "reflect-ui"

var errNoUIBinary = errors.New("reflect ui needs the " + uiBinary + " binary next to reflect or on PATH; " +
	"'make install' installs it, or: go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/...@latest")

// UIOptions are the inputs of `reflect ui`.
type UIOptions struct {
	Port   int
	Listen string
	Open   bool
}

// NewCmdUI builds `reflect ui`; runF, when not nil, runs instead with the
// parsed options.
func NewCmdUI(f *Factory, runF func(*UIOptions) error) *cobra.Command {
	opts := &UIOptions{}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Browse the knowledge base, its graph and its costs in a local web view",
		Long: `ui serves a web view of the knowledge base on 127.0.0.1 and prints its
URL, with a random token, as the first line on stdout: search as you type
(the ranking and reasons of 'reflect search --explain'), each learning with
its cited files' freshness, entities, related learnings and git history
(edit its fields, or forget it), the entity graph, and activity (the queue,
drain runs, daily spend against the caps).

Every request needs the token (other local users can reach localhost
ports); the browser keeps it in a cookie after the first page. --listen
serves on another address, e.g. for a container, and warns. Stop it with
Ctrl-C. See docs/ui.md.`,
		Example: `  reflect ui --open
  reflect ui --port 8765
  reflect ui --listen 0.0.0.0:8765`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Port < 0 || opts.Port > 65535 {
				return usagef("--port must be between 0 and 65535")
			}
			if opts.Port != 0 && opts.Listen != "" {
				return usagef("give --port or --listen, not both")
			}
			if runF != nil {
				return runF(opts)
			}
			return execSibling(uiBinary, opts.args(), errNoUIBinary)
		},
	}
	cmd.Flags().IntVar(&opts.Port, "port", 0, "port on 127.0.0.1 (default: a free port)")
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "address to listen on instead of 127.0.0.1 (warns)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the URL in a browser")
	return cmd
}

// args are the flags reflect-ui is started with.
func (o *UIOptions) args() []string {
	var pass []string
	if o.Port != 0 {
		pass = append(pass, "--port", strconv.Itoa(o.Port))
	}
	if o.Listen != "" {
		pass = append(pass, "--listen", o.Listen)
	}
	if o.Open {
		pass = append(pass, "--open")
	}
	return pass
}
