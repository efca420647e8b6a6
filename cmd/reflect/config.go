package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/internal/config"
)

// ConfigOptions are the inputs of `reflect config` and its subcommands.
type ConfigOptions struct {
	Action     string // path, list, get or set
	Key, Value string // get's and set's arguments
	JSON       bool
}

// NewCmdConfig builds `reflect config` and its subcommands; runF, when not
// nil, runs instead of any of them with the parsed options.
func NewCmdConfig(f *Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{}
	// seam records the subcommand's inputs and says whether runF took over.
	seam := func(action string, args []string) (bool, error) {
		opts.Action = action
		if len(args) > 0 {
			opts.Key = args[0]
		}
		if len(args) > 1 {
			opts.Value = args[1]
		}
		if runF != nil {
			return true, runF(opts)
		}
		return false, nil
	}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change settings (config.toml)",
		Long: `Config reads and writes $REFLECT_STATE_DIR/config.toml (default
~/.reflect/config.toml). Environment variables win over the file, and the
file over the defaults: 'reflect config list' shows each setting's effective
value and where it comes from. 'reflect help environment' lists the
variables. Keys of config.toml that reflect does not know are warned about
on stderr by every command, since a misspelt key is otherwise ignored.`,
		Example: `  reflect config list
  reflect config get drain.writer
  reflect config set recall.max 5
  reflect config path`,
		Args: noSubcommand,
		RunE: showHelp,
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	keyCompletion := func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return config.Keys(), cobra.ShellCompDirectiveNoFileComp
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the path of config.toml (which may not exist yet)",
		Example: `  reflect config path
  $EDITOR "$(reflect config path)"`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("path", args); done {
				return err
			}
			return runConfigPath(f, opts)
		},
	}, &cobra.Command{
		Use:   "list",
		Short: "List every setting with its effective value and its source",
		Example: `  reflect config list
  reflect config list --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("list", args); done {
				return err
			}
			return runConfigList(f, opts)
		},
	}, &cobra.Command{
		Use:   "get KEY",
		Short: "Print the effective value of one setting",
		Example: `  reflect config get drain.writer
  reflect config get --json recall.max`,
		Args:              exactArgs(1, "one key"),
		ValidArgsFunction: keyCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("get", args); done {
				return err
			}
			return runConfigGet(f, opts)
		},
	}, &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Write one setting to config.toml, keeping the rest of the file",
		Example: `  reflect config set recall.max 5
  reflect config set drain.writer builtin
  reflect config set drain.timeout 5m`,
		Args:              exactArgs(2, "a key and a value"),
		ValidArgsFunction: keyCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("set", args); done {
				return err
			}
			return runConfigSet(f, opts)
		},
	})
	return cmd
}

// envSource returns the variable of a setting's source "env REFLECT_X",
// or "" when it does not come from the environment.
func envSource(source string) string {
	env, ok := strings.CutPrefix(source, "env ")
	if !ok {
		return ""
	}
	return env
}

// effective replaces the value of each setting left at its default whose
// stored zero means "let the consumer decide" (drain.writer,
// index.vector_weight, index.embedder_dim, the remote embedder's model,
// URL and key variable) with what that consumer does with it, so list and
// get show the value in force, not "" or 0. The defaults are read from the
// packages that apply them, never restated.
func effective(c *config.Config, settings []config.Setting) []config.Setting {
	provider := strings.ToLower(strings.TrimSpace(c.Index.Embedder))
	remote := provider == embed.ProviderOllama || provider == embed.ProviderOpenAI
	defaults := map[string]string{
		"drain.writer": (&writer.Builtin{}).Name(),
	}
	switch provider {
	case "", embed.ProviderHash:
		defaults["index.vector_weight"] = strconv.FormatFloat(index.HashVectorWeight, 'f', -1, 64)
		defaults["index.embedder_dim"] = strconv.Itoa(embed.DefaultHashDim)
	case "none":
		defaults["index.vector_weight"] = "0 (no vector signal)"
	}
	if remote {
		defaults["index.vector_weight"] = strconv.FormatFloat(index.ModelVectorWeight, 'f', -1, 64)
		defaults["index.embedder_dim"] = "the model's (learned from its first answer)"
		defaults["index.embedder_model"], defaults["index.embedder_url"] = embed.DefaultOllamaModel, embed.DefaultOllamaURL
		if provider == embed.ProviderOpenAI {
			defaults["index.embedder_model"], defaults["index.embedder_url"] = embed.DefaultOpenAIModel, embed.DefaultOpenAIURL
			defaults["index.embedder_api_key_env"] = embed.DefaultAPIKeyEnv
		}
	}
	out := slices.Clone(settings)
	for i, s := range out {
		if v, ok := defaults[s.Key]; ok && s.Source == "default" {
			out[i].Value = v
		}
	}
	return out
}

// runConfigPath prints where config.toml is.
func runConfigPath(f *Factory, opts *ConfigOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]string{"path": c.File})
	}
	fmt.Fprintln(f.IO.Out, c.File)
	return nil
}

// runConfigList prints every setting with its value and source.
func runConfigList(f *Factory, opts *ConfigOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	settings := effective(c, c.Settings())
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"file": c.File, "settings": settings, "unknown": nonNil(c.Unknown)})
	}
	width := 0
	for _, s := range settings {
		width = max(width, len(s.Key))
	}
	for _, s := range settings {
		v := s.Value
		if v == "" {
			v = `""`
		}
		fmt.Fprintf(f.IO.Out, "%-*s  %s  (%s)\n", width, s.Key, v, s.Source)
	}
	return nil
}

// runConfigGet prints one setting.
func runConfigGet(f *Factory, opts *ConfigOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	s, err := c.Get(opts.Key)
	if errors.Is(err, config.ErrUnknownKey) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	s = effective(c, []config.Setting{s})[0]
	if opts.JSON {
		return printJSON(f.IO.Out, s)
	}
	fmt.Fprintln(f.IO.Out, s.Value)
	return nil
}

// runConfigSet writes one setting to config.toml.
func runConfigSet(f *Factory, opts *ConfigOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o700); err != nil {
		return err
	}
	if err := config.Set(c.File, opts.Key, opts.Value); err != nil {
		if errors.Is(err, config.ErrUnknownKey) || !strings.Contains(err.Error(), "would not parse") {
			return usageError{err}
		}
		return err
	}
	// Say so when the environment overrides what was just written.
	s, _ := c.Get(opts.Key)
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"key": s.Key, "value": opts.Value, "file": c.File, "overridden_by": envSource(s.Source)})
	}
	fmt.Fprintf(f.IO.Out, "Set %s = %s in %s\n", s.Key, opts.Value, c.File)
	if env := envSource(s.Source); env != "" {
		fmt.Fprintf(f.IO.Err, "reflect: note: %s is set and wins over config.toml\n", env)
	}
	return nil
}
