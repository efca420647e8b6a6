package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/money"
)

// askWriter settles, after `reflect install <agent>`, whether an LLM writer
// may turn sessions into learnings: it spends from the user's account, so
// it runs only when the user chose it. A writer already chosen (in
// config.toml or the environment) is left alone. On a terminal it asks
// once, default no, naming the writer, the caps and the command that
// changes the answer later, and writes the answer with the config setter
// (builtin for no, so the question is not asked again); otherwise it keeps
// the builtin writer and prints the one command that opts in.
func askWriter(f *Factory, agent string, asJSON bool) error {
	c, err := f.Config()
	if err != nil {
		// Installing works with a broken config.toml; this waits for it.
		fmt.Fprintf(f.IO.Err, "reflect: note: no writer chosen (%v); the builtin writer runs until you choose one\n", err)
		return nil
	}
	if c.Origin["drain.writer"] != "" {
		return nil
	}
	name, path := llmWriterFor(agent, f.lookPath())
	optIn := "reflect config set drain.writer " + name
	if path == "" {
		fmt.Fprintf(f.IO.Out, "writer: builtin (no LLM, nothing spent); with claude or codex installed, '%s' lets it write learnings\n", optIn)
		return nil
	}
	caps := spendCaps(c)
	if asJSON || !f.IO.InTTY || !f.IO.ErrTTY {
		w := f.IO.Out
		if asJSON {
			w = f.IO.Err // stdout holds the JSON
		}
		fmt.Fprintf(w, "writer: builtin (no LLM, nothing spent); to let %s write learnings from your sessions (it spends from your account; %s): %s\n", name, caps, optIn)
		return nil
	}
	fmt.Fprintf(f.IO.Err, `
reflect turns finished sessions into learnings. Its builtin writer does that
without an LLM and spends nothing. %s (%s) writes better learnings, but
each run spends from your account: %s.
Let %s write learnings? You can change this later: %s
[y/N] `, name, path, caps, name, optIn)
	answer, err := bufio.NewReader(f.IO.In).ReadString('\n')
	if err != nil && answer == "" {
		// No answer at all (end of input): nothing is recorded, so the
		// question comes back at the next install.
		fmt.Fprintf(f.IO.Err, "\nno answer: the builtin writer runs; to choose %s later: %s\n", name, optIn)
		return nil
	}
	choice := "builtin"
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		choice = name
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o700); err != nil {
		return err
	}
	if err := config.Set(c.File, "drain.writer", choice); err != nil {
		return err
	}
	if choice == name {
		fmt.Fprintf(f.IO.Out, "Set drain.writer = %s in %s: %s writes learnings, %s; to stop: reflect config set drain.writer builtin\n", name, c.File, name, caps)
		return nil
	}
	fmt.Fprintf(f.IO.Out, "Set drain.writer = builtin in %s: no LLM runs and nothing is spent; to change it: %s\n", c.File, optIn)
	return nil
}

// llmWriterFor is the LLM writer to offer with agent (the agent's own
// when it has one, codex with Codex, else claude; the next one on PATH
// when that is not) and its path, or an empty path when none is installed.
func llmWriterFor(agent string, lookPath func(string) (string, error)) (name, path string) {
	order := writer.AgentWriters()
	if i := slices.Index(order, agent); i > 0 {
		order = append([]string{agent}, slices.Delete(order, i, i+1)...)
	}
	for _, n := range order {
		if p, err := lookPath(n); err == nil {
			return n, p
		}
	}
	return order[0], ""
}

// spendCaps names the drain budgets in force, with their keys.
func spendCaps(c *config.Config) string {
	return spendCapsOf(c.Drain.DailyUSD, c.Drain.DailyMax, c.Drain.MaxPerRun)
}

// spendCapsOf names the budgets given, with their keys.
func spendCapsOf(dailyUSD float64, dailyMax, maxPerRun int) string {
	usd := "no daily spend cap (drain.daily_usd = 0)"
	if dailyUSD > 0 {
		usd = "at most " + money.USD(dailyUSD) + " a day (drain.daily_usd)"
	}
	return fmt.Sprintf("%s, %d runs a day (drain.daily_max), %d per drain (drain.max_per_run)", usd, dailyMax, maxPerRun)
}
