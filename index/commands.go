package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/cmdkey"
	"github.com/reflectkb/reflect/store"
)

// The commands table maps the key of a shell command a learning records
// as failing ("go test", "npm ci"; cmdkey.Recorded) to the learning's row,
// so that the pre-tool hook finds the learnings about a command with one
// lookup of its key, whatever the size of the knowledge base (schema 15).
// The primary key serves that lookup; commands_n serves a removal.
const (
	commandsSchema   = `CREATE TABLE IF NOT EXISTS commands(key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(key, n)) WITHOUT ROWID`
	commandsDocIndex = `CREATE INDEX IF NOT EXISTS commands_n ON commands(n)`
	// docsProjectIndex lists a project's learnings newest first without
	// reading every row (ProjectLearnings, schema 15).
	docsProjectIndex = `CREATE INDEX IF NOT EXISTS docs_project ON docs(project, updated)`
)

// recordedCommands returns the keys of the commands l records as failing,
// in its title, key insight and symptoms. A superseded learning records
// none: the learning that replaced it speaks for the command.
func recordedCommands(l *store.Learning) []string {
	if l.SupersededBy != "" {
		return nil
	}
	return cmdkey.Recorded(l.Title+"\n"+l.KeyInsight, l.Symptoms)
}

// migrateCommands fills the commands table of a catalog migrated to schema
// 15 from the titles and key insights the catalog holds (reading every
// document for its symptoms would cost what a reindex costs); a
// learning's symptoms join with its next update or `reflect reindex
// --full`.
func migrateCommands(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT n, title, key_insight FROM docs`)
	if err != nil {
		return err
	}
	type keyed struct {
		n    int64
		keys []string
	}
	var found []keyed
	for rows.Next() {
		var n int64
		var title, insight string
		if err := rows.Scan(&n, &title, &insight); err != nil {
			rows.Close()
			return err
		}
		if keys := cmdkey.Recorded(title+"\n"+insight, nil); len(keys) > 0 {
			found = append(found, keyed{n, keys})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO commands(key,n) VALUES(?,?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, f := range found {
		for _, k := range f.keys {
			if _, err := ins.ExecContext(ctx, k, f.n); err != nil {
				return err
			}
		}
	}
	return nil
}

// CommandHit is a learning that records a command as failing.
type CommandHit struct {
	// Key is the command's key the learning records ("go test").
	Key        string
	ID         string
	Title      string
	KeyInsight string
	Type       string
	Confidence string
	Scope      string
	Project    string
	Updated    string
}

// maxCommandKeys bounds the keys one lookup takes.
const maxCommandKeys = 8

// FailedCommands returns up to limit learnings that record one of keys as
// a failing command, most recently updated first, leaving out the held
// ones (superseded, or marked wrong, outdated or never): the pre-tool hook
// injects what it returns. It reads the commands
// table through its primary key and the docs rows of what it finds, so its
// cost does not grow with the knowledge base.
func (ix *Index) FailedCommands(ctx context.Context, keys []string, limit int) ([]CommandHit, error) {
	if len(keys) > maxCommandKeys {
		keys = keys[:maxCommandKeys]
	}
	if len(keys) == 0 || limit <= 0 {
		return nil, nil
	}
	args := make([]any, 0, len(keys)+1)
	for _, k := range keys {
		args = append(args, k)
	}
	args = append(args, limit)
	rows, err := ix.db.QueryContext(ctx, `SELECT c.key, d.id, d.title, d.key_insight, d.type, d.confidence, d.scope, d.project, d.updated
		FROM commands c JOIN docs d ON d.n = c.n
		WHERE c.key IN (?`+strings.Repeat(",?", len(keys)-1)+`) AND d.hold = ''
		ORDER BY d.updated DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("failed commands: %w", err)
	}
	defer rows.Close()
	var out []CommandHit
	for rows.Next() {
		var h CommandHit
		if err := rows.Scan(&h.Key, &h.ID, &h.Title, &h.KeyInsight, &h.Type, &h.Confidence, &h.Scope, &h.Project, &h.Updated); err != nil {
			return nil, fmt.Errorf("failed commands: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// ProjectLearnings returns up to limit learnings of project that are not
// global (scope project or personal, or none given) and not held (the
// session-start briefing injects them), most recently updated first, with the columns a result shows (no snippet, no score).
func (ix *Index) ProjectLearnings(ctx context.Context, project string, limit int) ([]Result, error) {
	if project == "" || limit <= 0 {
		return nil, nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, title, key_insight, type, confidence, scope, project, tags, path, updated
		FROM docs WHERE project = ? AND scope <> 'global' AND hold = '' ORDER BY updated DESC LIMIT ?`, project, limit)
	if err != nil {
		return nil, fmt.Errorf("project learnings: %w", err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var tags string
		if err := rows.Scan(&r.ID, &r.Title, &r.KeyInsight, &r.Type, &r.Confidence, &r.Scope, &r.Project, &tags, &r.Path, &r.Updated); err != nil {
			return nil, fmt.Errorf("project learnings: %w", err)
		}
		if tags != "" {
			r.Tags = strings.Split(tags, ",")
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CitingLearning is a learning that cites files, with its cites.
type CitingLearning struct {
	ID      string
	Updated string
	Cites   []store.Cite
}

// maxCiting bounds the learnings CitingLearnings returns: the drainer
// checks them after each session, and a project's most recent learnings
// are the ones worth checking.
const maxCiting = 500

// CitingLearnings returns the learnings of project that cite files and
// are not held, most recently updated first: those whose cited files the
// drainer checks are still there (docs/ranking.md, staleness).
func (ix *Index) CitingLearnings(ctx context.Context, project string) ([]CitingLearning, error) {
	if project == "" {
		return nil, nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, updated, cites FROM docs
		WHERE project = ? AND hold = '' AND cites <> '' AND cites <> '[]' AND cites <> 'null'
		ORDER BY updated DESC LIMIT ?`, project, maxCiting)
	if err != nil {
		return nil, fmt.Errorf("citing learnings: %w", err)
	}
	defer rows.Close()
	var out []CitingLearning
	for rows.Next() {
		var c CitingLearning
		var cites string
		if err := rows.Scan(&c.ID, &c.Updated, &cites); err != nil {
			return nil, fmt.Errorf("citing learnings: %w", err)
		}
		if json.Unmarshal([]byte(cites), &c.Cites) != nil || len(c.Cites) == 0 {
			continue
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
