package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// EditOptions are the inputs of `reflect edit`.
type EditOptions struct {
	Ref  string
	JSON bool
}

// editErrorPrefix starts the lines edit puts above the document when it
// opens it again after a failed check; they are removed before the next
// check, as git commit and kubectl edit do with theirs.
const editErrorPrefix = "# reflect: "

// NewCmdEdit builds `reflect edit`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdEdit(f *Factory, runF func(*EditOptions) error) *cobra.Command {
	opts := &EditOptions{}
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Edit a learning in $VISUAL or $EDITOR, checked before it is saved",
		Long: `Edit opens a copy of the learning in $VISUAL (else $EDITOR, else vi), as
git commit and kubectl edit do. When the editor exits, the copy is checked:
its frontmatter must parse, its required fields hold valid values, and its
id must not change. A valid copy is redacted, saved over the learning and
indexed at once; its updated time is set to now.

When the check fails on a terminal, the editor opens again with the error
at the top; save the copy unchanged to give up. Elsewhere (a script) edit
refuses. Either way the learning stays as it was, and your edited copy is
kept in the state directory (edit/ID.md) and named, so nothing is lost.
Saving the copy unchanged edits nothing.

Removing 'feedback:' clears the learning's marks; adding 'supersedes: ID'
marks that learning superseded by this one.`,
		Example: `  reflect edit 3f9a1c
  VISUAL="code --wait" reflect edit lrn-oauth-state`,
		Args:              exactArgs(1, "one learning id"),
		ValidArgsFunction: completeLearningIDs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(opts)
			}
			return editRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func editRun(cmd *cobra.Command, f *Factory, opts *EditOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	id, err := f.resolveLearning(opts.Ref)
	if err != nil {
		return err
	}
	st := store.Open(c.DocumentsDir())
	// The store's bounded reader: no symbolic link, FIFO or oversize file
	// is copied out to the editor.
	orig, err := st.ReadRaw(id)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return learningRefError(opts.Ref, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", id, err)
	}
	dir := filepath.Join(c.StateDir, "edit")
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return err
	}
	copyPath := filepath.Join(dir, fsutil.SafeName(id)+".md")
	if err := fsutil.WriteAtomic(copyPath, orig, fsutil.FilePerm); err != nil {
		return err
	}
	editor := f.Getenv("VISUAL")
	if editor == "" {
		editor = f.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	var last []byte // the copy that last failed the check
	for {
		if err := runEditor(f, editor, copyPath); err != nil {
			return fmt.Errorf("%w\nthe learning is unchanged; your copy is %s", err, copyPath)
		}
		data, err := fsutil.ReadRegular(copyPath, store.MaxDocumentSize+1)
		if err != nil {
			return err
		}
		var check error
		if len(data) > store.MaxDocumentSize {
			check = fmt.Errorf("larger than %d bytes; a learning should be a few paragraphs", store.MaxDocumentSize)
		}
		data = stripEditErrors(data)
		switch {
		case bytes.Equal(data, orig):
			_ = os.Remove(copyPath)
			fmt.Fprintf(f.IO.Err, "Edit cancelled: no changes to %s.\n", id)
			return nil
		case last != nil && bytes.Equal(data, last):
			// Saved unchanged after an error: the user gave up.
			return fmt.Errorf("not saved: the copy still fails the check\nthe learning is unchanged; your copy is %s", copyPath)
		}
		if check == nil {
			ix, err := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
			if err != nil {
				return fmt.Errorf("%w\nthe learning is unchanged; your copy is %s", err, copyPath)
			}
			res, err := knowledge.New(ix).Edit(cmd.Context(), id, data, time.Now())
			ix.Close()
			if res.Path != "" {
				// Written: whatever the index said, the copy is spent.
				_ = os.Remove(copyPath)
				reportRedacted(f.IO.Err, &AddOptions{Source: copyPath}, res.Redacted)
				if err := f.notIndexedYet(err, "saved "+res.Path+", not indexed yet"); err != nil {
					return err
				}
				if opts.JSON {
					return printJSON(f.IO.Out, res)
				}
				fmt.Fprintf(f.IO.Out, "Updated %s\n  %s\n  %s\n", id, res.Path, describeChanges(res.Changes))
				switch {
				case res.SupersedesNamed != "":
					fmt.Fprintf(f.IO.Out, "  %s is now superseded by it (%s, which it names, was already superseded: it continues that chain)\n", res.Supersedes, res.SupersedesNamed)
				case res.Supersedes != "":
					fmt.Fprintf(f.IO.Out, "  %s is now superseded by it\n", res.Supersedes)
				}
				return nil
			}
			check = err
		}
		if !f.IO.InTTY {
			return fmt.Errorf("not saved: %v\nthe learning is unchanged; your edited copy is %s", check, copyPath)
		}
		last = data
		if err := fsutil.WriteAtomic(copyPath, withEditError(data, check), fsutil.FilePerm); err != nil {
			return err
		}
	}
}

// runEditor runs the user's editor on path as git does: through the shell,
// so VISUAL="code --wait" works, with the terminal's streams.
func runEditor(f *Factory, editor, path string) error {
	c := exec.Command("sh", "-c", editor+` "$@"`, editor, path)
	c.Stdin, c.Stdout, c.Stderr = f.IO.In, f.IO.Out, f.IO.Err
	if err := c.Run(); err != nil {
		return fmt.Errorf("editor %q failed: %w", editor, err)
	}
	return nil
}

// withEditError puts the check's error above the document as comment lines.
func withEditError(data []byte, err error) []byte {
	var b bytes.Buffer
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	lines = append(lines, "fix the document below and save, or save it unchanged to give up (these lines are removed)")
	for _, l := range lines {
		b.WriteString(editErrorPrefix + l + "\n")
	}
	b.Write(data)
	return b.Bytes()
}

// stripEditErrors removes the lines withEditError added.
func stripEditErrors(data []byte) []byte {
	for bytes.HasPrefix(data, []byte(editErrorPrefix)) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
}
