package index

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/store"
)

// Query is a search request.
type Query struct {
	Text  string
	Limit int
	// Project ranks learnings of this project first: its project-scoped
	// learnings are boosted, other projects' project-scoped ones demoted.
	Project string
}

// Result is one ranked learning.
type Result struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Score      float64  `json:"score"`
	Confidence string   `json:"confidence"`
	Type       string   `json:"type"`
	Scope      string   `json:"scope,omitempty"`
	Project    string   `json:"project,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	KeyInsight string   `json:"key_insight,omitempty"`
	Path       string   `json:"path"`
	Snippet    string   `json:"snippet"`
	Updated    string   `json:"updated"`
	Why        Why      `json:"why"`
}

// Why explains a result's score: each signal's rank (0 when the signal did
// not find the learning), its raw score, and the factors applied after
// fusion.
type Why struct {
	LexicalRank  int     `json:"lexical_rank"`
	BM25         float64 `json:"bm25"`
	TrigramRank  int     `json:"trigram_rank"`
	Fused        float64 `json:"fused"`
	Confidence   float64 `json:"confidence_factor"`
	Scope        float64 `json:"scope_factor"`
	MatchedTerms int     `json:"matched_terms"`
}

// Fusion settings. Reciprocal-rank fusion needs no score calibration between
// signals: each list contributes weight/(rrfK+rank).
const (
	rrfK          = 60.0
	weightLexical = 1.0
	weightTrigram = 0.5
)

var confidenceFactor = map[string]float64{"high": 1.0, "medium": 0.8, "low": 0.55}

// Search ranks learnings for free text. The text is quoted (QuoteQuery) and
// matched with BM25F; identifier-like tokens are also matched as substrings
// in the trigram table; the two lists are fused by weighted reciprocal
// rank and scaled by confidence and project scope. Text without searchable
// words gives no results and no error.
func (ix *Index) Search(ctx context.Context, q Query) ([]Result, error) {
	res, err := ix.search(ctx, q)
	if rerr := ix.recoverCorrupt(ctx, err); rerr != nil || err == nil {
		return res, rerr
	}
	return ix.search(ctx, q)
}

func (ix *Index) search(ctx context.Context, q Query) ([]Result, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	terms := Terms(q.Text)
	idents := Identifiers(q.Text)
	if len(terms) == 0 && len(idents) == 0 {
		return nil, nil
	}
	type cand struct {
		why Why
	}
	cands := map[int64]*cand{}
	get := func(n int64) *cand {
		c, ok := cands[n]
		if !ok {
			c = &cand{}
			cands[n] = c
		}
		return c
	}
	if len(terms) > 0 {
		lexical, err := ix.lexical(ctx, terms, candidatesFor(q.Limit))
		if err != nil {
			return nil, err
		}
		for i, h := range lexical {
			c := get(h.n)
			c.why.LexicalRank = i + 1
			c.why.BM25 = h.score
		}
	}
	if len(idents) > 0 {
		var quoted []string
		for _, id := range idents {
			quoted = append(quoted, `"`+strings.ReplaceAll(id, `"`, `""`)+`"`)
		}
		rows, err := ix.db.QueryContext(ctx,
			`SELECT rowid FROM tri WHERE tri MATCH ? ORDER BY rank LIMIT ?`, strings.Join(quoted, " OR "), candidatesFor(q.Limit))
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		rank := 0
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			rank++
			get(n).why.TrigramRank = rank
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}

	ns := make([]int64, 0, len(cands))
	for n := range cands {
		ns = append(ns, n)
	}
	// Only what ranking needs is read for every candidate; the rest of a
	// result is read for the few that are returned.
	metas, err := ix.loadMeta(ctx, ns, factorColumns, scanFactors)
	if err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(metas))
	nOf := make(map[string]int64, len(metas))
	for n, r := range metas {
		nOf[r.ID] = n
		w := cands[n].why
		if w.LexicalRank > 0 {
			w.Fused += weightLexical / (rrfK + float64(w.LexicalRank))
		}
		if w.TrigramRank > 0 {
			w.Fused += weightTrigram / (rrfK + float64(w.TrigramRank))
		}
		w.Confidence = confidenceFactor[r.Confidence]
		if w.Confidence == 0 {
			w.Confidence = confidenceFactor["medium"]
		}
		w.Scope = scopeFactor(r, q.Project)
		r.Why = w
		r.Score = w.Fused * w.Confidence * w.Scope
		results = append(results, r)
	}
	sort.Slice(results, func(i, j int) bool {
		if results[i].Score != results[j].Score {
			return results[i].Score > results[j].Score
		}
		return results[i].ID < results[j].ID
	})
	if len(results) > q.Limit {
		results = results[:q.Limit]
	}
	top := make([]int64, len(results))
	for i, r := range results {
		top[i] = nOf[r.ID]
	}
	full, err := ix.loadMeta(ctx, top, metaColumns, scanMeta)
	if err != nil {
		return nil, err
	}
	for i, r := range results {
		f := full[top[i]]
		f.Why, f.Score = r.Why, r.Score
		results[i] = f
	}
	bodies, err := ix.bodies(ctx, results)
	if err != nil {
		return nil, err
	}
	for i := range results {
		results[i].Snippet = snippet(bodies[results[i].ID], results[i].KeyInsight, terms)
		results[i].Why.MatchedTerms = matchedTerms(results[i].Title+"\n"+results[i].KeyInsight+"\n"+bodies[results[i].ID], terms)
	}
	return results, nil
}

// scopeFactor prefers the current project's learnings and pushes down
// learnings that are scoped to some other project; global ones are neutral.
func scopeFactor(r Result, project string) float64 {
	if project == "" || r.Scope != "project" || r.Project == "" {
		return 1
	}
	if strings.EqualFold(r.Project, project) {
		return 1.25
	}
	return 0.8
}

const metaColumns = `n, id, path, title, key_insight, type, confidence, scope, project, tags, updated`

func scanMeta(rows *sql.Rows) (int64, Result, error) {
	var n int64
	var r Result
	var tags string
	err := rows.Scan(&n, &r.ID, &r.Path, &r.Title, &r.KeyInsight, &r.Type, &r.Confidence, &r.Scope, &r.Project, &tags, &r.Updated)
	if tags != "" {
		r.Tags = strings.Split(tags, ",")
	}
	return n, r, err
}

const factorColumns = `n, id, confidence, scope, project`

func scanFactors(rows *sql.Rows) (int64, Result, error) {
	var n int64
	var r Result
	err := rows.Scan(&n, &r.ID, &r.Confidence, &r.Scope, &r.Project)
	return n, r, err
}

func (ix *Index) loadMeta(ctx context.Context, ns []int64, columns string, scan func(*sql.Rows) (int64, Result, error)) (map[int64]Result, error) {
	if len(ns) == 0 {
		return map[int64]Result{}, nil
	}
	args := make([]any, len(ns))
	for i, n := range ns {
		args[i] = n
	}
	rows, err := ix.db.QueryContext(ctx,
		`SELECT `+columns+` FROM docs WHERE n IN (?`+strings.Repeat(",?", len(ns)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]Result, len(ns))
	for rows.Next() {
		n, r, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out[n] = r
	}
	return out, rows.Err()
}

// bodies reads the indexed body text of results in one query.
func (ix *Index) bodies(ctx context.Context, results []Result) (map[string]string, error) {
	out := make(map[string]string, len(results))
	if len(results) == 0 {
		return out, nil
	}
	args := make([]any, len(results))
	for i, r := range results {
		args[i] = r.ID
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT d.id, f.body FROM fts f JOIN docs d ON d.n = f.rowid WHERE d.id IN (?`+strings.Repeat(",?", len(results)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		out[id] = body
	}
	return out, rows.Err()
}

// matchedTerms counts the query terms that occur in text (by stem prefix).
func matchedTerms(text string, terms []string) int {
	lower := strings.ToLower(text)
	n := 0
	for _, t := range terms {
		if strings.Contains(lower, stemPrefix(t)) {
			n++
		}
	}
	return n
}

// snippet picks the line of context a user sees under a result: the key
// insight when there is one, else the stretch of body around the first
// query term.
func snippet(body, insight string, terms []string) string {
	if insight != "" {
		return clip(insight, 200)
	}
	first := -1
	for _, t := range terms {
		if i := indexFold(body, stemPrefix(t)); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	start := 0
	if first > 60 {
		start = first - 60
	}
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	s := strings.Join(strings.Fields(body[start:]), " ")
	if start > 0 {
		s = "…" + s
	}
	return clip(s, 200)
}

// indexFold is strings.Index ignoring case, with the offset of the match in
// s itself: lowercasing s first would shift byte offsets (Ⱥ takes 2 bytes,
// ⱥ takes 3).
func indexFold(s, lowerSub string) int {
	if lowerSub == "" {
		return 0
	}
	for i := range s {
		j, k := i, 0
		for k < len(lowerSub) && j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			q, m := utf8.DecodeRuneInString(lowerSub[k:])
			if unicode.ToLower(r) != q {
				break
			}
			j += n
			k += m
		}
		if k == len(lowerSub) {
			return i
		}
	}
	return -1
}

// stemPrefix approximates the porter stem of a query term so a snippet can
// find "caching" when the user typed "cached".
func stemPrefix(t string) string {
	if len(t) > 5 {
		return t[:len(t)-2]
	}
	return t
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// ListOptions filters List.
type ListOptions struct {
	Limit   int
	Project string
}

// List returns indexed learnings, most recently updated first.
func (ix *Index) List(ctx context.Context, opts ListOptions) ([]Result, error) {
	if opts.Limit <= 0 {
		opts.Limit = 50
	}
	query := `SELECT ` + metaColumns + ` FROM docs`
	var args []any
	if opts.Project != "" {
		query += ` WHERE project = ? COLLATE NOCASE`
		args = append(args, opts.Project)
	}
	query += ` ORDER BY updated DESC, id LIMIT ?`
	args = append(args, opts.Limit)
	rows, err := ix.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		_, r, err := scanMeta(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Counts summarises the catalog for doctor and status.
type Counts struct {
	Learnings int `json:"learnings"`
	Mini      int `json:"mini"`
	Problems  int `json:"problems"`
}

// Count returns how many learnings are indexed and how many documents were
// found malformed at the last reindex.
func (ix *Index) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := ix.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE type='mini') FROM docs`).Scan(&c.Learnings, &c.Mini)
	if err != nil {
		return c, err
	}
	err = ix.db.QueryRowContext(ctx, `SELECT count(*) FROM problems`).Scan(&c.Problems)
	return c, err
}

// DocCount is the number of indexed learnings as of the last reindex, read
// from one stored row: cheaper than Count on every hook.
func (ix *Index) DocCount(ctx context.Context) (int, error) {
	cs, err := loadCorpusStats(ctx, ix.db)
	return cs.docs, err
}

// Problems lists the malformed documents recorded by the last reindex.
func (ix *Index) Problems(ctx context.Context) ([]*store.DocError, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, reason FROM problems ORDER BY path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.DocError
	for rows.Next() {
		var e store.DocError
		if err := rows.Scan(&e.Path, &e.Reason); err != nil {
			return nil, err
		}
		out = append(out, &e)
	}
	return out, rows.Err()
}

// Check runs SQLite's integrity check; "ok" means healthy.
func (ix *Index) Check(ctx context.Context) (string, error) {
	var res string
	err := ix.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res)
	if err != nil {
		return "", err
	}
	var fts string
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)`); err != nil {
		fts = "; full-text index: " + err.Error()
	}
	return res + fts, nil
}

// candidatesFor is how many learnings each signal contributes to fusion
// for a search of limit results: enough that the factors applied after
// fusion (confidence, scope, recency, freshness) can promote a learning
// from well below the top of any one list, and no more, since each
// candidate costs a row read on every search.
func candidatesFor(limit int) int {
	return max(100, 4*limit)
}

type hit struct {
	n     int64
	score float64
}
