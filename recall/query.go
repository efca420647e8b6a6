package recall

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/lazyre"
)

// minPromptRunes is the shortest prompt worth a search: "yes", "continue"
// and "run the tests" carry no topic, and their few words would only match
// noise.
const minPromptRunes = 12

// injectedBlock matches a block recall injected earlier. Agents sometimes
// echo it back in a prompt; searching its words would find the very
// learnings it lists. An unclosed block runs to the end of the text.
var injectedBlock = lazyre.New(`(?s)<reflect-learnings>.*?(</reflect-learnings>|\z)`)

// MaxPromptBytes is how much of a prompt is searched. The query keeps 48
// words anyway; a pasted log of megabytes cost a hook seconds and hundreds
// of megabytes in the block filter and the tokenizer before it was cut.
const MaxPromptBytes = 16 << 10

// ClipPrompt returns at most MaxPromptBytes of p, cut on a character
// boundary.
func ClipPrompt(p string) string {
	if len(p) <= MaxPromptBytes {
		return p
	}
	cut := MaxPromptBytes
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut]
}

// promptQuery turns a user prompt into query text, or says why the prompt
// is not worth a search. Only its first MaxPromptBytes are looked at.
func promptQuery(prompt string) (string, string) {
	p := cleanPrompt(prompt)
	switch {
	case p == "":
		return "", "empty prompt"
	case isSlashCommand(p):
		return "", "slash command"
	case utf8.RuneCountInString(p) < minPromptRunes:
		return "", "prompt shorter than 12 characters"
	}
	return pasteQuery(p), ""
}

// cleanPrompt is prompt clipped, without a block reflect injected earlier
// that the user pasted back.
func cleanPrompt(prompt string) string {
	return strings.TrimSpace(injectedBlock.ReplaceAllString(ClipPrompt(prompt), " "))
}

// isSlashCommand recognises "/compact", "/review 12" and "/project:deploy",
// but not a prompt that starts with a path such as "/etc/hosts is empty".
func isSlashCommand(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	first := strings.Fields(p)[0]
	return len(first) > 1 && !strings.Contains(first[1:], "/")
}

// maxCommitTokens is how many words of the recent commit subjects join the
// query: enough to name what the work is about, few enough that a long
// history does not drown the project and branch.
const maxCommitTokens = 6

// sessionQuery builds the session-start query for cwd: the project name,
// the words of the branch and the telling words of the last five commit
// subjects. It also returns the project name, which ranks the project's own
// learnings first.
func sessionQuery(ctx context.Context, cwd string, gitTimeout time.Duration) (query, project, skip string) {
	if skip := gitrepo.SkipDir(cwd); skip != "" {
		return "", "", skip
	}
	r := gitrepo.Inspect(ctx, filepath.Clean(cwd), true, gitTimeout)
	words := []string{r.Project}
	words = append(words, branchWords(r.Branch)...)
	// Commit words already in the query would only take the place of
	// others: a branch's name is usually in its merge commits.
	have := map[string]bool{}
	for _, w := range append(splitWords(r.Project), words[1:]...) {
		have[w] = true
	}
	words = append(words, commitTokens(r.Subjects, maxCommitTokens, have)...)
	return strings.Join(words, " "), r.Project, ""
}

// projectName names the project cwd belongs to from .git/config alone (no
// git log, no HEAD), so a prompt's query can prefer that project's
// learnings cheaply.
func projectName(ctx context.Context, cwd string) string { return gitrepo.Project(ctx, cwd) }

// trunkBranches say nothing about the work in progress.
var trunkBranches = toSet(`main master head trunk develop development dev`)

// branchPrefixes are conventional branch-name prefixes, not topics.
var branchPrefixes = toSet(`feature feat fix bugfix hotfix chore refactor release wip topic dependabot renovate`)

// branchWords splits a branch name such as "feature/oauth-state_cookie"
// into its topic words.
func branchWords(branch string) []string {
	if trunkBranches[strings.ToLower(branch)] {
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(branch), func(r rune) bool {
		return r == '/' || r == '-' || r == '_' || r == '.'
	}) {
		if branchPrefixes[w] || stopwords[w] || isNoise(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// commitWords are the verbs and labels of commit subjects ("fix: update
// deps", "Merge pull request #12"): they appear in every project's history
// and would match learnings at random.
var commitWords = toSet(`fix fixes fixed fixing add adds added adding update updates updated updating
	merge merged merging wip bump bumps bumped chore feat feature refactor refactored remove removes
	removed delete deleted change changes changed use uses make makes improve improved cleanup clean
	tweak tweaks minor typo typos initial commit revert reverts pull request branch release version
	docs doc test tests tested move moved rename renamed support handle set get new more less also
	some into from onto when then than via per after before work working again first main master
	origin upstream`)

// stopwords are dropped from commit subjects; index.Search drops its own
// from the query too, but these must go before the top tokens are counted.
var stopwords = toSet(`a an and are as at be but by for if in is it no not of on or such that the
	their then there these they this to was will with i you we our its do does did have has had
	can could should would may might all any each`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// isNoise reports words too short, numeric or hash-like to name a topic:
// ticket numbers, version digits, abbreviated commit ids.
func isNoise(w string) bool {
	if utf8.RuneCountInString(w) < 3 {
		return true
	}
	digits, hex := 0, 0
	for _, r := range w {
		if unicode.IsDigit(r) {
			digits++
		}
		if strings.ContainsRune("0123456789abcdef", r) {
			hex++
		}
	}
	n := utf8.RuneCountInString(w)
	return digits == n || (n >= 7 && hex == n && digits > 0)
}

// splitWords lowercases text and splits it into letter-and-digit words, as
// the index's tokenizer does.
func splitWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// commitTokens returns the n most frequent topic words of the subjects
// that are not in skip; ties go to the word seen first, that is in the
// most recent commit.
func commitTokens(subjects []string, n int, skip map[string]bool) []string {
	count := map[string]int{}
	first := map[string]int{}
	var order []string
	for _, s := range subjects {
		for _, w := range splitWords(s) {
			if skip[w] || stopwords[w] || commitWords[w] || isNoise(w) {
				continue
			}
			if _, seen := count[w]; !seen {
				first[w] = len(order)
				order = append(order, w)
			}
			count[w]++
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return first[a] < first[b]
	})
	if len(order) > n {
		order = order[:n]
	}
	return order
}
