package bench

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// The labelled recall sets: realistic coding learnings and prompts written
// as users type them, each prompt labelled with the learning it should
// recall (or none). They are embedded so `reflect bench recall` runs
// offline from any directory.
//
// A set may also hold questions.jsonl: for each learning, the questions an
// LLM writer emits (store.Learning.Questions, doc2query), for `bench recall
// --questions`. Both sets' were written blind: writers got the writer's
// instruction and the learnings, never the prompts.
//
//go:embed recallset/kb/*.md recallset/prompts.jsonl recallset/questions.jsonl userset/kb/*.md userset/prompts.jsonl userset/questions.jsonl
var recallSets embed.FS

// The labelled sets built in, by name.
const (
	// SetRecall is the project's own set (50 learnings, 194 prompts), the
	// one the relevance floor was first calibrated on.
	SetRecall = "recallset"
	// SetUser was written as a user population writes, independently of
	// the ranking code (175 learnings, 1,193 prompts; issue 28).
	SetUser = "userset"
)

// SetNames lists the built-in sets, the default first.
var SetNames = []string{SetRecall, SetUser}

// Prompt kinds. Silent prompts must recall nothing.
const (
	KindError      = "error"      // a pasted error message or stack trace
	KindIdentifier = "identifier" // names a command, flag, config key or API
	KindNatural    = "natural"    // describes the symptom in the user's words
	KindParaphrase = "paraphrase" // says what the learning says in other words
	KindSilent     = "silent"     // unrelated to every learning
)

// Kinds lists the prompt kinds in report order.
var Kinds = []string{KindError, KindIdentifier, KindNatural, KindParaphrase, KindSilent}

// LabelledPrompt is one prompt of the set.
type LabelledPrompt struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Want   string `json:"want,omitempty"` // learning id; "" for silent prompts
	Prompt string `json:"prompt"`
}

// HeldOut reports whether the prompt belongs to the part of the set that is
// never used for tuning. The split was fixed before any tuning, by a hash
// of the id so that adding prompts does not move existing ones: FNV-1a of
// the id, one in three.
func (p LabelledPrompt) HeldOut() bool {
	h := fnv.New32a()
	h.Write([]byte(p.ID))
	return h.Sum32()%3 == 0
}

// RecallSet is the labelled set: learnings (file name → markdown) and
// prompts.
type RecallSet struct {
	// Name is the set's name (SetNames).
	Name      string
	Learnings map[string][]byte
	Prompts   []LabelledPrompt
	// Questions are a writer's questions by learning id (questions.jsonl);
	// nil when the set has none. WithQuestions puts them in the learnings.
	Questions map[string][]string
}

// WithQuestions returns the set with each learning's questions in its
// frontmatter, as a writer that emits them would have written it. It is
// an error when the set has no questions.jsonl.
func (s *RecallSet) WithQuestions() (*RecallSet, error) {
	if s.Questions == nil {
		return nil, fmt.Errorf("set %s has no writer questions (questions.jsonl)", s.Name)
	}
	out := *s
	out.Learnings = make(map[string][]byte, len(s.Learnings))
	for name, data := range s.Learnings {
		l, err := store.Parse(data)
		if err != nil {
			return nil, err
		}
		l.Questions = s.Questions[l.ID]
		if out.Learnings[name], err = l.Marshal(); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// LoadRecallSet reads the project's own labelled set (SetRecall).
func LoadRecallSet() (*RecallSet, error) { return LoadSet(SetRecall) }

// LoadSet reads the built-in labelled set called name and checks it (see
// loadSet).
func LoadSet(name string) (*RecallSet, error) {
	if !slices.Contains(SetNames, name) {
		return nil, fmt.Errorf("no labelled set %q; the built-in sets are %s", name, strings.Join(SetNames, ", "))
	}
	return loadSet(recallSets, name)
}

// loadSet reads the set in dir of fsys (dir/kb/*.md, dir/prompts.jsonl) and
// checks it, so that a typo in a hand-written set fails loudly instead of
// skewing a rate: every learning parses and is named after its id, prompt
// ids are unique, kinds are known, a prompt names a learning of the set
// exactly when it is not silent, and no prompt is empty.
func loadSet(fsys fs.FS, dir string) (*RecallSet, error) {
	s := &RecallSet{Name: dir, Learnings: map[string][]byte{}}
	kb := path.Join(dir, "kb")
	ents, err := fs.ReadDir(fsys, kb)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		data, err := fs.ReadFile(fsys, path.Join(kb, name))
		if err != nil {
			return nil, err
		}
		l, err := store.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", kb, name, err)
		}
		if l.ID+".md" != name {
			return nil, fmt.Errorf("%s/%s: id %q does not match the file name", kb, name, l.ID)
		}
		s.Learnings[name] = data
	}
	data, err := fs.ReadFile(fsys, path.Join(dir, "prompts.jsonl"))
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var p LabelledPrompt
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: %w", dir, n, err)
		}
		switch {
		case p.ID == "":
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: no id", dir, n)
		case seen[p.ID] != 0:
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: id %s already on line %d", dir, n, p.ID, seen[p.ID])
		case !slices.Contains(Kinds, p.Kind):
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: unknown kind %q (kinds: %s)", dir, n, p.Kind, strings.Join(Kinds, ", "))
		case (p.Kind == KindSilent) != (p.Want == ""):
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: kind %q with want %q", dir, n, p.Kind, p.Want)
		case p.Want != "" && s.Learnings[p.Want+".md"] == nil:
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: no learning %s", dir, n, p.Want)
		case strings.TrimSpace(p.Prompt) == "":
			return nil, fmt.Errorf("%s/prompts.jsonl:%d: empty prompt", dir, n)
		}
		seen[p.ID] = n
		s.Prompts = append(s.Prompts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return s, loadQuestions(fsys, dir, s)
}

// QuestionWords are the words of the set's questions that the questions
// of at least three learnings use (words people ask with, and the
// commonest topics), most frequent first; nil without questions.
func (s *RecallSet) QuestionWords() []string {
	count, learnings := map[string]int{}, map[string]int{}
	for _, qs := range s.Questions {
		seen := map[string]bool{}
		for _, q := range qs {
			for _, w := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
				count[w]++
				if !seen[w] {
					seen[w] = true
					learnings[w]++
				}
			}
		}
	}
	var words []string
	for w := range count {
		if learnings[w] >= 3 {
			words = append(words, w)
		}
	}
	slices.SortFunc(words, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	return words
}

// notWordRune splits questions into words: letters, digits and the
// apostrophe, dash and underscore inside them.
func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' && r != '_'
}

// loadQuestions reads dir/questions.jsonl into s.Questions, when there is
// one, and checks that each line names a learning of the set once.
func loadQuestions(fsys fs.FS, dir string, s *RecallSet) error {
	data, err := fs.ReadFile(fsys, path.Join(dir, "questions.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Questions = map[string][]string{}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct {
			ID        string   `json:"id"`
			Questions []string `json:"questions"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return fmt.Errorf("%s/questions.jsonl:%d: %w", dir, n+1, err)
		}
		switch {
		case s.Learnings[q.ID+".md"] == nil:
			return fmt.Errorf("%s/questions.jsonl:%d: no learning %s", dir, n+1, q.ID)
		case s.Questions[q.ID] != nil:
			return fmt.Errorf("%s/questions.jsonl:%d: %s has questions already", dir, n+1, q.ID)
		case len(q.Questions) == 0:
			return fmt.Errorf("%s/questions.jsonl:%d: no questions", dir, n+1)
		}
		s.Questions[q.ID] = q.Questions
	}
	return nil
}

// RecallFunc is the recall under test: what the prompt hook would inject
// for prompt, as learning ids best first and the context block. The
// caller passes recall.Recall wrapped (package bench measures the hook's
// recall without depending on it).
type RecallFunc func(ctx context.Context, ix *index.Index, prompt string, now time.Time) (ids []string, block string, err error)

// RecallOptions configure a recall benchmark.
type RecallOptions struct {
	// Recall is the recall measured; required.
	Recall RecallFunc
	// Sizes are the knowledge-base sizes measured. A size below the set's
	// learning count splits the set into groups of that size, one KB each;
	// a larger one pads the set with synthetic learnings (Generate, seed 1).
	Sizes []int
	// WorkDir holds the temporary knowledge bases; "" means os.TempDir.
	WorkDir string
	// Index configures the index (the embedder, as the user's config would).
	Index []index.OpenOption
	// Progress, when set, is told what is being built.
	Progress func(msg string)
	// Everyday, when set, are words of real prose (most frequent first)
	// that the padding's bodies draw half their pseudo-words from
	// (GenerateEveryday).
	Everyday []string
	// QuestionWords, when set, give the padding's learnings questions
	// made of them (Padding.QuestionWords): set them with the set's
	// WithQuestions, so that question words are as common in the padding
	// as in the set.
	QuestionWords []string
}

// KindScore is how one kind of prompt fared at one size in one part.
type KindScore struct {
	Prompts int `json:"prompts"`
	// Recalled: the expected learning was injected. Wrong: other learnings
	// were, and not it. Missed: nothing was. For silent prompts Injected
	// counts the prompts that got anything (false injections).
	Recalled int `json:"recalled"`
	Wrong    int `json:"wrong"`
	Missed   int `json:"missed"`
	Injected int `json:"injected"`
	// Chars is the characters injected, summed over the prompts.
	Chars int `json:"chars"`
	// SearchTop1 counts the prompts whose learning `reflect search` ranks
	// first; SearchRankSum sums its rank (RankMissing when it is not in the
	// first 50).
	SearchTop1    int `json:"search_top1"`
	SearchRankSum int `json:"search_rank_sum"`
}

// RankMissing stands for "not in the first 50 results" in rank sums.
const RankMissing = 51

// Recall is the share of answerable prompts whose learning was injected.
func (k KindScore) Recall() float64 { return ratio(k.Recalled, k.Prompts) }

// FalseInjection is, for silent prompts, the share that got anything; for
// answerable ones, the share that got only wrong learnings.
func (k KindScore) FalseInjection() float64 {
	if k.Injected > 0 || k.Recalled+k.Wrong+k.Missed == 0 {
		return ratio(k.Injected, k.Prompts)
	}
	return ratio(k.Wrong, k.Prompts)
}

// CharsPerPrompt is the mean size of the injected block.
func (k KindScore) CharsPerPrompt() float64 { return ratio(k.Chars, k.Prompts) }

// MeanSearchRank is the mean rank search gives the expected learning.
func (k KindScore) MeanSearchRank() float64 { return ratio(k.SearchRankSum, k.Prompts) }

// MarshalJSON adds the rates to the counts, so --json readers need not
// know how they are derived.
func (k KindScore) MarshalJSON() ([]byte, error) {
	type counts KindScore
	return json.Marshal(struct {
		counts
		Recall         float64 `json:"recall"`
		FalseInjection float64 `json:"false_injection"`
		CharsPerPrompt float64 `json:"chars_per_prompt"`
		MeanSearchRank float64 `json:"mean_search_rank"`
	}{counts(k), k.Recall(), k.FalseInjection(), k.CharsPerPrompt(), k.MeanSearchRank()})
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// PartScore is one part of the set (tuning or held out) at one size.
type PartScore struct {
	Kinds map[string]*KindScore `json:"kinds"`
}

// SizeReport is every measure at one KB size.
type SizeReport struct {
	Size int `json:"size"`
	// KBs is how many knowledge bases of this size were built (more than
	// one when the set is split into groups).
	KBs     int       `json:"kbs"`
	IndexMS float64   `json:"index_ms"`
	Tuning  PartScore `json:"tuning"`
	HeldOut PartScore `json:"held_out"`
	// Misses lists the prompts recall got wrong, for reading, not
	// scoring: answerable ones that did not get their learning, silent ones
	// that got anything.
	Misses []Miss `json:"misses,omitempty"`
}

// Miss is a prompt recall got wrong.
type Miss struct {
	ID       string   `json:"id"`
	Injected []string `json:"injected"`
	// Rank is where search ranks the expected learning; 0 for silent
	// prompts.
	Rank int `json:"search_rank,omitempty"`
}

// RecallReport is the outcome of a recall benchmark.
type RecallReport struct {
	Set       string        `json:"set"`
	Learnings int           `json:"learnings"`
	Prompts   int           `json:"prompts"`
	Sizes     []*SizeReport `json:"sizes"`
}

// Recall measures a recall (opts.Recall: the prompt hook's) on the labelled
// set at every size of opts: each prompt goes through it as the hook sends
// it, and through index.Search as `reflect search` would.
func Recall(ctx context.Context, set *RecallSet, opts RecallOptions) (*RecallReport, error) {
	if opts.Recall == nil {
		return nil, fmt.Errorf("bench recall: no recall to measure")
	}
	rep := &RecallReport{Set: set.Name, Learnings: len(set.Learnings), Prompts: len(set.Prompts)}
	names := make([]string, 0, len(set.Learnings))
	for n := range set.Learnings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, size := range opts.Sizes {
		if size < 1 {
			return nil, fmt.Errorf("bench recall: size %d", size)
		}
		sr := &SizeReport{Size: size, Tuning: newPart(), HeldOut: newPart()}
		groups := [][]string{names}
		if size < len(names) {
			// Interleaved, so that every group mixes topics as a real
			// small KB would.
			n := (len(names) + size - 1) / size
			groups = make([][]string, n)
			for i, name := range names {
				groups[i%n] = append(groups[i%n], name)
			}
		}
		sr.KBs = len(groups)
		for gi, group := range groups {
			if opts.Progress != nil {
				opts.Progress(fmt.Sprintf("size %d: knowledge base %d of %d", size, gi+1, len(groups)))
			}
			if err := measureKB(ctx, set, group, size, opts, sr); err != nil {
				return nil, err
			}
		}
		rep.Sizes = append(rep.Sizes, sr)
	}
	return rep, nil
}

func newPart() PartScore {
	p := PartScore{Kinds: map[string]*KindScore{}}
	for _, k := range Kinds {
		p.Kinds[k] = &KindScore{}
	}
	return p
}

// measureKB builds one knowledge base of the group's learnings padded to
// size, and scores the prompts it can answer plus every silent prompt.
func measureKB(ctx context.Context, set *RecallSet, group []string, size int, opts RecallOptions, sr *SizeReport) error {
	work, err := os.MkdirTemp(opts.WorkDir, "reflect-bench-recall-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	docs := filepath.Join(work, "documents")
	if pad := size - len(group); pad > 0 {
		if err := GeneratePadding(docs, pad, 1, Padding{Everyday: opts.Everyday, QuestionWords: opts.QuestionWords}); err != nil {
			return err
		}
	} else if err := os.MkdirAll(docs, 0o700); err != nil {
		return err
	}
	in := map[string]bool{}
	for _, name := range group {
		if err := os.WriteFile(filepath.Join(docs, name), set.Learnings[name], 0o600); err != nil {
			return err
		}
		in[strings.TrimSuffix(name, ".md")] = true
	}
	start := time.Now()
	ix, err := index.Open(ctx, docs, filepath.Join(work, "index"), opts.Index...)
	if err != nil {
		return err
	}
	defer ix.Close()
	if c, err := ix.Count(ctx); err != nil || c.Problems > 0 {
		return fmt.Errorf("bench recall: %d learnings of the set do not parse (%w)", c.Problems, err)
	}
	sr.IndexMS += float64(time.Since(start).Microseconds()) / 1000
	// Recency is measured from a fixed day, so runs on different days agree.
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range set.Prompts {
		if p.Want != "" && !in[p.Want] {
			continue
		}
		ids, block, err := opts.Recall(ctx, ix, p.Prompt, now)
		if err != nil {
			return fmt.Errorf("prompt %s: %w", p.ID, err)
		}
		part := sr.Tuning
		if p.HeldOut() {
			part = sr.HeldOut
		}
		k := part.Kinds[p.Kind]
		if k == nil {
			return fmt.Errorf("prompt %s: unknown kind %q", p.ID, p.Kind)
		}
		k.Prompts++
		k.Chars += len(block)
		if p.Want == "" {
			if len(ids) > 0 {
				k.Injected++
				sr.Misses = append(sr.Misses, Miss{ID: p.ID, Injected: ids})
			}
			continue
		}
		rank, err := searchRank(ctx, ix, p, now)
		if err != nil {
			return err
		}
		k.SearchRankSum += rank
		if rank == 1 {
			k.SearchTop1++
		}
		switch {
		case slices.Contains(ids, p.Want):
			k.Recalled++
			continue
		case len(ids) == 0:
			k.Missed++
		default:
			k.Wrong++
		}
		sr.Misses = append(sr.Misses, Miss{ID: p.ID, Injected: ids, Rank: rank})
	}
	return nil
}

// searchRank is the rank `reflect search` gives the prompt's learning,
// RankMissing when it is not in the first 50.
func searchRank(ctx context.Context, ix *index.Index, p LabelledPrompt, now time.Time) (int, error) {
	results, err := ix.Search(ctx, index.Query{Text: p.Prompt, Limit: RankMissing - 1, Now: now})
	if err != nil {
		return 0, fmt.Errorf("prompt %s: %w", p.ID, err)
	}
	for i, r := range results {
		if r.ID == p.Want {
			return i + 1, nil
		}
	}
	return RankMissing, nil
}
