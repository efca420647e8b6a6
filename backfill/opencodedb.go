package backfill

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, read-only here

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
)

// OpenCode keeps its sessions in its own SQLite database (1.18:
// opencode.db under $XDG_DATA_HOME/opencode, ~/.local/share/opencode by
// default, in WAL mode): table session (id, directory, time_updated),
// message and part (each a JSON document in data, the row's ids beside
// it). Reflect's plugin copies a session as it ends; the sessions from
// before the plugin exist only there. Backfill copies each of those into
// transcripts/opencode/<id>.jsonl, the file the plugin's hook writes, in
// the same format (one message a line, {info, parts} as OpenCode's SDK
// returns it, clipped and redacted alike), dated by the session's
// time_updated: the plan then reads it like any copy, and the hooks'
// later copies of the same session replace it rather than add a second.

// Bounds of one session's copy, as the plugin's (agents/opencode_plugin.js:
// MAX_OUTPUT, MAX_TEXT, MAX_PAYLOAD for one message), and of the rows read:
// a session beyond them is copied up to them, with a line saying so.
const (
	ocMaxOutput       = 4000
	ocMaxText         = 100000
	ocMaxMessageBytes = 6 << 20
	ocMaxMessages     = 20000
	ocMaxParts        = 200000
	ocMaxSessionBytes = 256 << 20
	// ocMaxRowBytes bounds one message's or part's data as read: larger
	// rows are not loaded, and a stub stands for them.
	ocMaxRowBytes = 8 << 20
)

// ocCopySlack is how much later than reflect's copy of a session the
// session may have been updated and the copy still stand for it: OpenCode
// writes a session's title and summary just after the session turns idle,
// which is when the plugin copies it; a session taken up again without the
// plugin is updated minutes or days later, and copied again.
const ocCopySlack = DefaultSettle

// openCodeSource is reflect's copies of OpenCode sessions
// (transcripts/opencode/<session id>.jsonl): the plugin's, and those
// copied out of OpenCode's database first.
var openCodeSource = source{
	agent: "opencode",
	layouts: func(d Dirs) []layout {
		if d.StateDir == "" {
			return nil
		}
		return []layout{{filepath.Join(d.StateDir, "transcripts", "opencode"), []string{"*.jsonl"}}}
	},
	describe: func(c *candidate) { c.sessionID = stem(c.path) },
	prepare:  Options.copyOpenCodeSessions,
}

// openCodeDB is the path of OpenCode's database: under Dirs.OpenCodeData
// ($XDG_DATA_HOME) when set, else Home/.local/share.
func openCodeDB(d Dirs) string {
	data := d.XDGData
	if data == "" {
		if d.Home == "" {
			return ""
		}
		data = filepath.Join(d.Home, ".local", "share")
	}
	return filepath.Join(data, "opencode", "opencode.db")
}

// ocSession is a session row.
type ocSession struct {
	id, dir string
	updated time.Time
}

// copyOpenCodeSessions copies the sessions of OpenCode's database that
// reflect has no copy of, or an older one, into the state directory's
// transcripts/opencode/, keeping those since o.Since and in o.Project. A
// missing database is no source; one that cannot be read is a Problem.
// The database is opened read-only and never written.
func (o Options) copyOpenCodeSessions() []Problem {
	dbPath := openCodeDB(o.Dirs)
	if dbPath == "" || o.Dirs.StateDir == "" {
		return nil
	}
	fi, err := os.Lstat(dbPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return []Problem{{Path: dbPath, Reason: reason(err)}}
	case !fi.Mode().IsRegular():
		return []Problem{{Path: dbPath, Reason: "not a regular file: " + fsutil.Kind(fi.Mode())}}
	}
	db, err := sql.Open("sqlite3", openCodeDSN(dbPath))
	if err != nil {
		return []Problem{{Path: dbPath, Reason: err.Error()}}
	}
	defer db.Close()
	sessions, err := openCodeSessions(db, o.Since)
	if err != nil {
		return []Problem{{Path: dbPath, Reason: "unreadable: " + err.Error()}}
	}
	var forms []string
	if o.Project != "" {
		forms = projectForms(o.Project)
	}
	dir := filepath.Join(o.Dirs.StateDir, filepath.FromSlash(openCodeCopies))
	var probs []Problem
	for _, s := range sessions {
		if forms != nil && !(&examiner{o: o, projects: forms}).inProject(s.dir) {
			continue
		}
		path := filepath.Join(dir, fsutil.SafeName(s.id)+".jsonl")
		if cfi, err := os.Lstat(path); err == nil && !cfi.ModTime().Before(s.updated.Add(-ocCopySlack)) {
			continue // the plugin's copy, or an earlier backfill's, is as recent
		}
		if err := copyOpenCodeSession(db, s, dir, path); err != nil {
			probs = append(probs, Problem{Path: dbPath + "#" + s.id, Reason: "unreadable: " + err.Error()})
		}
	}
	return probs
}

// openCodeDSN opens the database at path read-only (mode=ro: never
// created nor written), the busy timeout waiting out an OpenCode that is
// writing. Without its write-ahead log (no OpenCode has it open, and all
// of it is in the file) a read-only connection would still create the
// -wal and -shm files beside it: immutable=1 reads the file alone.
func openCodeDSN(path string) string {
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?mode=ro&_busy_timeout=5000"
	if _, err := os.Lstat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		dsn += "&immutable=1"
	}
	return dsn
}

// openCodeCopies is where the plugin's hook keeps its copies, under the
// state directory (hooks.OpenCodeTranscriptDir).
const openCodeCopies = "transcripts/opencode"

// openCodeSessions lists the database's sessions updated since since.
func openCodeSessions(db *sql.DB, since time.Time) ([]ocSession, error) {
	rows, err := db.Query(`SELECT id, directory, time_updated FROM session WHERE time_updated >= ? ORDER BY time_updated DESC`,
		since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ocSession
	for rows.Next() {
		var s ocSession
		var ms int64
		if err := rows.Scan(&s.id, &s.dir, &ms); err != nil {
			return nil, err
		}
		s.updated = time.UnixMilli(ms)
		out = append(out, s)
	}
	return out, rows.Err()
}

// copyOpenCodeSession writes session s's copy at path (atomically: a
// drain may be reading an earlier one) and dates it s.updated.
func copyOpenCodeSession(db *sql.DB, s ocSession, dir, path string) error {
	msgs, err := openCodeMessages(db, s)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return nil // nothing said: no copy, and nothing to plan
	}
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return err
	}
	err = fsutil.WriteAtomicStream(path, fsutil.FilePerm, func(w io.Writer) error {
		total := 0
		for i, m := range msgs {
			line, err := openCodeLine(m)
			if err != nil {
				continue // one odd message must not lose the session
			}
			if total+len(line) > ocMaxSessionBytes {
				line, _ = openCodeLine(ocMessage{info: m.info, parts: []any{stubPart(
					fmt.Sprintf("[%d more messages, over reflect's cap for a session, were left out]", len(msgs)-i))}})
				_, err := w.Write(line)
				return err
			}
			total += len(line)
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return os.Chtimes(path, s.updated, s.updated)
}

// ocMessage is one message as OpenCode's SDK returns it.
type ocMessage struct {
	info  map[string]any
	parts []any
}

// openCodeMessages reads session s's messages and their parts, in
// order, within the caps.
func openCodeMessages(db *sql.DB, s ocSession) ([]ocMessage, error) {
	rows, err := db.Query(`SELECT id, CASE WHEN length(data) > ? THEN NULL ELSE data END FROM message
		WHERE session_id = ? ORDER BY time_created, id LIMIT ?`, ocMaxRowBytes, s.id, ocMaxMessages)
	if err != nil {
		return nil, err
	}
	var msgs []ocMessage
	at := map[string]int{}
	for rows.Next() {
		var id string
		var data sql.NullString
		if err := rows.Scan(&id, &data); err != nil {
			rows.Close()
			return nil, err
		}
		info := map[string]any{}
		if data.Valid {
			_ = json.Unmarshal([]byte(data.String), &info)
		}
		info["id"], info["sessionID"] = id, s.id
		at[id] = len(msgs)
		msgs = append(msgs, ocMessage{info: info})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = db.Query(`SELECT id, message_id, CASE WHEN length(data) > ? THEN NULL ELSE data END FROM part
		WHERE session_id = ? ORDER BY message_id, id LIMIT ?`, ocMaxRowBytes, s.id, ocMaxParts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, mid string
		var data sql.NullString
		if err := rows.Scan(&id, &mid, &data); err != nil {
			return nil, err
		}
		i, ok := at[mid]
		if !ok {
			continue
		}
		part := map[string]any{}
		if !data.Valid || json.Unmarshal([]byte(data.String), &part) != nil {
			part = stubPart("[a part over reflect's cap was left out]")
		}
		part["id"], part["sessionID"], part["messageID"] = id, s.id, mid
		clipPart(part)
		msgs[i].parts = append(msgs[i].parts, part)
	}
	return msgs, rows.Err()
}

func stubPart(text string) map[string]any { return map[string]any{"type": "text", "text": text} }

// clipPart cuts a part as the plugin's clip() does: tool output to
// ocMaxOutput characters, the copy of it in the metadata dropped, text
// to ocMaxText.
func clipPart(p map[string]any) {
	if st, ok := p["state"].(map[string]any); ok {
		if out, ok := st["output"].(string); ok {
			st["output"] = clipRunes(out, ocMaxOutput)
		}
		if md, ok := st["metadata"].(map[string]any); ok {
			delete(md, "output")
		}
	}
	if t, ok := p["text"].(string); ok {
		p["text"] = clipRunes(t, ocMaxText)
	}
}

// clipRunes is s cut to at most n characters.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// openCodeLine is m's line in the copy, redacted: a message over
// ocMaxMessageBytes is replaced by a stub saying so, as the plugin does.
func openCodeLine(m ocMessage) ([]byte, error) {
	parts := m.parts
	if parts == nil {
		parts = []any{}
	}
	v := map[string]any{"info": m.info, "parts": parts}
	line, err := encodeLine(redact.Value(v))
	if err != nil {
		return nil, err
	}
	if len(line) > ocMaxMessageBytes {
		v["parts"] = []any{stubPart(fmt.Sprintf("[a message of %d bytes, over reflect's cap, was left out]", len(line)))}
		return encodeLine(redact.Value(v))
	}
	return line, nil
}

// encodeLine is v as one line of JSON, HTML left unescaped as the hook's
// copies are.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
