package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/internal/text"
)

// Query is a search request.
type Query struct {
	Text  string
	Limit int
	// Project ranks learnings of this project first: its project-scoped
	// learnings are boosted, other projects' project-scoped ones demoted.
	Project string
	// Root is the current project's directory: files that learnings of
	// this project (or of none) cite by relative path are looked up under
	// it for the freshness check. Empty: only absolute cites are checked.
	Root string
	// Signals selects the ranked lists fused; zero means AllSignals.
	Signals Signals
	// Now is when recency is measured from; zero means time.Now().
	Now time.Time
	// Rerank limits the trigram, vector and graph signals to ordering the
	// best learnings the lexical signal found, instead of searching all
	// learnings for more. A caller that keeps only lexical matches
	// anyway (a hook's relevance floor) gets the same answer for a
	// fraction of the cost.
	Rerank bool
	// IDFCap, when positive, caps every query word's idf in the lexical
	// signal. A word found in one learning out of N scores ln N, so the
	// same match scores more the more unrelated learnings a KB holds; capped
	// at the idf of a rare word in a KB of about a thousand, a score means
	// the same in any KB at least that big (the recall hook's floor).
	IDFCap float64
	// Pending says whether drafts awaiting review are found (by default
	// they are not).
	Pending PendingFilter
	// aliases are the words the developer vocabulary added to the query
	// (vocab.go), each with the query's words it stands for.
	aliases map[string][]string
}

// Signals is a set of ranked lists that fusion combines.
type Signals uint8

// The signals. Lexical is BM25F over the learning's fields; Trigram
// matches identifiers, paths and error codes as substrings; Vector is the
// embedder's cosine similarity; Graph brings in the learnings that mention
// the entities the query names, and their neighbours.
const (
	Lexical Signals = 1 << iota
	Trigram
	Vector
	Graph
	AllSignals = Lexical | Trigram | Vector | Graph
)

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
	// Stale says a file the learning cites has changed since it was
	// written: the learning may be out of date. StaleFiles names them.
	Stale      bool     `json:"stale,omitempty"`
	StaleFiles []string `json:"stale_files,omitempty"`
	// Held says why the learning is kept out of automatic injection
	// (pending, superseded, never, wrong, outdated; store.Learning.Held):
	// search lists it (a pending draft only when Query.Pending asks), the
	// hooks' recall leaves it out.
	Held string `json:"held,omitempty"`
	// Feedback is the user's marks in words ("helpful 2, wrong 1").
	Feedback string `json:"feedback,omitempty"`
	Why      Why    `json:"why"`
	// Weak marks a result with little or none of the lexical evidence the
	// best result has (see markWeak): listed, but not a match to trust.
	Weak bool `json:"weak,omitempty"`

	cites   string // JSON of the learning's cites, while ranking
	helpful int    // its helpful marks, while ranking
}

// Why explains a result's score: each signal's rank (0 when the signal did
// not find the learning), raw score and share of the fused score, and the
// factors applied after fusion.
type Why struct {
	LexicalRank int     `json:"lexical_rank"`
	BM25        float64 `json:"bm25"`
	// QueryBM25 is the BM25F a learning would score by matching every
	// query word the KB holds with full weight: BM25/QueryBM25 is the
	// share of the query's evidence the learning holds, a measure that
	// does not drift with the KB's size as raw BM25F does.
	QueryBM25   float64 `json:"query_bm25,omitempty"`
	TrigramRank int     `json:"trigram_rank"`
	// Identifiers is the share of the query's identifiers (paths, flags,
	// error codes: Identifiers) the learning contains as substrings.
	Identifiers float64 `json:"identifiers,omitempty"`
	VectorRank  int     `json:"vector_rank"`
	Cosine      float64 `json:"cosine"`
	GraphRank   int     `json:"graph_rank"`
	GraphVia    string  `json:"graph_via,omitempty"`
	// GraphScore is the graph signal's raw score (summed entity weights,
	// comparable within one search only).
	GraphScore float64 `json:"graph_score,omitempty"`
	// Normalised are the signals' scores mapped into [0, 1] (see fuse),
	// Weights the weights they were fused with, and Contributions their
	// products, the terms of Fused.
	Normalised    Contributions `json:"normalised"`
	Weights       Contributions `json:"weights"`
	Contributions Contributions `json:"contributions"`
	Fused         float64       `json:"fused"`
	Confidence    float64       `json:"confidence_factor"`
	Scope         float64       `json:"scope_factor"`
	Recency       float64       `json:"recency_factor"`
	Freshness     float64       `json:"freshness_factor"`
	// Helpful is HelpfulFactor for a learning marked helpful (or
	// confirmed by more sessions than refuted it) and not held, else 1.
	Helpful float64 `json:"helpful_factor"`
	// MatchedTerms is how many of the query's (stemmed) words the learning
	// contains in any field.
	MatchedTerms int `json:"matched_terms"`
}

// HelpfulFactor raises a learning the user marked helpful ('reflect mark
// ID helpful'), however many times: a modest nudge that reorders near-ties
// and does not lift a weak match over a strong one. It is a fixed,
// untuned choice (no labelled set has marks to tune it on).
const HelpfulFactor = 1.2

var confidenceFactor = map[string]float64{"high": 1.0, "medium": 0.8, "low": 0.55}

// Search ranks learnings for free text. Up to four signals are fused by a
// weighted sum of their normalised scores: BM25F over the learning's fields, trigram
// substring matches of the identifiers in the text, the embedder's cosine
// similarity, and the entity graph. The fused score is then scaled by
// confidence, project scope, recency and freshness (a learning citing a
// file that changed is demoted and marked Stale). Text without searchable
// words gives no results and no error.
func (ix *Index) Search(ctx context.Context, q Query) ([]Result, error) {
	res, err := ix.search(ctx, q)
	if rerr := ix.recoverCorrupt(ctx, err); rerr != nil || err == nil {
		return res, rerr
	}
	return ix.search(ctx, q)
}

// search runs the stages of a search in order: collect the candidates of
// each signal, fuse their ranks, apply the factors to the best, and
// hydrate the results returned.
func (ix *Index) search(ctx context.Context, q Query) ([]Result, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	if q.Signals == 0 {
		q.Signals = AllSignals
	}
	terms := Terms(q.Text)
	idents := Identifiers(q.Text)
	if len(terms) == 0 && len(idents) == 0 {
		return nil, nil
	}
	searched, aliases := expandVocabulary(q.Text, terms)
	q.aliases = aliases
	cands, err := ix.collect(ctx, q, searched, idents)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	ns := fuse(cands, ix.fusionWeights(), factorCandidates(q.Limit))
	results, nOf, err := ix.applyFactors(ctx, q, cands, ns)
	if err != nil {
		return nil, err
	}
	return ix.hydrate(ctx, results, nOf, terms)
}

// collect is the search's first stage: it runs each signal q asks for
// (BM25F, trigram, vector, graph) and gathers the candidates they found,
// each with its rank in every list. A Rerank search ranks only its best
// lexical candidates by the other signals. The vector scan runs beside the
// SQL lists and has ended by the time collect returns.
func (ix *Index) collect(ctx context.Context, q Query, terms, idents []string) (map[int64]*Why, error) {
	cands := map[int64]*Why{}
	get := func(n int64) *Why {
		c, ok := cands[n]
		if !ok {
			c = &Why{}
			cands[n] = c
		}
		return c
	}
	if q.Signals&Graph != 0 {
		go graph.Prepare()
	}
	depth := candidatesFor(q.Limit)
	// The vector scan needs no SQL: it runs beside the lists that do. Every
	// return waits for it, so it never outlives the search (and the
	// mapping it reads, which Close unmaps).
	var vec []hit
	var vecErr error
	var vecWG sync.WaitGroup
	defer vecWG.Wait()
	if q.Signals&Vector != 0 && !q.Rerank {
		vecWG.Add(1)
		go func() {
			defer vecWG.Done()
			vec, vecErr = ix.vectorHits(ctx, q.Text, depth)
		}()
	}
	if err := ix.collectLists(ctx, q, terms, idents, depth, get); err != nil {
		return nil, err
	}
	// A Rerank search orders only its best lexical candidates, as many as
	// compete for the results once fused: each one ordered costs a row
	// lookup (a page fault in a cold process) per signal. The graph, the
	// trigram and the vector signals rank them among themselves.
	var reranked map[int64]*Why
	if q.Rerank {
		reranked = bestLexical(cands, factorCandidates(q.Limit))
		if err := ix.rerankLists(ctx, q, idents, cands, reranked); err != nil {
			return nil, err
		}
	}
	vecWG.Wait()
	if q.Signals&Vector != 0 && len(reranked) > 0 {
		vec, vecErr = ix.vectorRerank(ctx, q.Text, sortedKeys(reranked))
	}
	if vecErr != nil {
		return nil, vecErr
	}
	for i, h := range vec {
		c := get(h.n)
		c.VectorRank = i + 1
		c.Cosine = h.score
	}
	return cands, nil
}

// collectLists runs the SQL signals q asks for over all learnings (BM25F,
// and unless q.Rerank, trigram and graph), recording each candidate's rank
// through get.
func (ix *Index) collectLists(ctx context.Context, q Query, terms, idents []string, depth int, get func(int64) *Why) error {
	if len(terms) > 0 && q.Signals&Lexical != 0 {
		lexical, attainable, err := ix.lexical(ctx, terms, depth, q.IDFCap, q.aliases)
		if err != nil {
			return err
		}
		for i, h := range lexical {
			c := get(h.n)
			c.LexicalRank = i + 1
			c.BM25 = h.score
			c.QueryBM25 = attainable
			c.MatchedTerms = h.matched
		}
	}
	if len(idents) > 0 && q.Signals&Trigram != 0 && !q.Rerank {
		hits, err := ix.trigram(ctx, idents, depth)
		if err != nil {
			return err
		}
		for i, h := range hits {
			c := get(h.n)
			c.TrigramRank = i + 1
			c.Identifiers = h.score
		}
	}
	if q.Signals&Graph != 0 && !q.Rerank {
		hits, err := graph.Expand(ctx, ix.db, q.Text, depth)
		if err != nil {
			return err
		}
		for i, h := range hits {
			c := get(h.Doc)
			c.GraphRank = i + 1
			c.GraphVia = h.Via
			c.GraphScore = h.Score
		}
	}
	return nil
}

// rerankLists ranks the reranked candidates (the best lexical ones) by the
// graph and trigram signals q asks for, among themselves.
func (ix *Index) rerankLists(ctx context.Context, q Query, idents []string, cands, reranked map[int64]*Why) error {
	if q.Signals&Graph != 0 && len(reranked) > 0 {
		// Only the entities the query names, as the candidates mention
		// them: neighbours and the learnings no other signal found are
		// what cost Expand its milliseconds.
		hits, err := graph.Rerank(ctx, ix.db, q.Text, sortedKeys(reranked))
		if err != nil {
			return err
		}
		for i, h := range hits {
			c := cands[h.Doc]
			c.GraphRank = i + 1
			c.GraphVia = h.Via
			c.GraphScore = h.Score
		}
	}
	if len(idents) > 0 && q.Signals&Trigram != 0 && len(reranked) > 0 {
		// Ranking every learning that contains a common identifier costs
		// FTS5 more than the search itself (docs/benchmarks.md); which of
		// the candidates contain it is a row lookup each.
		hits, err := ix.trigramRerank(ctx, idents, reranked)
		if err != nil {
			return err
		}
		for i, h := range hits {
			c := cands[h.n]
			c.TrigramRank = i + 1
			c.Identifiers = h.score
		}
	}
	return nil
}

// applyFactors is the third stage: it reads the ranking columns of the
// fused candidates ns, scales each fused score by confidence, scope,
// recency and then freshness, keeps lexical leads, cuts to q.Limit and
// marks the weak tail. It returns the results, holding only the ranking
// columns, and the row number of each result's id.
func (ix *Index) applyFactors(ctx context.Context, q Query, cands map[int64]*Why, ns []int64) ([]Result, map[string]int64, error) {
	// Only what ranking needs is read for every candidate; the rest of a
	// result is read for the few that are returned.
	metas, err := ix.loadMeta(ctx, ns, factorColumns, scanFactors)
	if err != nil {
		return nil, nil, err
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	halfLife := ix.opts.halfLife
	results := make([]Result, 0, len(metas))
	nOf := make(map[string]int64, len(metas))
	for n, r := range metas {
		if !q.Pending.keeps(r.Held) {
			continue
		}
		nOf[r.ID] = n
		w := *cands[n]
		w.Confidence = confidenceFactor[r.Confidence]
		if w.Confidence == 0 {
			w.Confidence = confidenceFactor["medium"]
		}
		w.Scope = scopeFactor(r, q.Project)
		w.Recency = recencyFactor(r.Updated, now, halfLife)
		w.Freshness = 1
		w.Helpful = 1
		if r.helpful > 0 && r.Held == "" {
			w.Helpful = HelpfulFactor
		}
		r.Why = w
		r.Score = w.Fused * w.Confidence * w.Scope * w.Recency * w.Helpful
		results = append(results, r)
	}
	sortResults(results)
	// Freshness hashes cited files, so it is judged only for the learnings
	// that can still make the cut; a stale one is demoted and may drop out.
	checkFreshness(results[:min(len(results), q.Limit+freshnessHeadroom)], q)
	sortResults(results)
	keepLexicalLeads(results)
	if len(results) > q.Limit {
		results = results[:q.Limit]
	}
	markWeak(results)
	return results, nOf, nil
}

// hydrate is the last stage: it reads every column of the few results
// returned, keeps the ranking the earlier stages computed, and adds each
// result's snippet for the query's terms.
func (ix *Index) hydrate(ctx context.Context, results []Result, nOf map[string]int64, terms []string) ([]Result, error) {
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
		f.Why, f.Score, f.Stale, f.StaleFiles, f.Weak = r.Why, r.Score, r.Stale, r.StaleFiles, r.Weak
		results[i] = f
	}
	// The snippet is the key insight when there is one; only learnings
	// without one need their body read.
	var noInsight []Result
	for _, r := range results {
		if r.KeyInsight == "" {
			noInsight = append(noInsight, r)
		}
	}
	bodies, err := ix.bodies(ctx, noInsight)
	if err != nil {
		return nil, err
	}
	for i := range results {
		results[i].Snippet = snippet(bodies[results[i].ID], results[i].KeyInsight, terms)
	}
	return results, nil
}

// lexicalLead is how many times the BM25F of another result a result
// needs to keep its place above it whatever the factors say.
//
// The factors multiply: low confidence (× 0.55) and another project's
// scope (× 0.8) together cost more than half of a fused score, so they
// could put a learning that shares one word with the query above one that
// matches it ("lost my commits after checking out a tag": BM25F 9.8 against
// 2.6), or a correction the builtin writer filed at low confidence below
// a learning that shares only the tool's name with the query ("npm ci vs
// npm install in the pipeline": BM25F 9.4 against 7.4). Confidence, scope,
// recency and freshness are meant to settle near-ties, not to overturn a
// lead. Chosen on the tuning part of the userset (docs/benchmarks.md, the
// seventh recall pass) among 1.0, 1.1, 1.25, 1.5 and 2.
const lexicalLead = 1.1

// keepLexicalLeads reorders results sorted by score so that none ranks
// below one it leads lexically by lexicalLead or more unless the other
// also fused higher: the other can pass it by other signals' evidence, not
// by factors alone. Results whose factors are equal keep their order, as
// their fused order is their score order.
func keepLexicalLeads(results []Result) {
	leads := func(a, b *Result) bool {
		return a.Why.BM25 > 0 && a.Why.BM25 >= lexicalLead*b.Why.BM25 && a.Why.Fused >= b.Why.Fused
	}
	// An insertion sort: each result moves up past the ones it leads,
	// stopping at the first it does not.
	for i := 1; i < len(results); i++ {
		for j := i; j > 0 && leads(&results[j], &results[j-1]); j-- {
			results[j], results[j-1] = results[j-1], results[j]
		}
	}
}

// weakShare is the share of the best result's BM25F below which a result
// is marked weak: a learning that holds a fifth of the evidence the best
// one holds, or found only by trigram, vector or graph signals beside
// results that match the query's words, is a tail, not an answer.
const weakShare = 0.2

// markWeak sets Weak on the results with less than weakShare of the best
// result's BM25F. When no result matches any word of the query, none is
// weak: there is nothing stronger to compare with, and a model embedder's
// similarity may be all the evidence there is.
func markWeak(results []Result) {
	best := 0.0
	for _, r := range results {
		best = max(best, r.Why.BM25)
	}
	if best == 0 {
		return
	}
	for i := range results {
		results[i].Weak = results[i].Why.BM25 < weakShare*best
	}
}

func sortResults(results []Result) {
	sort.Slice(results, func(i, j int) bool {
		if results[i].Score != results[j].Score {
			return results[i].Score > results[j].Score
		}
		return results[i].ID < results[j].ID
	})
}

// sortedKeys returns the row numbers of cands in ascending order.
func sortedKeys(cands map[int64]*Why) []int64 {
	out := make([]int64, 0, len(cands))
	for n := range cands {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// bestLexical returns the k candidates with the best lexical rank.
func bestLexical(cands map[int64]*Why, k int) map[int64]*Why {
	out := make(map[int64]*Why, k)
	for n, c := range cands {
		if c.LexicalRank > 0 && c.LexicalRank <= k {
			out[n] = c
		}
	}
	return out
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

const metaColumns = `n, id, path, title, key_insight, type, confidence, scope, project, tags, updated, hold, feedback`

func scanMeta(rows *sql.Rows) (int64, Result, error) {
	var n int64
	var r Result
	var tags string
	err := rows.Scan(&n, &r.ID, &r.Path, &r.Title, &r.KeyInsight, &r.Type, &r.Confidence, &r.Scope, &r.Project, &tags, &r.Updated, &r.Held, &r.Feedback)
	if tags != "" {
		r.Tags = strings.Split(tags, ",")
	}
	return n, r, err
}

const factorColumns = `n, id, confidence, scope, project, updated, cites, hold, helpful`

// scanFactors reads what ranking needs, including the cites the freshness
// check reads.
func scanFactors(rows *sql.Rows) (int64, Result, error) {
	var n int64
	var r Result
	err := rows.Scan(&n, &r.ID, &r.Confidence, &r.Scope, &r.Project, &r.Updated, &r.cites, &r.Held, &r.helpful)
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

// bodies reads the indexed body text of results back from their markdown
// (the catalog keeps no copy of it: text.go). A learning that cannot be
// read has no body snippet.
func (ix *Index) bodies(ctx context.Context, results []Result) (map[string]string, error) {
	out := make(map[string]string, len(results))
	for _, r := range results {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f, err := readFields(r.Path); err == nil {
			out[r.ID] = f[3]
		}
	}
	return out, nil
}

// snippet picks the line of context a user sees under a result: the key
// insight when there is one, else the stretch of body around the first
// query term.
func snippet(body, insight string, terms []string) string {
	if insight != "" {
		return text.ClipRunesTrim(insight, 200)
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
	s := text.OneLine(body[start:])
	if start > 0 {
		s = "…" + s
	}
	return text.ClipRunesTrim(s, 200)
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

// candidatesFor is how many learnings each signal contributes to fusion
// for a search of limit results: enough that the factors applied after
// fusion (confidence, scope, recency, freshness) can promote a learning
// from well below the top of any one list, and no more, since each
// candidate costs a row read on every search.
func candidatesFor(limit int) int {
	return max(100, 4*limit)
}

// factorCandidates is how many of the best fused candidates have their
// factors read and compete for the limit results.
func factorCandidates(limit int) int {
	return max(50, 3*limit)
}

type hit struct {
	n       int64
	score   float64
	matched int // query stems the learning contains (lexical hits)
}

var signalNames = []struct {
	name string
	s    Signals
}{{"lexical", Lexical}, {"trigram", Trigram}, {"vector", Vector}, {"graph", Graph}}

// ParseSignals reads a comma-separated list of signal names ("lexical,
// vector"), or "all" / "" for every signal.
func ParseSignals(text string) (Signals, error) {
	var out Signals
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(strings.ToLower(part))
		if part == "" || part == "all" {
			out |= AllSignals
			continue
		}
		found := false
		for _, n := range signalNames {
			if n.name == part {
				out |= n.s
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown signal %q: use all, or some of lexical,trigram,vector,graph", part)
		}
	}
	return out, nil
}

// String names the signals, comma-separated.
func (s Signals) String() string {
	var names []string
	for _, n := range signalNames {
		if s&n.s != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}
