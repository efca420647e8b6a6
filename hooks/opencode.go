package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
)

// OpenCode keeps its sessions in its own database, not in a file the
// drainer could read later, so reflect's plugin sends the session's
// messages (as its SDK returns them: {info, parts} per message) with the
// stop and pre-compact events. The hook keeps a redacted copy, one message
// per line, under the state directory (ARCHITECTURE §3,
// transcripts/opencode/) and queues that file; transcript/opencode.go
// reads it.

// openCodeHarness is OpenCode through reflect's plugin, which sends
// Claude Code's payload fields and reads its answers: the session the
// plugin sends is saved first, and a part with more to come is saved
// without queueing.
var openCodeHarness = harness{
	name: "opencode",
	prepare: func(r *invocation) (answer, bool, error) {
		if err := r.saveOpenCodeSession(); err != nil {
			return answer{}, true, err
		}
		if r.payload.More {
			// A part of a large session: the last part queues it.
			return answer{detail: "saved part of the session"}, true, nil
		}
		return answer{}, false, nil
	},
}

// OpenCodeTranscriptDir is where the copies live, under the state dir.
const OpenCodeTranscriptDir = "transcripts/opencode"

// errNoMessages is a stop or pre-compact from OpenCode without the session.
var errNoMessages = errors.New("opencode payload has no messages: reinstall the plugin with `reflect install opencode`")

// saveOpenCodeSession writes the payload's messages, redacted, to the
// session's transcript copy (atomically: a drain may be reading the last
// one) and points the payload's transcript_path at it. A payload that
// starts at message k > 0 keeps the copy's first k lines and replaces the
// rest, so every idle sends only what is new.
func (r *invocation) saveOpenCodeSession() error {
	p := r.payload
	if len(p.Messages) == 0 {
		return errNoMessages
	}
	var buf bytes.Buffer
	for _, m := range p.Messages {
		line, err := redactJSON(m)
		if err != nil {
			continue // one odd message must not lose the session
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	dir := filepath.Join(r.Config.StateDir, OpenCodeTranscriptDir)
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return err
	}
	path := filepath.Join(dir, fsutil.SafeName(p.SessionID)+".jsonl")
	if p.Skipped > 0 {
		logf(r.Config.StateDir, r.now, "%s: opencode session %s: %d messages over the plugin's size cap were left out of the copy (a stub line stands for each)", r.Event, p.SessionID, p.Skipped)
	}
	var err error
	if p.FirstMessage <= 0 {
		err = fsutil.WriteAtomic(path, buf.Bytes(), fsutil.FilePerm)
	} else {
		err = r.replaceFrom(path, p.FirstMessage, buf.Bytes())
	}
	if err != nil {
		return err
	}
	p.TranscriptPath = path
	return nil
}

// replaceFrom rewrites the copy at path as its first k lines followed by
// tail. A copy with fewer lines (lost, or written by a reflect that saved
// nothing then) keeps what it has, and the gap is logged.
func (r *invocation) replaceFrom(path string, k int, tail []byte) error {
	old, _, err := fsutil.OpenRegular(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if old != nil {
		defer old.Close()
	}
	return fsutil.WriteAtomicStream(path, fsutil.FilePerm, func(w io.Writer) error {
		n := 0
		if old != nil {
			br := bufio.NewReaderSize(old, 64<<10)
			for n < k {
				line, err := br.ReadSlice('\n')
				if err == bufio.ErrBufferFull {
					// A line longer than the buffer: copy it in pieces.
					if _, werr := w.Write(line); werr != nil {
						return werr
					}
					continue
				}
				if err != nil {
					break // EOF: the copy is shorter than k (logged below)
				}
				if _, werr := w.Write(line); werr != nil {
					return werr
				}
				n++
			}
		}
		if n < k {
			logf(r.Config.StateDir, r.now, "%s: opencode session %s: the copy has %d messages and the plugin sent from message %d; the %d between are missing (restart OpenCode to send the whole session again)", r.Event, r.payload.SessionID, n, k, k-n)
		}
		_, err := w.Write(tail)
		return err
	})
}

// redactJSON redacts every string of a JSON value, keys included, and
// re-encodes it compactly. Redacting the decoded strings, not the JSON
// text, keeps the result valid JSON whatever a secret's characters.
func redactJSON(raw json.RawMessage) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redact.Value(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
