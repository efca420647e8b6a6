package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Hit is a learning found through the entities a query names.
type Hit struct {
	Doc   int64   `json:"doc"`   // rowid of the index's docs table
	Score float64 `json:"score"` // summed entity weights; comparable within one Expand call only
	Via   string  `json:"via"`   // the entity that contributed most, as named in the graph
}

// Expansion settings. Scores: an entity named in the query gives each
// learning that mentions it damp(df); a neighbour of it (one relation
// away) gives damp(df) × damp(df of the neighbour) × strength/10 ×
// neighbourDecay. Learnings sum what their entities give.
const (
	neighbourDecay = 0.5
	// hubDocs: an entity mentioned by more learnings than this is a hub.
	// It is not expanded to its neighbours (they are half the knowledge
	// base and say nothing about the query), it is nobody's neighbour, it
	// re-ranks more than it recalls (see aggregate), and Rebuild leaves it
	// out of Louvain. Its mention list would otherwise cost more than
	// Expand's whole time budget (docs/benchmarks.md).
	hubDocs = 200
	// maxNeighbours per query entity, strongest relations first.
	maxNeighbours = 8
	// maxSeeds bounds the query entities used, rarest first.
	maxSeeds = 16
	// maxQueryBytes and maxCandidates bound the work for a long prompt.
	maxQueryBytes = 8 << 10
	maxCandidates = 512
	defaultLimit  = 50
)

// damp weighs an entity by its document frequency, as idf does for a term,
// so very common entities ("git", "json") count little: 1 for an entity of
// one learning, 0.30 for 10, 0.18 for 100, 0.13 for 1,000. It needs no
// count of all learnings, which the graph does not keep.
func damp(df int) float64 {
	if df < 1 {
		return 0
	}
	return 1 / (1 + math.Log(float64(df)))
}

// span is where a candidate name occurs in the query, in bytes.
type span struct{ start, end int }

// Expand finds the learnings related to the entities named in query: those
// that mention one (weighted by damp) and those that mention a neighbour
// of one through a relation (further weighted by strength and decay; see
// neighbourDecay). Names are matched by their norm against the query's
// identifiers and paths as whole tokens, its word n-grams up to four
// words, and the entities Extract finds in it; a name found only inside a
// longer matched name ("cookie" in "state cookie") does not count. Hubs,
// entities of more than hubDocs learnings, are not expanded and re-rank
// more than they recall (see aggregate). At most limit hits are returned
// (0: defaultLimit), best first, ties newest docs row first. A query that
// names no entity gives no hits and no error.
func Expand(ctx context.Context, db Conn, query string, limit int) ([]Hit, error) {
	loadVocab()
	if limit <= 0 {
		limit = defaultLimit
	}
	seeds, err := querySeeds(ctx, db, query)
	if err != nil || len(seeds) == 0 {
		return nil, err
	}

	weights := map[int64]*weight{}
	for _, s := range seeds {
		weights[s.id] = &weight{w: damp(s.df), via: s.name, df: s.df, seed: true}
	}
	for _, s := range seeds {
		if s.df > hubDocs {
			continue
		}
		ns, err := neighbours(ctx, db, s.id, maxNeighbours)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			x := damp(s.df) * damp(n.df) * n.strength / 10 * neighbourDecay
			// A hub neighbour would add about 0.01 to a thousand learnings:
			// no change to the ranking, most of the cost.
			if x <= 0 || n.df > hubDocs {
				continue
			}
			if w, ok := weights[n.id]; ok {
				if !w.seed {
					w.w += x
				}
				continue
			}
			weights[n.id] = &weight{w: x, via: n.name, df: n.df}
		}
	}
	return aggregate(ctx, db, weights, limit)
}

// weight is what an entity gives each learning that mentions it.
type weight struct {
	w    float64
	via  string
	df   int
	seed bool // named in the query, not a neighbour
}

// aggregate sums the weights per learning inside SQLite, so that mention
// lists never cross into Go, and returns the best limit learnings.
//
// Hubs named in the query (entities of more than hubDocs learnings)
// re-rank rather than recall: they add their small weight to the
// learnings found through rarer entities (a primary-key probe each), and
// bring their newest limit learnings, never all of their thousands, which
// would cost milliseconds to rank by weights this small.
func aggregate(ctx context.Context, db Conn, weights map[int64]*weight, limit int) ([]Hit, error) {
	ids := make([]int64, 0, len(weights))
	for id := range weights {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var fan, hubs, recall []any
	for _, id := range ids {
		w := weights[id]
		if w.df > hubDocs {
			hubs = append(hubs, id, w.w, w.via)
			recall = append(recall, w.w, w.via, id, limit)
		} else {
			fan = append(fan, id, w.w, w.via)
		}
	}
	var q strings.Builder
	var args []any
	q.WriteString("WITH w(entity, weight, via) AS (")
	values(&q, len(fan)/3)
	args = append(args, fan...)
	q.WriteString("), h(entity, weight, via) AS (")
	values(&q, len(hubs)/3)
	args = append(args, hubs...)
	q.WriteString(`),
	found(doc, weight, via) AS MATERIALIZED (SELECT m.doc, w.weight, w.via FROM w JOIN mentions m ON m.entity = w.entity),
	hits(doc, weight, via) AS (
		SELECT doc, weight, via FROM found
		UNION ALL
		SELECT c.doc, h.weight, h.via FROM (SELECT DISTINCT doc FROM found) c CROSS JOIN h
			JOIN mentions m ON m.entity = h.entity AND m.doc = c.doc`)
	for i := 0; i < len(recall)/4; i++ {
		q.WriteString(`
		UNION ALL
		SELECT doc, ?, ? FROM (SELECT doc FROM mentions WHERE entity = ? AND doc NOT IN (SELECT doc FROM found) ORDER BY doc DESC LIMIT ?)`)
	}
	args = append(args, recall...)
	q.WriteString(`)
	SELECT doc, sum(weight) AS score, max(weight), via FROM hits
	GROUP BY doc ORDER BY score DESC, doc DESC LIMIT ?`)
	args = append(args, limit)
	rows, err := db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("graph: expand: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var best float64
		if err := rows.Scan(&h.Doc, &h.Score, &best, &h.Via); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// values writes n rows of (?,?,?) as a VALUES list, or an empty select of
// the same shape: SQLite has no empty VALUES.
func values(q *strings.Builder, n int) {
	if n == 0 {
		q.WriteString("SELECT NULL, NULL, NULL WHERE 0")
		return
	}
	q.WriteString("VALUES (?,?,?)")
	q.WriteString(strings.Repeat(",(?,?,?)", n-1))
}

// seed is an entity named in the query, or a neighbour of one.
type seed struct {
	id       int64
	name     string
	df       int
	strength float64 // neighbours only: the strongest relation to the seed
}

// querySeeds is the entities the query names (see lookup), or none when
// it holds no candidate name.
func querySeeds(ctx context.Context, db Conn, query string) ([]seed, error) {
	cands := queryCandidates(query)
	if len(cands) == 0 {
		return nil, nil
	}
	return lookup(ctx, db, cands)
}

// lookup finds the entities among the candidate names, with their document
// frequencies, in one statement; the rarest maxSeeds are kept.
func lookup(ctx context.Context, db Conn, cands map[string][]span) ([]seed, error) {
	norms := make([]string, 0, len(cands))
	for n := range cands {
		norms = append(norms, n)
	}
	sort.Strings(norms)
	list, err := json.Marshal(norms)
	if err != nil {
		return nil, err
	}
	// json_each passes any number of names as one parameter; SQLite probes
	// the unique index on norm once per name.
	rows, err := db.QueryContext(ctx, `SELECT e.id, e.norm, e.name, e.df
		FROM entities e WHERE e.norm IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("graph: expand: %w", err)
	}
	defer rows.Close()
	type match struct {
		seed
		norm string
	}
	var found []match
	for rows.Next() {
		var m match
		if err := rows.Scan(&m.id, &m.norm, &m.name, &m.df); err != nil {
			return nil, err
		}
		if m.df > 0 {
			found = append(found, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: expand: %w", err)
	}
	// A name found only inside a longer matched name does not count:
	// "callback/cookie.go" is one entity, not also "cookie" and "go".
	inside := func(sp span, norm string) bool {
		for _, f := range found {
			if f.norm == norm {
				continue
			}
			for _, o := range cands[f.norm] {
				if o.start <= sp.start && sp.end <= o.end && o.end-o.start > sp.end-sp.start {
					return true
				}
			}
		}
		return false
	}
	var seeds []seed
	for _, m := range found {
		for _, sp := range cands[m.norm] {
			if !inside(sp, m.norm) {
				seeds = append(seeds, m.seed)
				break
			}
		}
	}
	sort.Slice(seeds, func(i, j int) bool {
		if seeds[i].df != seeds[j].df {
			return seeds[i].df < seeds[j].df
		}
		return seeds[i].id < seeds[j].id
	})
	if len(seeds) > maxSeeds {
		seeds = seeds[:maxSeeds]
	}
	return seeds, nil
}

// neighbours returns the entities one relation away from id, in either
// direction, strongest first and then by how many relations join them.
func neighbours(ctx context.Context, db Conn, id int64, limit int) ([]seed, error) {
	rows, err := db.QueryContext(ctx, `SELECT n.other, e.name, n.s, e.df
		FROM (SELECT other, CAST(max(st) AS REAL) AS s, count(*) AS c FROM (
				SELECT dst AS other, st FROM relations WHERE src = ?1
				UNION ALL
				SELECT src AS other, st FROM relations WHERE dst = ?1)
			WHERE other <> ?1 GROUP BY other ORDER BY s DESC, c DESC, other LIMIT ?2) n
		JOIN entities e ON e.id = n.other`, id, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: expand: %w", err)
	}
	defer rows.Close()
	var out []seed
	for rows.Next() {
		var s seed
		if err := rows.Scan(&s.id, &s.name, &s.strength, &s.df); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// queryCandidates lists the names a query may refer to, by norm, with
// where each occurs: what Extract finds in it (so "postgres" and "404 Not
// Found" match as "PostgreSQL" and "HTTP 404"), every token whole (paths,
// identifiers: "callback/cookie.go", "SameSite=Strict" and its key), and
// word n-grams of up to four words that neither start nor end with a stop
// word. Ambiguous tool names ("go", "make") count only where Extract says
// they are the tool.
func queryCandidates(q string) map[string][]span {
	loadVocab()
	if len(q) > maxQueryBytes {
		q = q[:maxQueryBytes]
	}
	x := newExtractor(q)
	x.run()
	out := map[string][]span{}
	put := func(norm string, sp span) {
		if _, ok := out[norm]; !ok && len(out) >= maxCandidates {
			return
		}
		for _, have := range out[norm] {
			if have == sp {
				return
			}
		}
		out[norm] = append(out[norm], sp)
	}
	add := func(name string, start, end int) {
		norm := Normalize(name)
		if len(norm) < 2 || !hasLetter(norm) || stopwords[norm] || ambiguous[norm] || literals[norm] {
			return
		}
		put(norm, span{start, end})
	}
	for _, c := range x.cands {
		put(c.norm, span{c.start, c.end})
	}
	for _, t := range x.toks {
		add(t.s, t.start, t.end)
		if i := strings.IndexByte(t.s, '='); i > 0 {
			add(t.s[:i], t.start, t.start+i)
		}
	}
	ws := x.words
	for i := range ws {
		if stopwords[ws[i].s] || joinedBefore(q, ws[i].start) {
			continue
		}
		for n := 1; n <= 4 && i+n <= len(ws); n++ {
			j := i + n - 1
			if n > 1 && !x.near(j-1, j, " -") {
				break
			}
			if stopwords[ws[j].s] || n == 1 && isDigits(ws[i].s) || joinedAfter(q, ws[j].end) {
				continue
			}
			add(q[ws[i].start:ws[j].end], ws[i].start, ws[j].end)
		}
	}
	return out
}

// joinedBefore and joinedAfter report a word glued to the next one by
// "./\\:@_" ("callback/cookie.go", "os.ReadFile", "std::io"): an n-gram
// never starts or ends inside such a token, whose whole is a candidate of
// its own. A colon or full stop before a space is only punctuation.
func joinedBefore(q string, start int) bool {
	return start >= 2 && joins(q[start-1]) && isWordByte(asciiLower(q[start-2 : start-1])[0])
}

func joinedAfter(q string, end int) bool {
	return end+1 < len(q) && joins(q[end]) && isWordByte(asciiLower(q[end+1 : end+2])[0])
}

func joins(c byte) bool {
	return strings.IndexByte("./\\:@_", c) >= 0
}

// Rerank scores docs, the rowids of learnings another signal found, by the
// entities named in query that each mentions, weighted by damp as in
// Expand, best first. It neither expands to neighbours nor looks for other
// learnings: it is Expand for a caller that only orders candidates (a
// hook, which injects nothing without a lexical match), at a fraction of
// the cost.
func Rerank(ctx context.Context, db Conn, query string, docs []int64) ([]Hit, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	seeds, err := querySeeds(ctx, db, query)
	if err != nil || len(seeds) == 0 {
		return nil, err
	}
	bySeed := make(map[int64]seed, len(seeds))
	for _, s := range seeds {
		bySeed[s.id] = s
	}
	// Probes of the (entity, doc) primary key, entity by entity: one
	// region of the table per seed. Reading each candidate's mentions by
	// the doc index instead touched a page or two per candidate, which a
	// cold hook felt (docs/benchmarks.md).
	args := make([]any, 0, len(seeds)+len(docs))
	for _, s := range seeds {
		args = append(args, s.id)
	}
	for _, d := range docs {
		args = append(args, d)
	}
	rows, err := db.QueryContext(ctx, `SELECT doc, entity FROM mentions INDEXED BY sqlite_autoindex_mentions_1
		WHERE entity IN (?`+strings.Repeat(",?", len(seeds)-1)+`) AND doc IN (?`+strings.Repeat(",?", len(docs)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: rerank: %w", err)
	}
	defer rows.Close()
	type acc struct {
		score, best float64
		via         string
	}
	scores := map[int64]*acc{}
	for rows.Next() {
		var doc, entity int64
		if err := rows.Scan(&doc, &entity); err != nil {
			return nil, err
		}
		s, ok := bySeed[entity]
		if !ok {
			continue
		}
		a := scores[doc]
		if a == nil {
			a = &acc{}
			scores[doc] = a
		}
		w := damp(s.df)
		a.score += w
		if w > a.best {
			a.best, a.via = w, s.name
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: rerank: %w", err)
	}
	hits := make([]Hit, 0, len(scores))
	for doc, a := range scores {
		hits = append(hits, Hit{Doc: doc, Score: a.score, Via: a.via})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc > hits[j].Doc
	})
	return hits, nil
}
