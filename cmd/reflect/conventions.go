package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// Command groups of `reflect --help`: what a user runs every day apart from
// set-up and from the plumbing that hooks and agents run.
const (
	groupEveryday = "everyday"
	groupSetup    = "setup"
	groupPlumbing = "plumbing"
)

var commandGroups = map[string]string{
	"search": groupEveryday, "add": groupEveryday, "list": groupEveryday,
	"show": groupEveryday, "forget": groupEveryday, "edit": groupEveryday, "mark": groupEveryday, "review": groupEveryday, "log": groupEveryday, "graph": groupEveryday, "ui": groupEveryday,
	"status": groupEveryday, "sync": groupEveryday,
	"import": groupEveryday, "backfill": groupEveryday, "enrich": groupEveryday, "promote": groupEveryday, "demote": groupEveryday,
	"install": groupSetup, "uninstall": groupSetup, "doctor": groupSetup,
	"reindex": groupSetup, "config": groupSetup, "version": groupSetup,
	"completion": groupSetup, "help": groupSetup, "docs": groupSetup, "mcp": groupSetup,
	"hook": groupPlumbing, "recall": groupPlumbing, "drain": groupPlumbing,
	"queue": groupPlumbing, "statusline": groupPlumbing, "bench": groupPlumbing,
	"merge-learning": groupPlumbing,
}

// applyConventions gives the command tree what gh, git and rg users
// expect: grouped help, --version, a help command and a completion command
// whose mistakes are usage errors, and "did you mean" suggestions.
func applyConventions(root *cobra.Command, f *Factory) {
	root.AddGroup(
		&cobra.Group{ID: groupEveryday, Title: "Everyday commands:"},
		&cobra.Group{ID: groupSetup, Title: "Set-up and maintenance:"},
		&cobra.Group{ID: groupPlumbing, Title: "Plumbing (run by hooks, agents and benchmarks):"},
	)
	// --version by hand: cobra's own needs a version template, and any
	// text/template in the binary makes the linker keep every exported
	// method of every type: a bigger binary that every hook loads.
	root.Flags().BoolP("version", "v", false, "print the version")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if v, _ := cmd.Flags().GetBool("version"); v {
			fmt.Fprintf(f.IO.Out, "reflect %s\n", versionString())
			return nil
		}
		return cmd.Help()
	}
	root.SetHelpCommand(newHelpCmd(root))
	root.SetHelpCommandGroupID(groupSetup)
	root.InitDefaultCompletionCmd()
	root.SuggestionsMinimumDistance = 2
	for _, c := range root.Commands() {
		if g, ok := commandGroups[c.Name()]; ok && c.IsAvailableCommand() {
			c.GroupID = g
		}
		if c.Name() == "completion" {
			strictCompletion(c)
		}
		c.SuggestionsMinimumDistance = 2
	}
}

// newHelpCmd is `reflect help [COMMAND]`; an unknown topic is a usage
// error with suggestions (cobra's prints a line and exits 0).
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND|TOPIC]",
		Short: "Help about any command, or a topic such as 'environment'",
		Example: `  reflect help search
  reflect help environment`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			for _, sub := range root.Commands() {
				if (sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return unknownCommand(root, strings.Join(args, " "))
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// unknownCommand is the usage error for a command or help topic that does
// not exist, with cobra's suggestions (Levenshtein distance and prefixes).
func unknownCommand(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if s := parent.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError{fmt.Errorf("%s", msg)}
}

// strictCompletion makes `reflect completion` without a known shell a
// usage error, and gives it examples.
func strictCompletion(c *cobra.Command) {
	c.Example = `  source <(reflect completion bash)
  reflect completion zsh > "${fpath[1]}/_reflect"
  reflect completion fish > ~/.config/fish/completions/reflect.fish`
	c.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown shell %q: use bash, zsh, fish or powershell", args[0])
		}
		return nil
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		return usagef("completion needs a shell: bash, zsh, fish or powershell")
	}
	for _, sub := range c.Commands() {
		sub.Example = fmt.Sprintf("  reflect completion %s --help", sub.Name())
	}
}

// flagError rewrites pflag's errors without Go internals: `invalid
// argument "x" for "-n, --limit" flag: strconv.ParseInt: parsing "x":
// invalid syntax` becomes `invalid value "x" for -n, --limit: want a whole
// number`.
func flagError(_ *cobra.Command, err error) error {
	msg := err.Error()
	if m := invalidFlag.Get().FindStringSubmatch(msg); m != nil {
		want := "a valid value"
		switch {
		case strings.Contains(m[3], "ParseInt"), strings.Contains(m[3], "ParseUint"):
			want = "a whole number"
		case strings.Contains(m[3], "ParseFloat"):
			want = "a number"
		case strings.Contains(m[3], "ParseBool"):
			want = "true or false"
		case strings.Contains(m[3], "ParseDuration"), strings.Contains(m[3], "time: "):
			want = "a duration such as 30s or 5m"
		}
		if strings.Contains(m[3], "out of range") {
			want = "a smaller number"
		}
		return usagef("invalid value %q for %s: want %s", m[1], m[2], want)
	}
	return usageError{err}
}

var invalidFlag = lazyre.New(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// environmentTopic is `reflect help environment`: every variable reflect
// reads, in one place.
func environmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables reflect reads",
		Long: `Environment variables win over config.toml ('reflect config list' shows
which setting comes from where); config.toml wins over the defaults.

Directories
  REFLECT_STATE_DIR        machine-local state: queue, logs, config.toml
                           (default ~/.reflect)
  REFLECT_LEARNINGS_DIR    the knowledge base: documents/ and index/
                           (default ~/.learnings; config: paths.learnings_dir)

Hooks and recall
  REFLECT_DISABLE=1        every hook is a no-op (writers run with it set)
  REFLECT_RECALL_MAX       learnings injected per prompt (recall.max, 3)
  REFLECT_RECALL_CHARS     characters injected per prompt (recall.chars, 1500)
  REFLECT_RECALL_GATE      how readily a prompt gets learnings: strict, balanced
                           or eager (recall.gate, strict)

Drain (turning transcripts into learnings)
  REFLECT_WRITER           claude, codex, builtin, command or auto (drain.writer; default builtin)
  REFLECT_WRITER_COMMAND   the command writer's command line (drain.command)
  REFLECT_DRAIN_MAX_PER_RUN   entries per drain (drain.max_per_run, 3)
  REFLECT_DRAIN_DAILY_MAX  entries per day (drain.daily_max, 20)
  REFLECT_DRAIN_DAILY_USD  spend per day in USD (drain.daily_usd; default 1.00, none: no cap)
  REFLECT_DRAIN_TIMEOUT    time per writer run, e.g. 300s (drain.timeout)
  REFLECT_DRAIN_MAX_ATTEMPTS  failures before an entry is poisoned
                           (drain.max_attempts, 3)
  REFLECT_DRAIN_REVIEW     true: what the writer drafts waits for 'reflect
                           review' (drain.review; default true for an LLM
                           writer, false for the builtin one)
  Set for a command writer while it runs:
  REFLECT_CONDENSED_JSON   path of the condensed transcript (JSON)
  REFLECT_WRITER_PROMPT    path of the prompt the claude writer would get

Sync
  Set by 'reflect sync' for the merge driver git runs (reflect merge-learning):
  REFLECT_MERGE_LOG        file the driver records renamed and needs_review
                           learnings in
  REFLECT_MERGE_HOST       this machine's name, for conflict headings
  REFLECT_MERGE_THEIRS     the remote commit merged, and
  REFLECT_MERGE_BASES      the merge bases: their history names the other machine

Index and ranking
  REFLECT_EMBEDDER         hash, ollama, openai or none (index.embedder)
  REFLECT_HALF_LIFE_DAYS   recency half-life of ranking (index.half_life_days, 180)

Output
  NO_COLOR                 when set (to anything), no colour
  COLUMNS                  terminal width for cutting titles in 'reflect list'`,
		Example: `  reflect help environment
  REFLECT_LEARNINGS_DIR=/tmp/kb reflect list`,
	}
}

// versionString is what --version and `reflect version` print.
func versionString() string {
	v, goVersion, platform := versionInfo()
	return fmt.Sprintf("%s (%s, %s)", v, goVersion, platform)
}

// useColor decides colour for stdout: --color always or never wins; auto
// (the default) colours a terminal unless NO_COLOR is set or TERM is dumb.
// getenv is the factory's (Factory.Getenv): these are terminal
// conventions, read through the same seam as the configuration.
func useColor(mode string, s *Streams, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return s.OutTTY && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}
