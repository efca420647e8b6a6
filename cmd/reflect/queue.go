package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/queue"
)

// QueueOptions are the inputs of `reflect queue` and its subcommands.
type QueueOptions struct {
	Action string // list, retry or drop
	ID     string // retry's and drop's entry, as given
	JSON   bool
}

// NewCmdQueue builds `reflect queue` (list by default) and its
// subcommands; runF, when not nil, runs instead of any of them with the
// parsed options.
func NewCmdQueue(f *Factory, runF func(*QueueOptions) error) *cobra.Command {
	opts := &QueueOptions{}
	// seam records the subcommand's inputs and says whether runF took over.
	seam := func(action string, args []string) (bool, error) {
		opts.Action = action
		if len(args) > 0 {
			opts.ID = args[0]
		}
		if runF != nil {
			return true, runF(opts)
		}
		return false, nil
	}
	list := func(cmd *cobra.Command, args []string) error {
		if done, err := seam("list", nil); done {
			return err
		}
		return runQueueList(f, opts)
	}
	cmd := &cobra.Command{
		Use:   "queue [list|retry ID|drop ID]",
		Short: "Show or manage transcripts waiting to be reflected",
		Long: `Queue lists the transcripts waiting for 'reflect drain', and the poisoned
ones that failed too often. An ID may be the full id, a unique prefix, or
its random hex tail (or the first 4+ characters of that tail).`,
		Example: `  reflect queue
  reflect queue --json
  reflect queue retry 1a2b3c4d5e6f`,
		Args: noSubcommand,
		RunE: list,
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List queued transcripts, oldest first",
		Example: `  reflect queue list
  reflect queue list --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: list,
	}, &cobra.Command{
		Use:   "retry ID",
		Short: "Re-arm a waiting or poisoned entry so the next drain takes it",
		Example: `  reflect queue retry 1a2b3c4d5e6f
  reflect queue retry q-20261122T104200`,
		Args:              exactArgs(1, "one queue entry id (see reflect queue list)"),
		ValidArgsFunction: completeQueueIDs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("retry", args); done {
				return err
			}
			return runQueueRetry(f, opts)
		},
	}, &cobra.Command{
		Use:   "drop ID",
		Short: "Remove one entry from the queue",
		Example: `  reflect queue drop 1a2b3c4d5e6f
  reflect queue drop --json q-20261122T104200-1a2b3c4d5e6f`,
		Args:              exactArgs(1, "one queue entry id (see reflect queue list)"),
		ValidArgsFunction: completeQueueIDs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := seam("drop", args); done {
				return err
			}
			return runQueueDrop(f, opts)
		},
	})
	return cmd
}

// runQueueList prints the waiting, poisoned and malformed entries.
func runQueueList(f *Factory, opts *QueueOptions) error {
	q, err := f.Queue()
	if err != nil {
		return err
	}
	recs, bad, err := q.List()
	if err != nil {
		return err
	}
	poisoned, err := q.ListPoisoned()
	if err != nil {
		return err
	}
	movedAside, err := q.ListMalformed()
	if err != nil {
		return err
	}
	spilled := q.ListSpilled()
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{
			"entries": nonNil(recs), "malformed": nonNil(bad),
			"poisoned": nonNil(poisoned), "moved_aside": nonNil(movedAside),
			"spilled": nonNil(spilled),
		})
	}
	for _, p := range poisoned {
		fmt.Fprintf(f.IO.Out, "%s  poisoned after %s: %s (reflect queue retry %s)\n", p.Record.ID, countOf(p.Attempts, "attempt"), oneLine(p.Reason), p.Record.ID)
	}
	if len(movedAside) > 0 {
		fmt.Fprintf(f.IO.Err, "reflect: %s moved to malformed.jsonl in the state directory\n", plural(len(movedAside), "1 malformed queue line was", fmt.Sprintf("%d malformed queue lines were", len(movedAside))))
	}
	if len(recs) == 0 && len(bad) == 0 && len(spilled) == 0 {
		fmt.Fprintln(f.IO.Out, "The queue is empty.")
		return nil
	}
	for _, r := range recs {
		fmt.Fprintf(f.IO.Out, "%s  %s  %-6s %-16s %s  attempts=%d\n", r.ID, r.QueuedAt.Local().Format("2006-01-02 15:04"), r.Harness, r.Trigger, r.TranscriptPath, r.Attempts)
	}
	for _, r := range spilled {
		fmt.Fprintf(f.IO.Out, "%s  %s  %-6s %-16s %s  spilled (joins the queue at the next enqueue or drain)\n", r.ID, r.QueuedAt.Local().Format("2006-01-02 15:04"), r.Harness, r.Trigger, r.TranscriptPath)
	}
	for _, b := range bad {
		fmt.Fprintf(f.IO.Err, "reflect: queue line %d is malformed (%s); it is kept for inspection\n", b.Line, b.Reason)
	}
	return nil
}

// runQueueRetry re-arms one entry.
func runQueueRetry(f *Factory, opts *QueueOptions) error {
	q, err := f.Queue()
	if err != nil {
		return err
	}
	id, err := q.Resolve(opts.ID)
	if err == nil {
		err = q.Requeue(id)
	}
	if err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			return fmt.Errorf("no waiting or poisoned entry %q; see 'reflect queue list'", opts.ID)
		}
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"id": id, "requeued": true})
	}
	fmt.Fprintf(f.IO.Out, "Re-armed %s; the next drain will take it.\n", id)
	return nil
}

// runQueueDrop removes one entry.
func runQueueDrop(f *Factory, opts *QueueOptions) error {
	q, err := f.Queue()
	if err != nil {
		return err
	}
	id, err := q.Resolve(opts.ID)
	if err == nil {
		err = q.Drop(id)
	}
	if err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			return fmt.Errorf("no queue entry %q; see 'reflect queue list'", opts.ID)
		}
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"id": id, "dropped": true})
	}
	fmt.Fprintf(f.IO.Out, "Dropped %s.\n", id)
	return nil
}

// nonNil makes empty lists print as [] rather than null in JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
