package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/index/vector"
	"github.com/reflectkb/reflect/internal/fsutil"
	_ "github.com/reflectkb/reflect/internal/fts5tag" // a build without -tags sqlite_fts5 fails here, saying what to type
	"github.com/reflectkb/reflect/store"
)

// mmapSize is how much of the catalog searches read through a memory map
// (PRAGMA mmap_size); updates read without it (Update).
const mmapSize = 1 << 30

// cacheKB is the size of SQLite's page cache, in KiB (see Open).
const cacheKB = 64 << 10

// hookMigrateRelations is the most relations a hook's Open copies to
// migrate a schema 15 to 17 catalog (about a thousand learnings' worth,
// a tenth of a second); above it the hook leaves the migration to the
// 'reflect reindex' it starts.
const hookMigrateRelations = 20000

// schemaVersion is stored in PRAGMA user_version. A catalog with another
// version is rebuilt: it is derived data, so rebuilding is always safe.
// The versions open lists are migrated in place instead (migrate).
const schemaVersion = 18

// Column weights of the BM25F ranking: a word in the title says more about
// a learning than the same word in its body.
const (
	weightTitle   = 4.0
	weightInsight = 2.0
	weightTags    = 1.5
	weightBody    = 1.0
)

var schema = []string{
	// docs holds what a result shows and ranking weighs, nothing the
	// markdown alone can answer for a command that reads it anyway (the
	// category and created time are not here: no search reads them).
	//
	// AUTOINCREMENT: a row number is never given to a second learning
	// (SQLite would reuse the highest one after it is deleted), so a
	// vector file holding the same row numbers as the vectors table holds
	// the same vectors, and an update can patch it (exportVectors).
	`CREATE TABLE IF NOT EXISTS docs(
		n INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		path TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		hash TEXT NOT NULL,
		title TEXT NOT NULL,
		key_insight TEXT NOT NULL DEFAULT '',
		type TEXT NOT NULL DEFAULT 'learning',
		confidence TEXT NOT NULL,
		scope TEXT NOT NULL DEFAULT '',
		project TEXT NOT NULL DEFAULT '',
		tags TEXT NOT NULL DEFAULT '',
		updated TEXT NOT NULL,
		cites TEXT NOT NULL DEFAULT '[]',
		hold TEXT NOT NULL DEFAULT '',
		helpful INTEGER NOT NULL DEFAULT 0,
		feedback TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE INDEX IF NOT EXISTS docs_updated ON docs(updated)`,
	docsTailIndex, // schema 13: short ids without listing documents/ (shortids.go)
	`CREATE VIRTUAL TABLE IF NOT EXISTS tri USING fts5(ident, tokenize='trigram')`,
	postingsSchema,
	postingsTermIndex, // schema 14: postings read by term first (postings.go)
	normsSchema,
	// stats keeps each document's field lengths, which saveCorpusTotals
	// sums after an update (norms holds them saturated, for searches).
	`CREATE TABLE IF NOT EXISTS stats(n INTEGER PRIMARY KEY, l0 INTEGER NOT NULL, l1 INTEGER NOT NULL, l2 INTEGER NOT NULL, l3 INTEGER NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS problems(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, reason TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	vectorsSchema,
	commandsSchema,   // schema 15: failing commands, for the pre-tool hook (commands.go)
	commandsDocIndex, // schema 15
	docsProjectIndex, // schema 15: a project's learnings for the session-start briefing
}

// docsHoldColumns add schema 16's columns to an older docs table: hold is
// why a learning is kept out of automatic injection (store.Learning.Held),
// helpful its count of helpful marks, feedback all its marks in words.
var docsHoldColumns = []string{
	`ALTER TABLE docs ADD COLUMN hold TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE docs ADD COLUMN helpful INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE docs ADD COLUMN feedback TEXT NOT NULL DEFAULT ''`,
}

// allSchema is the index's schema, the entity graph's tables, and the
// version stamp last.
var allSchema = append(append(schema, graph.Schema()...), fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))

// driverName is go-sqlite3 with reflect's connection settings.
const driverName = "sqlite3_reflect"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		// Keep the -wal and -shm files when the last connection closes:
		// deleting them at every close and creating them again at every
		// open cost each short-lived command an inode allocation (a tenth
		// of a search on ext4).
		return c.SetFileControlInt("main", sqlite3.SQLITE_FCNTL_PERSIST_WAL, 1)
	}})
}

// Index is an open catalog over one documents directory.
type Index struct {
	db    *sql.DB
	store *store.Store
	path  string

	// Rebuilt is set when Open found the catalog missing, corrupt or of an
	// older schema and rebuilt it from documents/; commands tell the user.
	Rebuilt string
	// RebuildStats is what that rebuild did, so a caller about to reindex
	// anyway can skip a second pass.
	RebuildStats Stats
	// Repaired says what Open fixed without a rebuild (a symlink planted at
	// catalog.db-wal), for doctor and commands to tell the user.
	Repaired string

	opts openOptions

	// unmapping counts the callers reading without the memory map
	// (unmapped); only the outermost one maps the catalog again.
	unmapping atomic.Int32

	// vecFile is vectors.f32, mapped on first use (vectorFile).
	vecMu     sync.Mutex
	vecFile   *vector.File
	vecLoaded bool
}

// OpenOption adjusts Open.
type OpenOption func(*openOptions)

type openOptions struct {
	update           UpdateOptions
	noRebuild        bool
	busyWait         time.Duration
	onBusy           func(wait time.Duration)
	onRebuild        func(reason string, docs int)
	embedder         embed.Embedder
	noQueryEmbedding bool
	halfLife         time.Duration
	vectorWeight     float64
}

// WithProgress reports the progress of a rebuild that Open may have to do.
func WithProgress(fn func(done, total int)) OpenOption {
	return func(o *openOptions) { o.update.Progress = fn }
}

// NoRebuild makes Open fail with ErrNeedsRebuild instead of rebuilding a
// missing or damaged catalog: a hook has 1.5 s, and a rebuild it cannot
// finish would be rolled back and started again by every hook.
func NoRebuild() OpenOption {
	return func(o *openOptions) { o.noRebuild = true }
}

// BusyWait bounds how long every update made through this Index (a
// Change's Commit, Update, Refresh) waits for another process's update before it
// fails with ErrBusy: a hook cannot wait out a reindex.
func BusyWait(d time.Duration) OpenOption {
	return func(o *openOptions) { o.busyWait = d }
}

// OnBusy has fn called when an update made through this Index finds
// another process's update running and starts waiting for it (up to wait),
// so that a command can say why it pauses.
func OnBusy(fn func(wait time.Duration)) OpenOption {
	return func(o *openOptions) { o.onBusy = fn }
}

// OnRebuild has fn called when Open, or a search or update that finds the
// catalog damaged, is about to rebuild it from docs documents, with the
// reason, so that a command can say why it
// pauses: a rebuild of a large knowledge base takes seconds to minutes, and
// a search that silently waited on one looked hung.
func OnRebuild(fn func(reason string, docs int)) OpenOption {
	return func(o *openOptions) { o.onRebuild = fn }
}

// ErrNeedsRebuild is returned by Open with NoRebuild when the catalog must
// be rebuilt from the documents first ('reflect reindex').
var ErrNeedsRebuild = errors.New("the index must be rebuilt")

// Open opens (creating if needed) the catalog in indexDir for the documents
// in docsDir. A missing, unreadable or outdated catalog is rebuilt from the
// documents, and Rebuilt says why.
func Open(ctx context.Context, docsDir, indexDir string, opts ...OpenOption) (*Index, error) {
	if err := fsutil.EnsureDir(indexDir); err != nil {
		return nil, err
	}
	path := filepath.Join(indexDir, "catalog.db")
	ix := &Index{store: store.Open(docsDir), path: path}
	for _, o := range opts {
		o(&ix.opts)
	}

	_, statErr := os.Stat(path)
	missing := errors.Is(statErr, fs.ErrNotExist)
	if missing && ix.opts.noRebuild {
		// Creating an empty catalog here would hide the rebuild it needs
		// from the next hook, which would then index everything itself.
		if files, _ := ix.store.Scan(); len(files) > 0 {
			return nil, fmt.Errorf("catalog.db is missing: %w", ErrNeedsRebuild)
		}
	}
	reason := ""
	err := ix.open(ctx)
	switch {
	case err == nil && missing:
		reason = "catalog.db was missing"
	case errors.Is(err, errOutdated):
		reason = "catalog.db had an older format"
	case isCorrupt(err):
		reason = "catalog.db was unreadable (" + err.Error() + "); the damaged file was kept as catalog.db.corrupt"
	case err != nil:
		ix.Close()
		return nil, fmt.Errorf("open index %s: %w", path, noFTS5(err))
	}
	if reason == "" {
		return ix, nil
	}
	if !missing && ix.opts.noRebuild {
		ix.Close()
		return nil, fmt.Errorf("%s: %w", reason, ErrNeedsRebuild)
	}
	if !missing {
		ix.Close()
		if errors.Is(err, errOutdated) {
			// Derived data in an old format: nothing worth keeping.
			err = ix.remove()
		} else {
			err = ix.moveAside()
		}
		if err != nil {
			return nil, err
		}
		if err := ix.open(ctx); err != nil {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
	}
	files, err := ix.store.Scan()
	if err != nil {
		ix.Close()
		return nil, err
	}
	if len(files) == 0 {
		return ix, nil // a new, empty knowledge base: nothing to say
	}
	oo := ix.opts
	if oo.noRebuild {
		ix.Close()
		return nil, fmt.Errorf("%s: %w", reason, ErrNeedsRebuild)
	}
	if oo.onRebuild != nil {
		oo.onRebuild(reason, len(files))
	}
	st, err := ix.Update(ctx, oo.update)
	if err != nil {
		ix.Close()
		return nil, fmt.Errorf("rebuild index %s: %w", path, err)
	}
	ix.RebuildStats = st
	ix.Rebuilt = fmt.Sprintf("%s; rebuilt it from %d documents in %s", reason, st.Indexed, st.Duration.Round(time.Millisecond))
	return ix, nil
}

var errOutdated = errors.New("catalog schema is outdated")

// pageSize is the catalog's page size. A search reads posting lists and
// rows scattered over the file through a memory map; with 16 KiB pages it
// takes a quarter of the page faults it takes with SQLite's default 4 KiB
// (a prompt hook got measurably faster; docs/benchmarks.md), while a reindex after one
// edit costs the same (64 KiB pages were slower to update).
const pageSize = 16384

// initFile gives a new, empty catalog file its page size, which must be
// set before anything is written: the WAL mode the connections ask for
// would fix the default at once. The file is made under a temporary name
// and linked into place, which fails if another process got there first:
// two processes switching one new file to WAL at once deadlock in SQLite
// (one gets "database is locked" at once, busy timeout or not).
func initFile(ctx context.Context, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*.db")
	if err != nil {
		return fmt.Errorf("create catalog: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := setPageSize(ctx, tmp.Name()); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create catalog: %w", err)
	}
	return nil
}

// setPageSize sets the page size and WAL mode of the empty database file
// at path.
func setPageSize(ctx context.Context, path string) error {
	db, err := sql.Open(driverName, "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, p := range []string{fmt.Sprintf(`PRAGMA page_size = %d`, pageSize), `PRAGMA journal_mode = WAL`} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("create catalog: %w", err)
		}
	}
	return nil
}

func (ix *Index) open(ctx context.Context) error {
	if msg := clearSidecars(ix.path); msg != "" {
		ix.Repaired = msg
	}
	if fi, err := os.Stat(ix.path); errors.Is(err, fs.ErrNotExist) {
		if err := initFile(ctx, ix.path); err != nil {
			return err
		}
	} else if err == nil && fi.Size() == 0 {
		// Left empty by a crash or another tool: still no pages to keep.
		if err := setPageSize(ctx, ix.path); err != nil {
			return err
		}
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "5000")
	q.Set("_txlock", "immediate")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "0")
	// A 64 MB page cache instead of SQLite's 2 MB: indexing inserts into
	// the graph's and postings' B-trees at random, and with 2 MB a full
	// reindex re-read evicted pages for more than twice the system time it
	// spends with 64 MB (measured in docs/benchmarks.md). The cache grows only as pages are used: a hook's
	// searches read through the memory map and do not fill it. An
	// incremental update starts with planCacheKB instead (update.go).
	q.Set("_cache_size", fmt.Sprint(-cacheKB))
	db, err := sql.Open(driverName, "file:"+ix.path+"?"+q.Encode())
	if err != nil {
		return err
	}
	// One connection: a CLI process does one thing at a time, and a single
	// connection keeps the page cache warm between statements.
	db.SetMaxOpenConns(1)
	ix.db = db
	// Memory-map the catalog: a search touches hundreds of pages, and one
	// pread per page was a third of a search's time. Reads only; writes
	// still go through the WAL.
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`PRAGMA mmap_size = %d`, mmapSize)); err != nil {
		return err
	}
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	switch version {
	case schemaVersion:
		return nil
	case 0:
		return ix.createSchema(ctx)
	case 15, 16, 17:
		// Three columns with defaults and a copy of the relations: a hook
		// migrates a small graph itself, a large one would take it past
		// its deadline and roll back (as 12 to 14 below).
		if ix.opts.noRebuild {
			var rows int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM relations LIMIT ?)`, hookMigrateRelations+1).Scan(&rows); err != nil {
				return err
			}
			if rows > hookMigrateRelations {
				return errOutdated
			}
		}
		return ix.migrate(ctx, version)
	case 12, 13, 14:
		if ix.opts.noRebuild {
			// Seconds at 100,000 learnings: past a hook's deadline, which
			// would roll it back for the next hook to start again. The
			// 'reflect reindex' the hook starts migrates instead.
			return errOutdated
		}
		return ix.migrate(ctx, version)
	default:
		return errOutdated
	}
}

// migrate brings a schema 12 to 17 catalog to 18 in place, where a
// rebuild would take minutes at 100,000 learnings: 13 added the docs_tail
// index (short ids without listing documents/), 14 the postings_term index
// (docs/benchmarks.md has its cost), 15 the commands table and the
// docs_project index (migrateCommands fills the table from the catalog), 16
// the hold, helpful and feedback columns (feedback and supersession, filled
// as learnings are next indexed: no learning written before 16 has marks,
// and a hand-written superseded_by takes effect at the next 'reflect
// reindex --full'), 17 the relations table without a rowid and two of
// its three indexes (graph.MigrateRelations), 18 the strength stored with
// NUMERIC affinity (the same copy of the relations), a mention's source
// heuristic stored empty (graph.MigrateMentions), and the hash
// embedder's vectors out of the vectors table (recomputable: the table
// copied without them). It holds the update lock, so that
// another process's add or forget waits for it there rather than on
// SQLite's busy timeout.
func (ix *Index) migrate(ctx context.Context, from int) error {
	unlock, err := ix.lockUpdates(ctx, 0)
	if err != nil {
		return err
	}
	defer unlock()
	var stmts []string
	if from == 12 {
		stmts = append(stmts, docsTailIndex)
	}
	if from <= 13 {
		stmts = append(stmts, postingsTermIndex)
	}
	var fill func(context.Context, *sql.Tx) error
	if from <= 14 {
		stmts = append(stmts, commandsSchema, commandsDocIndex, docsProjectIndex)
		fill = migrateCommands
	}
	if from <= 15 {
		stmts = append(stmts, docsHoldColumns...)
	}
	stmts = append(stmts, graph.MigrateRelations()...)
	stmts = append(stmts, graph.MigrateMentions()...)
	hash, err := storedRecomputable(ctx, ix.db)
	if err != nil {
		return err
	}
	if hash {
		stmts = append(stmts, dropRecomputableVectors...)
	}
	return ix.schemaTx(ctx, from, stmts, fill, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))
}

func (ix *Index) createSchema(ctx context.Context) error {
	if err := ix.schemaTx(ctx, 0, allSchema, nil, ""); err != nil {
		return err
	}
	_ = os.Chmod(ix.path, fsutil.FilePerm)
	return nil
}

// schemaTx runs stmts, then fill (when not nil), then stamp (when not
// empty) in one transaction when the catalog's user_version, read again
// inside it, is still from: another process may have created or migrated
// the schema while this one waited for the lock.
func (ix *Index) schemaTx(ctx context.Context, from int, stmts []string, fill func(context.Context, *sql.Tx) error, stamp string) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version != from {
		return tx.Commit()
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("schema %d: %w", schemaVersion, err)
		}
	}
	if fill != nil {
		if err := fill(ctx, tx); err != nil {
			return fmt.Errorf("schema %d: %w", schemaVersion, err)
		}
	}
	if stamp != "" {
		if _, err := tx.ExecContext(ctx, stamp); err != nil {
			return fmt.Errorf("schema %d: %w", schemaVersion, err)
		}
	}
	return tx.Commit()
}

// ErrNoFTS5 means the SQLite linked into this binary has no FTS5 module:
// reflect was built without -tags sqlite_fts5 (which internal/fts5tag
// forbids) or against a system SQLite built without it. No reindex can
// help; only a rebuild can.
var ErrNoFTS5 = errors.New("this reflect binary's SQLite has no FTS5: rebuild it with 'go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/reflect@latest' (in a clone: make install)")

// noFTS5 turns SQLite's "no such module: fts5" into ErrNoFTS5, which says
// what to do about it; other errors pass through.
func noFTS5(err error) error {
	if IsNoFTS5(err) && !errors.Is(err, ErrNoFTS5) {
		return fmt.Errorf("%w (%v)", ErrNoFTS5, err)
	}
	return err
}

// IsNoFTS5 reports whether err comes from a SQLite without FTS5: ErrNoFTS5,
// or SQLite's own "no such module: fts5" from a query on a catalog that a
// complete build created.
func IsNoFTS5(err error) bool {
	return err != nil && (errors.Is(err, ErrNoFTS5) || strings.Contains(err.Error(), "no such module: fts5"))
}

func isCorrupt(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt
	}
	return err != nil && strings.Contains(err.Error(), "malformed")
}

// moveAside keeps a damaged catalog for inspection instead of deleting it,
// and removes its WAL files so the new catalog does not replay them.
func (ix *Index) moveAside() error {
	if err := os.Rename(ix.path, ix.path+".corrupt"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("move damaged index aside: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Remove(ix.path + suffix)
	}
	return nil
}

// clearSidecars removes whatever is not a regular file at the catalog's
// -wal and -shm paths, and says what it removed. SQLite refuses a
// symlinked WAL ("too many levels of symbolic links"), so one planted there
// broke every search until someone acted; it never holds data of ours, so
// removing the link (never its target) loses nothing. A directory is moved
// aside rather than deleted.
func clearSidecars(path string) string {
	var done []string
	for _, suffix := range []string{"-wal", "-shm"} {
		p := path + suffix
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		if fi.IsDir() {
			if err := os.Rename(p, p+".moved-aside"); err == nil {
				done = append(done, filepath.Base(p)+" was a directory; moved it aside to "+filepath.Base(p)+".moved-aside")
			}
			continue
		}
		if err := os.Remove(p); err == nil {
			done = append(done, fmt.Sprintf("%s was %s, not a regular file; removed it", filepath.Base(p), fsutil.Kind(fi.Mode())))
		}
	}
	return strings.Join(done, "; ")
}

// remove deletes the catalog and its WAL files.
func (ix *Index) remove() error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(ix.path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove outdated index: %w", err)
		}
	}
	return nil
}

// Close releases the database.
func (ix *Index) Close() error {
	ix.closeVectors()
	if ix.db == nil {
		return nil
	}
	err := ix.db.Close()
	ix.db = nil
	return err
}

// Path is the catalog file.
func (ix *Index) Path() string { return ix.path }

// Store is the documents store the index covers.
func (ix *Index) Store() *store.Store { return ix.store }

// recoverCorrupt handles an error from a query: when SQLite reports the
// catalog damaged (pages can rot behind a sound header, where Open cannot
// see it), the catalog is moved aside and rebuilt from the documents, and
// nil tells the caller to retry. Any other error is returned as it is.
func (ix *Index) recoverCorrupt(ctx context.Context, err error) error {
	if err == nil || !isCorrupt(err) {
		return err
	}
	if ix.opts.noRebuild {
		return fmt.Errorf("catalog.db is damaged (%v): %w", err, ErrNeedsRebuild)
	}
	ix.Close()
	if merr := ix.moveAside(); merr != nil {
		return merr
	}
	if oerr := ix.open(ctx); oerr != nil {
		return fmt.Errorf("open index %s: %w", ix.path, oerr)
	}
	// Said before it starts, as Open does: a search that found the damage
	// spent seconds rebuilding without a word.
	if ix.opts.onRebuild != nil {
		if files, serr := ix.store.Scan(); serr == nil && len(files) > 0 {
			ix.opts.onRebuild(fmt.Sprintf("catalog.db is damaged (%v); the damaged file was kept as catalog.db.corrupt", err), len(files))
		}
	}
	st, uerr := ix.update(ctx, ix.opts.update)
	if uerr != nil {
		return fmt.Errorf("rebuild index %s: %w", ix.path, uerr)
	}
	ix.RebuildStats = st
	ix.Rebuilt = fmt.Sprintf("catalog.db was damaged (%v); the damaged file was kept as catalog.db.corrupt; rebuilt it from %d documents in %s",
		err, st.Indexed, st.Duration.Round(time.Millisecond))
	return nil
}

// isLocked reports SQLite's "database is locked" (or a locked table):
// another connection's write transaction outlasted the busy timeout.
func isLocked(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
