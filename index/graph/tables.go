package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/reflectkb/reflect/store"
)

// Conn is what the package needs of the catalog: *sql.DB, *sql.Tx and
// *sql.Conn all satisfy it. Writers should pass the reindex transaction,
// so a learning's entities change together with its other index rows.
type Conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Sources of a mention: a sidecar written by a writer or the user, or the
// heuristic extractor.
const (
	SourceSidecar   = "sidecar"
	SourceHeuristic = Heuristic
)

const (
	relationsSchema = `CREATE TABLE IF NOT EXISTS relations(
		src INTEGER NOT NULL,
		dst INTEGER NOT NULL,
		doc INTEGER NOT NULL,
		kind TEXT NOT NULL,
		st NUMERIC NOT NULL,
		type TEXT GENERATED ALWAYS AS (CASE kind WHEN '' THEN 'relates_to' ELSE kind END) VIRTUAL,
		strength REAL GENERATED ALWAYS AS (st) VIRTUAL,
		PRIMARY KEY(src, doc, dst, kind)
	) WITHOUT ROWID`
	relationsDstIndex = `CREATE INDEX IF NOT EXISTS relations_dst ON relations(dst, src, st)`
)

const (
	mentionsSchema = `CREATE TABLE IF NOT EXISTS mentions(
		entity INTEGER NOT NULL,
		doc INTEGER NOT NULL,
		origin TEXT NOT NULL,
		source TEXT GENERATED ALWAYS AS (CASE origin WHEN '' THEN '` + SourceHeuristic + `' ELSE origin END) VIRTUAL,
		PRIMARY KEY(entity, doc)
	) WITHOUT ROWID`
	mentionsDocIndex = `CREATE INDEX IF NOT EXISTS mentions_doc ON mentions(doc)`
)

// mentionsTriggers keep entities.df, the number of learnings that mention
// the entity: a query weighs its entities by it (damp), and counting a
// common entity's mentions per query was a measurable share of a hook
// (docs/benchmarks.md).
var mentionsTriggers = [...]string{
	`CREATE TRIGGER IF NOT EXISTS mentions_df_insert AFTER INSERT ON mentions BEGIN
		UPDATE entities SET df = df + 1 WHERE id = NEW.entity;
	END`,
	`CREATE TRIGGER IF NOT EXISTS mentions_df_delete AFTER DELETE ON mentions BEGIN
		UPDATE entities SET df = df - 1 WHERE id = OLD.entity;
	END`,
}

// MigrateMentions are the statements that bring schema 17's mentions
// table (the source spelled out in every row) to the current one, keeping
// every row and every entity's df (the copy fires no trigger); they work
// on the current table too.
func MigrateMentions() []string {
	return []string{
		`DROP TABLE IF EXISTS mentions_new`,
		strings.Replace(mentionsSchema, "IF NOT EXISTS mentions(", "mentions_new(", 1),
		`INSERT INTO mentions_new(entity, doc, origin)
			SELECT entity, doc, CASE source WHEN '` + SourceHeuristic + `' THEN '' ELSE source END FROM mentions`,
		`DROP TABLE mentions`,
		`ALTER TABLE mentions_new RENAME TO mentions`,
		mentionsDocIndex,
		mentionsTriggers[0],
		mentionsTriggers[1],
	}
}

// MigrateRelations are the statements that bring an older catalog's
// relations table (a rowid table with three indexes, the type spelled
// out; or schema 17's, the strength a REAL column) to the current one,
// keeping every row; they work on the current table too.
func MigrateRelations() []string {
	return []string{
		`DROP TABLE IF EXISTS relations_new`,
		strings.Replace(relationsSchema, "IF NOT EXISTS relations(", "relations_new(", 1),
		`INSERT OR IGNORE INTO relations_new(src, dst, doc, kind, st)
			SELECT src, dst, doc, CASE type WHEN 'relates_to' THEN '' ELSE type END, strength FROM relations`,
		`DROP TABLE relations`,
		`ALTER TABLE relations_new RENAME TO relations`,
		relationsDstIndex,
	}
}

var schema = []string{
	// norm is the matching key (Normalize); name is how it was first
	// written, or how the last sidecar naming it wrote it.
	`CREATE TABLE IF NOT EXISTS entities(
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		norm TEXT NOT NULL UNIQUE,
		type TEXT NOT NULL,
		description TEXT NOT NULL DEFAULT '',
		df INTEGER NOT NULL DEFAULT 0
	)`,
	// doc is the rowid of the index's docs table. WITHOUT ROWID: the
	// primary key is the table, and (entity, doc) is how Expand reads it.
	// origin is the source with heuristic, most mentions', stored as ''
	// (no bytes in the row); source reads it back.
	mentionsSchema,
	mentionsDocIndex,
	mentionsTriggers[0],
	mentionsTriggers[1],
	// Relations are stored as written (caused_by has a direction) and read
	// in both directions. WITHOUT ROWID, keyed (src, doc, dst, kind): the
	// key finds an entity's outgoing relations with their strength, and a
	// learning's relations by their sources (clearDoc), so only the reverse
	// direction needs an index. kind is the type with relates_to, nearly
	// every row, stored as '' (no bytes in the row or the index); type
	// reads it back. st is the strength with NUMERIC affinity, so a whole
	// one (every co-occurrence's) takes a byte where a REAL column takes
	// eight in a table without a rowid and in its index; strength reads
	// it back as the REAL it was written as. relationsSchema is what
	// migrate rebuilds.
	relationsSchema,
	relationsDstIndex,
	`CREATE TABLE IF NOT EXISTS communities(
		entity INTEGER PRIMARY KEY,
		community INTEGER NOT NULL
	)`,
}

// tables are the package's tables, in the order Reset clears them:
// entities first, so that clearing mentions updates no df.
var tables = []string{"entities", "communities", "relations", "mentions"}

// Schema returns the statements that create the graph's tables and
// indexes; the index runs them with its own schema. They are idempotent.
func Schema() []string {
	return append([]string(nil), schema...)
}

// Reset empties the graph, for a full reindex.
func Reset(ctx context.Context, tx Conn) error {
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("graph: clear %s: %w", t, err)
		}
	}
	return nil
}

// bulkDropped are the secondary indexes and triggers a bulk load drops
// and EndBulk builds again; the tables and their primary keys stay.
var bulkDropped = []string{
	`DROP TRIGGER IF EXISTS mentions_df_insert`,
	`DROP TRIGGER IF EXISTS mentions_df_delete`,
	`DROP INDEX IF EXISTS mentions_doc`,
	`DROP INDEX IF EXISTS relations_dst`,
}

// BeginBulk prepares an empty graph (after Reset, in the same
// transaction) for loading every learning with AddNewDocument: it drops
// the secondary indexes and the df triggers, which EndBulk builds again
// in one sorted pass each.
//
// Why: a relation's (src, dst) keys arrive in no order, so keeping
// relations_src and relations_dst while loading is a random b-tree insert
// per row; once those indexes outgrow SQLite's page cache every insert
// reads pages back, and a full reindex grew faster than the KB
// (docs/benchmarks.md). The df trigger was one UPDATE per mention.
// Between BeginBulk and EndBulk only AddNewDocument may write the graph,
// and nothing may read df; the transaction hides the state from readers.
func BeginBulk(ctx context.Context, tx Conn) error {
	for _, q := range bulkDropped {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("graph: bulk load: %w", err)
		}
	}
	return nil
}

// EndBulk builds what BeginBulk dropped and counts every entity's df.
func EndBulk(ctx context.Context, tx Conn) error {
	for _, q := range schema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("graph: end bulk load: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE entities SET df = (SELECT count(*) FROM mentions WHERE entity = entities.id)`); err != nil {
		return fmt.Errorf("graph: end bulk load: %w", err)
	}
	return nil
}

// entityRow and relationRow are a learning's entities and relations,
// resolved to norms and ready to write.
type entityRow struct {
	name, norm, typ, description, source string
}

type relationRow struct {
	src, dst string // norms
	typ      string
	strength float64
}

// AddDocument records the entities and relations of the learning stored as
// docs row doc, replacing whatever the row had before, so reindexing a
// changed learning is one call. sc is the learning's sidecar; when it is
// nil the entities are extracted from l (Extract). Entities no learning
// mentions any more are removed.
//
// A sidecar's entity type and description win over a heuristic guess for
// the same name; between two sidecars the last one written wins.
func AddDocument(ctx context.Context, tx Conn, doc int64, sc *store.Sidecar, l *store.Learning) error {
	loadVocab()
	if sc == nil {
		if l == nil {
			return RemoveDocument(ctx, tx, doc)
		}
		sc = Extract(l)
	}
	old, err := docEntities(ctx, tx, doc)
	if err != nil {
		return err
	}
	if err := clearDoc(ctx, tx, doc); err != nil {
		return err
	}
	ids, err := addRows(ctx, tx, doc, sc)
	if err != nil {
		return err
	}
	kept := make(map[int64]bool, len(ids))
	for _, id := range ids {
		kept[id] = true
	}
	var gone []int64
	for _, id := range old {
		if !kept[id] {
			gone = append(gone, id)
		}
	}
	return prune(ctx, tx, gone)
}

// AddNewDocument is AddDocument for a docs row that has no entities or
// relations yet: the index's writer numbers every learning it inserts
// anew (an update removes the old row first), so it knows. Skipping the
// read of the row's old entities and the two deletes matters at scale:
// they were a fifth of a full reindex's CPU time (docs/benchmarks.md).
func AddNewDocument(ctx context.Context, tx Conn, doc int64, sc *store.Sidecar, l *store.Learning) error {
	loadVocab()
	if sc == nil {
		if l == nil {
			return nil
		}
		sc = Extract(l)
	}
	_, err := addRows(ctx, tx, doc, sc)
	return err
}

// addRows writes a sidecar's entities, mentions and relations for docs
// row doc and returns the entities' ids by norm.
func addRows(ctx context.Context, tx Conn, doc int64, sc *store.Sidecar) (map[string]int64, error) {
	ents, rels := resolve(sc)
	ids, err := upsertEntities(ctx, tx, ents)
	if err != nil {
		return nil, fmt.Errorf("graph: add document %d: %w", doc, err)
	}
	if err := insertRows(ctx, tx, "INSERT OR IGNORE INTO mentions(entity, doc, origin) VALUES", 3, len(ents), func(i int, args []any) []any {
		return append(args, ids[ents[i].norm], doc, mentionOrigin(ents[i].source))
	}); err != nil {
		return nil, fmt.Errorf("graph: add document %d: %w", doc, err)
	}
	if err := insertRows(ctx, tx, "INSERT INTO relations(src, dst, kind, st, doc) VALUES", 5, len(rels), func(i int, args []any) []any {
		r := rels[i]
		return append(args, ids[r.src], ids[r.dst], relationKind(r.typ), r.strength, doc)
	}); err != nil {
		return nil, fmt.Errorf("graph: add document %d: %w", doc, err)
	}
	return ids, nil
}

// RemoveDocument forgets the entities and relations of docs row doc, and
// the entities no other learning mentions.
func RemoveDocument(ctx context.Context, tx Conn, doc int64) error {
	old, err := docEntities(ctx, tx, doc)
	if err != nil {
		return err
	}
	if err := clearDoc(ctx, tx, doc); err != nil {
		return err
	}
	return prune(ctx, tx, old)
}

// resolve turns a sidecar into rows: names normalised, duplicates (by
// norm) merged with the first one winning, unknown types made concepts,
// relations between names the sidecar does not list, self-relations and
// duplicates dropped, strengths clamped to 0-10.
func resolve(sc *store.Sidecar) ([]entityRow, []relationRow) {
	var ents []entityRow
	seen := map[string]bool{}
	byName := map[string]string{}
	for _, e := range sc.Entities {
		norm := Normalize(e.Name)
		if norm == "" {
			continue
		}
		byName[e.Name] = norm
		if seen[norm] {
			continue
		}
		seen[norm] = true
		typ := e.Type
		if !validType[typ] {
			typ = "concept"
		}
		src := SourceSidecar
		if e.Extracted == Heuristic {
			src = SourceHeuristic
		}
		ents = append(ents, entityRow{name: strings.TrimSpace(e.Name), norm: norm, typ: typ, description: e.Description, source: src})
	}
	var rels []relationRow
	type key struct{ s, d, t string }
	dup := map[key]bool{}
	for _, r := range sc.Relationships {
		s, d := byName[r.Source], byName[r.Target]
		if s == "" {
			s = Normalize(r.Source)
		}
		if d == "" {
			d = Normalize(r.Target)
		}
		if !seen[s] || !seen[d] || s == d {
			continue
		}
		typ := r.Type
		if typ == "" {
			typ = "relates_to"
		}
		if dup[key{s, d, typ}] {
			continue
		}
		dup[key{s, d, typ}] = true
		st := r.Strength
		if math.IsNaN(st) || st < 0 {
			st = 0
		}
		rels = append(rels, relationRow{src: s, dst: d, typ: typ, strength: math.Min(st, 10)})
	}
	return ents, rels
}

// mentionOrigin is how a mention's source is stored (the origin column).
func mentionOrigin(source string) string {
	if source == SourceHeuristic {
		return ""
	}
	return source
}

// relationKind is how a relation's type is stored (the kind column).
func relationKind(typ string) string {
	if typ == "relates_to" {
		return ""
	}
	return typ
}

func docEntities(ctx context.Context, tx Conn, doc int64) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT entity FROM mentions WHERE doc = ?`, doc)
	if err != nil {
		return nil, fmt.Errorf("graph: read document %d: %w", doc, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func clearDoc(ctx context.Context, tx Conn, doc int64) error {
	// Relations first: they are found through the learning's mentions
	// (every relation's source is an entity its learning mentions).
	for _, q := range []string{
		`DELETE FROM relations WHERE src IN (SELECT entity FROM mentions WHERE doc = ?1) AND doc = ?1`,
		`DELETE FROM mentions WHERE doc = ?1`,
	} {
		if _, err := tx.ExecContext(ctx, q, doc); err != nil {
			return fmt.Errorf("graph: clear document %d: %w", doc, err)
		}
	}
	return nil
}

// upsertEntities writes the entities and returns their ids by norm. A
// curated (sidecar) row overwrites name, type and a non-empty description;
// a heuristic row only fills in a name not seen before.
func upsertEntities(ctx context.Context, tx Conn, ents []entityRow) (map[string]int64, error) {
	ids := make(map[string]int64, len(ents))
	if len(ents) == 0 {
		return ids, nil
	}
	var curated, guessed []entityRow
	for _, e := range ents {
		if e.source == SourceSidecar {
			curated = append(curated, e)
		} else {
			guessed = append(guessed, e)
		}
	}
	row := func(list []entityRow) func(int, []any) []any {
		return func(i int, args []any) []any {
			e := list[i]
			return append(args, e.name, e.norm, e.typ, e.description)
		}
	}
	if err := insertRows(ctx, tx, `INSERT INTO entities(name, norm, type, description) VALUES`, 4, len(curated), row(curated),
		` ON CONFLICT(norm) DO UPDATE SET name = excluded.name, type = excluded.type,
			description = CASE WHEN excluded.description <> '' THEN excluded.description ELSE entities.description END`); err != nil {
		return nil, err
	}
	if err := insertRows(ctx, tx, `INSERT INTO entities(name, norm, type, description) VALUES`, 4, len(guessed), row(guessed),
		` ON CONFLICT(norm) DO NOTHING`); err != nil {
		return nil, err
	}
	args := make([]any, len(ents))
	for i, e := range ents {
		args[i] = e.norm
	}
	for start := 0; start < len(args); start += chunk {
		part := args[start:min(start+chunk, len(args))]
		rows, err := tx.QueryContext(ctx, `SELECT id, norm FROM entities WHERE norm IN (?`+strings.Repeat(",?", len(part)-1)+`)`, part...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var norm string
			if err := rows.Scan(&id, &norm); err != nil {
				rows.Close()
				return nil, err
			}
			ids[norm] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// chunk bounds the rows of one multi-row statement, far below SQLite's
// variable limit: a sidecar may list hundreds of relationships.
const chunk = 100

// insertRows runs "prefix (?,...),(?,...) suffix" over n rows of width
// values each, in chunks: one statement per learning instead of one per
// row keeps a 10,000-learning reindex in seconds.
func insertRows(ctx context.Context, tx Conn, prefix string, width, n int, row func(i int, args []any) []any, suffix ...string) error {
	if n == 0 {
		return nil
	}
	tuple := "(?" + strings.Repeat(",?", width-1) + ")"
	args := make([]any, 0, min(n, chunk)*width)
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		args = args[:0]
		for i := start; i < end; i++ {
			args = row(i, args)
		}
		q := prefix + " " + tuple + strings.Repeat(","+tuple, end-start-1) + strings.Join(suffix, "")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// prune deletes, of the given entities, those no learning mentions any
// more, with their community rows. Relations need no pruning: a relation
// belongs to a learning that mentions both its ends, and goes with it.
func prune(ctx context.Context, tx Conn, ids []int64) error {
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		in := "(?" + strings.Repeat(",?", len(part)-1) + ")"
		for _, q := range []string{
			`DELETE FROM communities WHERE entity IN ` + in + ` AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity = communities.entity)`,
			`DELETE FROM entities WHERE id IN ` + in + ` AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity = entities.id)`,
		} {
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("graph: prune entities: %w", err)
			}
		}
	}
	return nil
}
