package recall

// Helpers shared by the internal tests and the external recall_test package
// (which holds what needs package bench). Being in a _test.go file of
// package recall, they are compiled into both and exported to neither
// production code nor other packages.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
)

// NewKB makes a knowledge base in a temp dir, lets fill write documents
// into its documents/ directory, and opens (so indexes) it.
func NewKB(t testing.TB, fill func(docs string)) *index.Index {
	t.Helper()
	root := t.TempDir()
	docs := filepath.Join(root, "documents")
	if err := os.MkdirAll(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	fill(docs)
	ix, err := index.Open(context.Background(), docs, filepath.Join(root, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	c, err := ix.Count(context.Background())
	if err != nil || c.Problems > 0 {
		t.Fatalf("KB has %d malformed documents (%v)", c.Problems, err)
	}
	return ix
}

// CopyCorpus copies the calibration corpus (testdata/kb) into docs.
func CopyCorpus(t testing.TB, docs string) {
	t.Helper()
	ents, err := os.ReadDir("testdata/kb")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join("testdata/kb", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// WriteDoc writes a minimal valid learning.
func WriteDoc(t testing.TB, docs, id, title, insight, body string) {
	t.Helper()
	doc := fmt.Sprintf("---\nid: %s\ntitle: %q\nconfidence: high\nkey_insight: %q\ncreated: 2026-01-01T00:00:00Z\n---\n%s\n", id, title, insight, body)
	if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Labelled is a calibration prompt: Want is the learning it should recall,
// "" when it should recall nothing.
type Labelled struct {
	Want, Prompt string
}

// LoadPrompts reads the calibration prompts of testdata.
func LoadPrompts(t testing.TB) (pos, neg []Labelled) {
	return LoadPromptFiles(t, "prompts-positive.tsv", "prompts-negative.txt")
}

// LoadHoldout reads the held-out prompts: written after the floor was
// chosen, they measure it without having shaped it.
func LoadHoldout(t testing.TB) (pos, neg []Labelled) {
	return LoadPromptFiles(t, "holdout-positive.tsv", "holdout-negative.txt")
}

// LoadPromptFiles reads labelled prompts from testdata: positives as
// "<id>\t<prompt>" lines, negatives one prompt a line; '#' starts a comment.
func LoadPromptFiles(t testing.TB, posFile, negFile string) (pos, neg []Labelled) {
	t.Helper()
	read := func(name string, fn func(string)) {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
				fn(line)
			}
		}
	}
	read(posFile, func(line string) {
		want, prompt, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("positive prompt without a tab: %q", line)
		}
		pos = append(pos, Labelled{want, prompt})
	})
	read(negFile, func(line string) { neg = append(neg, Labelled{"", line}) })
	return pos, neg
}

// Score counts what a recall did with labelled prompts.
type Score struct {
	Right   int // positives whose learning was injected
	Wrong   int // positives that got other learnings only
	Missed  int // positives that got nothing
	Silent  int // negatives that got nothing
	Noisy   int // negatives that got something
	Entries int // learnings injected for positives, right or not
}

// Precision is the share of prompts that got learnings whose learnings
// included the right one (negatives that got any count against it).
func (s Score) Precision() float64 {
	if n := s.Right + s.Wrong + s.Noisy; n > 0 {
		return float64(s.Right) / float64(n)
	}
	return 1
}

// Recall is the share of positives that got their learning.
func (s Score) Recall() float64 {
	return float64(s.Right) / float64(s.Right+s.Wrong+s.Missed)
}

// SilenceRate is the share of negatives that got nothing.
func (s Score) SilenceRate() float64 {
	return float64(s.Silent) / float64(s.Silent+s.Noisy)
}

func (s Score) String() string {
	return fmt.Sprintf("precision %.3f  recall %.3f (%d/%d)  silent on unrelated %d/%d  wrong %d  missed %d  entries/positive %.2f",
		s.Precision(), s.Recall(), s.Right, s.Right+s.Wrong+s.Missed, s.Silent, s.Silent+s.Noisy,
		s.Wrong, s.Missed, float64(s.Entries)/float64(max(1, s.Right+s.Wrong+s.Missed)))
}

// Add scores one labelled prompt given the ids it injected.
func (s *Score) Add(l Labelled, ids []string) {
	if l.Want == "" {
		if len(ids) == 0 {
			s.Silent++
		} else {
			s.Noisy++
		}
		return
	}
	s.Entries += len(ids)
	switch {
	case len(ids) == 0:
		s.Missed++
	case contains(ids, l.Want):
		s.Right++
	default:
		s.Wrong++
	}
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// IDs lists the ids of hits.
func IDs(hits []Hit) []string {
	ids := []string{}
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// gitWait is the GitTimeout of the tests' session-start requests: they
// check the commit subjects git returns, and on a loaded machine git can
// take longer than the hook's gitrepo.DefaultTimeout for them.
const gitWait = time.Minute

// GitEnv isolates git from the machine's and the user's configuration and
// points HOME at a temp dir, for the test and for the git that recall runs.
func GitEnv(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return home
}

// Git runs git in dir with a fixed identity and fails the test on error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// NewRepo creates a repository in dir on branch with an origin remote (when
// origin is not "") and one empty commit per subject, oldest first.
func NewRepo(t testing.TB, dir, branch, origin string, subjects ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q")
	Git(t, dir, "symbolic-ref", "HEAD", "refs/heads/"+branch)
	if origin != "" {
		Git(t, dir, "remote", "add", "origin", origin)
	}
	for _, s := range subjects {
		Git(t, dir, "commit", "-q", "--allow-empty", "-m", s)
	}
}

// GateCandidates searches for prompt as Recall does and returns the hits
// with the gate's features of each: for the dump that calibrates the gate.
func GateCandidates(ctx context.Context, ix *index.Index, prompt string, now time.Time) ([]index.Result, []Features, error) {
	c, err := GateCandidatesFull(ctx, ix, prompt, now)
	return c.Results, c.Features, err
}

// Candidates are a prompt's hits as the gate sees them.
type Candidates struct {
	Results  []index.Result
	Features []Features
	// Passing are the ids the gate lets through.
	Passing map[string]bool
	// Docs is the KB's size, Terms the query's word count.
	Docs, Terms int
	// Request is whether the prompt asks for work (intent.go).
	Request bool
}

// GateCandidatesFull is GateCandidates with what the gate let through.
func GateCandidatesFull(ctx context.Context, ix *index.Index, prompt string, now time.Time) (Candidates, error) {
	q, skip := promptQuery(prompt)
	if skip != "" {
		return Candidates{}, nil
	}
	results, err := ix.Search(ctx, index.Query{Text: q, Limit: DefaultMax + searchHeadroom, Rerank: true, IDFCap: IDFCap, Now: now})
	if err != nil {
		return Candidates{}, err
	}
	docs, err := ix.DocCount(ctx)
	if err != nil {
		return Candidates{}, err
	}
	c := Candidates{Results: results, Features: gateFeatures(results, docs, q), Passing: map[string]bool{}, Docs: docs, Terms: len(index.Terms(q))}
	c.Request = isRequest(cleanPrompt(prompt))
	kept, _ := throughGate(results, docs, q, c.Request, false, GateStrict)
	for _, r := range kept {
		c.Passing[r.ID] = true
	}
	return c, nil
}
