package bench

import (
	_ "embed"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

// Vocabulary of the synthetic KB: enough variety that BM25 statistics look
// like a real developer's notes (a long tail of identifiers, a few common
// technologies), deterministic for a given seed.
var (
	synthTech = strings.Fields(`go rust python typescript postgres sqlite redis kafka docker kubernetes nginx
		grpc graphql oauth jwt webpack vite react terraform ansible bazel cmake gcc clang llvm node npm pnpm
		pytest jest cargo gradle maven git ssh tls http2 websocket s3 lambda cloudflare systemd cron`)
	synthVerbs = strings.Fields(`fails breaks hangs panics leaks crashes times-out deadlocks races drops
		corrupts retries rejects ignores truncates duplicates overflows blocks`)
	synthNouns = strings.Fields(`cache connection pool migration build test deploy cookie session token
		config schema index query request response handler worker queue lock socket buffer parser
		certificate signature timeout retry header payload bundle image volume secret cluster`)
	synthWords = strings.Fields(`when after before because the a an in on with without during under while
		only always never unless first then finally also still again instead correctly silently
		locally remotely value default setting flag option environment variable path file line
		error message output input version upgrade downgrade change fix workaround root cause
		reproduce symptom expected actual behaviour user team review commit branch release`)
	synthIdents = strings.Fields(`SameSite=Lax -fPIC ERR_SSL_PROTOCOL_ERROR ECONNREFUSED context.WithTimeout
		sync.Mutex http.Client pg_stat_activity max_connections GOFLAGS CGO_ENABLED NODE_OPTIONS
		useEffect getServerSideProps __init__.py Cargo.lock go.sum package-lock.json tsconfig.json
		SIGKILL OOMKilled E0502 TS2345 ENOSPC EADDRINUSE x509 sqlite3_busy_timeout WAL fsync O_APPEND`)
	synthPaths = strings.Fields(`internal/auth/callback.go cmd/server/main.go src/components/Login.tsx
		db/migrations/0042_add_index.sql .github/workflows/ci.yml Makefile docker-compose.yml
		pkg/cache/lru.go scripts/deploy.sh config/settings.py lib/parser.rs web/vite.config.ts`)
)

// vocabulary makes size pronounceable pseudo-words. Real notes draw most
// words from a long-tailed vocabulary; without one, every query term would
// match most documents and benchmarks would measure a worst case only.
func vocabulary(r *rand.Rand, size int) []string {
	onsets := strings.Fields("b c d f g h j k l m n p r s t v w z br cl dr fl gr pl pr st tr sh ch th")
	vowels := strings.Fields("a e i o u ai ea io ou")
	codas := strings.Fields("n r s t l m nd st rk ng x")
	seen := map[string]bool{}
	words := make([]string, 0, size)
	for len(words) < size {
		var b strings.Builder
		for s := 0; s < 1+r.IntN(3); s++ {
			b.WriteString(onsets[r.IntN(len(onsets))])
			b.WriteString(vowels[r.IntN(len(vowels))])
		}
		if r.IntN(2) == 0 {
			b.WriteString(codas[r.IntN(len(codas))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// Generate writes n synthetic learnings (100–400 words each, with titles,
// tags, symptoms, code identifiers and paths) into docsDir. The same seed
// gives the same KB.
func Generate(docsDir string, n int, seed uint64) error {
	return GenerateEveryday(docsDir, n, seed, nil)
}

// GenerateEveryday is Generate with half of the pseudo-words of every body
// drawn instead from everyday, words of real prose most frequent first, at
// Zipf rates. Generate's learnings share no everyday word with real notes
// (order, service, database are in none of them), so in a KB padded with
// them such a word is as rare as an error code (docs/benchmarks.md).
func GenerateEveryday(docsDir string, n int, seed uint64, everyday []string) error {
	return GeneratePadding(docsDir, n, seed, Padding{Everyday: everyday})
}

// Padding says what synthetic learnings are made of beyond Generate's
// pseudo-words.
type Padding struct {
	// Everyday: see GenerateEveryday.
	Everyday []string
	// QuestionWords, when set, are the words of writers' questions (most
	// frequent first; RecallSet.QuestionWords): each learning gets three
	// or four questions that draw them at Zipf rates, mixed with its own
	// topic words, as a KB written by an LLM writer that emits questions
	// has them on every learning. Without them, the words people ask with
	// ("why", "keeps", "locally") would be found in the set's learnings
	// only, as rare as an error code.
	QuestionWords []string
}

// GeneratePadding is Generate with the padding p. Without questions it
// writes what GenerateEveryday writes: the questions draw on random
// streams of their own.
func GeneratePadding(docsDir string, n int, seed uint64, p Padding) error {
	everyday := p.Everyday
	ask := questioner(seed, p.QuestionWords)
	if err := fsutil.EnsureDir(docsDir); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(words []string) string { return words[r.IntN(len(words))] }
	vocab := vocabulary(r, 30000)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, 7)), 1.07, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	if len(everyday) > 1 {
		ez := rand.NewZipf(rand.New(rand.NewPCG(seed, 11)), 1.07, 2, uint64(len(everyday)-1))
		pseudo := word
		word = func() string {
			if r.IntN(2) == 0 {
				return everyday[ez.Uint64()]
			}
			return pseudo()
		}
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		tech, noun, verb, ident := pick(synthTech), pick(synthNouns), pick(synthVerbs), pick(synthIdents)
		title := fmt.Sprintf("%s %s %s when %s %s is %s", tech, noun, verb, word(), pick(synthNouns), word())
		insight := fmt.Sprintf("Set %s in %s: the %s %s otherwise.", ident, pick(synthPaths), noun, verb)
		words := 100 + r.IntN(301)
		// Each learning is about a few things (its topic) and mentions
		// others in passing, as real notes do: that gives technology words
		// a realistic document frequency instead of appearing everywhere.
		topic := []string{tech, noun, pick(synthTech), pick(synthNouns)}
		idents := []string{ident, pick(synthIdents), pick(synthPaths)}
		var body strings.Builder
		sections := []string{"## Problem\n", "## Solution\n", "## Context\n"}
		for s, head := range sections {
			body.WriteString(head)
			for w := 0; w < words/len(sections); w++ {
				switch x := r.IntN(100); {
				case x < 3:
					body.WriteString("`" + pick(idents) + "`")
				case x < 12:
					body.WriteString(pick(topic))
				case x < 14:
					body.WriteString(pick(synthTech))
				case x < 40:
					body.WriteString(pick(synthWords))
				default:
					body.WriteString(word())
				}
				if w%15 == 14 {
					body.WriteString(".\n")
				} else {
					body.WriteByte(' ')
				}
			}
			if s < len(sections)-1 {
				body.WriteString("\n\n")
			}
		}
		l := &store.Learning{
			Title:      title,
			KeyInsight: insight,
			Confidence: []string{"high", "medium", "low"}[r.IntN(3)],
			Category:   "debugging",
			Tags:       []string{tech, noun, word()},
			Symptoms:   []string{fmt.Sprintf("%s %s", noun, verb)},
			Questions:  ask(topic, vocab),
			Scope:      []string{"project", "global"}[r.IntN(2)],
			Project:    fmt.Sprintf("project-%d", r.IntN(20)),
			Created:    base.Add(time.Duration(i) * time.Hour),
			Body:       body.String(),
		}
		l.FillDefaults(base)
		l.Updated = l.Created
		data, err := l.Marshal()
		if err != nil {
			return err
		}
		// Bulk generation skips the per-file fsync of store.Write: the KB
		// is scratch data and 10,000 fsyncs would dominate the run.
		if err := os.WriteFile(filepath.Join(docsDir, l.ID+".md"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// questioner returns what makes a synthetic learning's questions from
// words (none when words is empty): three or four of five to ten words,
// half of them question words, the rest the learning's topic or its
// vocabulary. Its random streams are its own, so the rest of the learning
// is the same with or without questions.
func questioner(seed uint64, words []string) func(topic, vocab []string) []string {
	if len(words) < 2 {
		return func([]string, []string) []string { return nil }
	}
	r := rand.New(rand.NewPCG(seed, 13))
	z := rand.NewZipf(rand.New(rand.NewPCG(seed, 17)), 1.07, 2, uint64(len(words)-1))
	return func(topic, vocab []string) []string {
		qs := make([]string, 3+r.IntN(2))
		for i := range qs {
			ws := make([]string, 5+r.IntN(6))
			for j := range ws {
				switch x := r.IntN(4); {
				case x < 2:
					ws[j] = words[z.Uint64()]
				case x == 2:
					ws[j] = topic[r.IntN(len(topic))]
				default:
					ws[j] = vocab[r.IntN(len(vocab))]
				}
			}
			qs[i] = strings.Join(ws, " ")
		}
		return qs
	}
}

//go:embed everyday.txt
var everydayText string

// EverydayWords are the words GenerateEveryday draws from for `bench
// recall --padding everyday`: the commonest words of the Go standard
// library's doc comments, most frequent first (everyday.txt says how they
// were counted).
func EverydayWords() []string {
	var out []string
	for _, line := range strings.Split(everydayText, "\n") {
		if w := strings.TrimSpace(line); w != "" && !strings.HasPrefix(w, "#") {
			out = append(out, w)
		}
	}
	return out
}
