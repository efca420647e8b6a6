package main

import (
	"context"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/kbsync"
)

// drainOptions translates the configuration into the drainer's options:
// drain reads neither the configuration nor the environment (ARCHITECTURE
// §2), so every setting it honours is copied here.
func drainOptions(c *config.Config) drain.Options {
	return drain.Options{
		StateDir: c.StateDir,
		// The same index the commands open, without their stderr notices:
		// a drain usually runs detached, and reports through its Report.
		OpenIndex: func(ctx context.Context) (*index.Index, error) {
			opts, err := index.SettingsOptions(index.Settings(c.Index), false)
			if err != nil {
				return nil, err
			}
			return index.Open(ctx, c.DocumentsDir(), c.IndexDir(), opts...)
		},
		MaxPerRun:   c.Drain.MaxPerRun,
		DailyMax:    c.Drain.DailyMax,
		DailyUSD:    c.Drain.DailyUSD,
		Timeout:     c.Drain.Timeout,
		MaxAttempts: c.Drain.MaxAttempts,
		Review:      c.Drain.Review,
		Choice:      writerChoice(c),
		// Near-duplicates a sync brought in are folded by the next drain.
		Pulled: kbsync.RecentlyPulled(c.StateDir),
	}
}

// writerChoice is the configured writer, with where each setting came from
// for `reflect doctor` and the drain report.
func writerChoice(c *config.Config) writer.Choice {
	return writer.Choice{
		Name:          c.Drain.Writer,
		Command:       c.Drain.Command,
		StateDir:      c.StateDir,
		Origin:        c.Origin["drain.writer"],
		CommandOrigin: c.Origin["drain.command"],
		ConfigFile:    c.File,
	}
}
