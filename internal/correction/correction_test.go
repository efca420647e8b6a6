package correction

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// labelled is one line of a corrections list.
type labelled struct {
	correction bool
	prompt     string
	line       int
}

// readLabelled reads label<TAB>prompt lines; "\n" in a prompt stands for a
// newline so pasted logs fit on one line.
func readLabelled(t *testing.T, name string) []labelled {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		label, prompt, ok := strings.Cut(text, "\t")
		if !ok || (label != "correction" && label != "other") {
			t.Fatalf("%s:%d: want label<TAB>prompt with label correction or other", name, n)
		}
		out = append(out, labelled{label == "correction", strings.ReplaceAll(prompt, `\n`, "\n"), n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// score returns the confusion counts of IsCorrection on a list, logging
// every miss.
func scoreList(t *testing.T, name string) (tp, fp, fn, tn int) {
	for _, l := range readLabelled(t, name) {
		got, why := Explain(l.prompt)
		switch {
		case got && l.correction:
			tp++
		case got && !l.correction:
			fp++
			t.Logf("%s:%d false positive: %q: %s", name, l.line, l.prompt, why)
		case !got && l.correction:
			fn++
			t.Logf("%s:%d false negative: %q: %s", name, l.line, l.prompt, why)
		default:
			tn++
		}
	}
	return
}

// The detector's measured quality. corrections.tsv (58 corrections, 70
// other prompts) was written before the detector and used while building
// it, so its numbers are optimistic: 58 true positives, 1 false positive
// ("instead of explaining, just show me the code"), 0 false negatives, 69
// true negatives: precision 0.983, recall 1.000. corrections_holdout.tsv
// (20 + 20) was also written before the detector but scored only once,
// after it was final: 18 true positives, 0 false positives, 2 false
// negatives ("Don't hardcode the token, read it from $GH_TOKEN", "should be
// `--dry-run=client` for kubectl"), 20 true negatives: precision 1.000,
// recall 0.900. The floors below allow about one more mistake each.
var detectorFloors = []struct {
	file              string
	precision, recall float64
}{
	{"corrections.tsv", 0.95, 0.97},
	{"corrections_holdout.tsv", 0.94, 0.85},
}

func TestCorrectionDetectorQuality(t *testing.T) {
	t.Parallel()
	for _, fl := range detectorFloors {
		t.Run(fl.file, func(t *testing.T) {
			all := readLabelled(t, fl.file)
			tp, fp, fn, tn := scoreList(t, fl.file)
			if tp+fn < 20 || fp+tn < 20 || tp+fp+fn+tn != len(all) {
				t.Fatalf("list too small or miscounted: tp=%d fp=%d fn=%d tn=%d of %d", tp, fp, fn, tn, len(all))
			}
			precision := float64(tp) / float64(tp+fp)
			recall := float64(tp) / float64(tp+fn)
			t.Logf("tp=%d fp=%d fn=%d tn=%d precision=%.3f recall=%.3f", tp, fp, fn, tn, precision, recall)
			if precision < fl.precision {
				t.Errorf("precision %.3f fell below %.2f", precision, fl.precision)
			}
			if recall < fl.recall {
				t.Errorf("recall %.3f fell below %.2f", recall, fl.recall)
			}
		})
	}
}

func TestCorrectionListsAreBigEnough(t *testing.T) {
	t.Parallel()
	var corr, other int
	for _, l := range readLabelled(t, "corrections.tsv") {
		if l.correction {
			corr++
		} else {
			other++
		}
	}
	if corr < 35 || other < 45 {
		t.Errorf("corrections.tsv has %d corrections and %d others; want at least 35 and 45", corr, other)
	}
}

// TestCorrectionEdges covers inputs outside the lists: the rules of the
// line, not more samples of it.
func TestCorrectionEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prompt string
		want   bool
		reason string // a piece of Explain's answer
	}{
		{"", false, "empty"},
		{"   \n\t ", false, "empty"},
		{"/compact keep the curl notes", false, "slash command"},
		{"wrong", false, "too short"},
		{"that's wrong", false, "too short"},
		{"use pnpm", false, "too short"},
		{"Don’t use sudo here, the docker group is set up", true, "don't use"},
		{"NO, USE --INSECURE INSTEAD", true, "instead"},
		{"no, use --insecure instead\nhere is the output I got:\ncurl: (60) SSL certificate problem", true, "instead"},
		{"curl: (60) SSL certificate problem: self-signed certificate\nuse --insecure instead", false, "pasted output"},
		{"$ npm test\nnpm ERR! use --legacy-peer-deps instead", false, "pasted output"},
		{"use --insecure instead " + strings.Repeat("because reasons ", 40), false, "too long"},
		{"why did you use npm instead of pnpm?", false, "question"},
		{"ok thanks, that's all", false, "acknowledgement"},
		{"how about passing --insecure?", true, "suggestion"},
		{"what about the tests for the parser?", false, "suggestion"},
		{"how does --insecure work?", false, "question"},
		{"ok, use pnpm instead", true, "instead"},
		{"add a test that the CLI rejects the wrong flag", false, "new work"},
		{"no, add the -k flag, the cert is self-signed", true, "opener"},
	}
	for _, tt := range tests {
		prompt := strings.ReplaceAll(tt.prompt, `\n`, "\n")
		got, why := Explain(prompt)
		if got != tt.want || !strings.Contains(why, tt.reason) {
			t.Errorf("Explain(%.60q) = %v, %q; want %v with %q", prompt, got, why, tt.want, tt.reason)
		}
		if Is(prompt) != got {
			t.Errorf("IsCorrection and Explain disagree on %q", prompt)
		}
	}
}

func TestIsIsFastOnHugePrompts(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("use --insecure instead ", 200000) // 4.6 MB on one line
	// The best of three runs: a loaded machine can deschedule one run
	// for longer than the bound, not three; a superlinear scan of 4.6 MB
	// misses it every time.
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		if Is(huge) {
			t.Fatal("a 4.6 MB prompt is a correction")
		}
		best = min(best, time.Since(start))
	}
	if best > 100*time.Millisecond {
		t.Errorf("IsCorrection took %s at best", best)
	}
}

func FuzzIs(f *testing.F) {
	for _, s := range []string{"no, use --insecure instead", "why?", "", "\u2019\u201c", "no,", "wrong wrong", "instead of , use", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		ok, why := Explain(prompt)
		if ok != strings.HasPrefix(why, "correction") {
			t.Errorf("verdict %v but reason %q", ok, why)
		}
		line, _ := correctionLine(prompt)
		s := signalText{raw: line, lower: normalize(line)}
		for _, sig := range signals {
			if sig.match(s) && !sig.mayMatch(s) {
				t.Errorf("signal %q matches %q but its need %q skips it", sig.name, prompt, sig.need)
			}
		}
		checkShortcuts(t, prompt, line, s.lower)
	})
}

// signalCorpus is every labelled prompt and, for each signal, prompts
// that take each branch of its expression.
func signalCorpus(t *testing.T) []string {
	var out []string
	for _, name := range []string{"corrections.tsv", "corrections_holdout.tsv"} {
		for _, l := range readLabelled(t, name) {
			out = append(out, l.prompt)
		}
	}
	return append(out,
		"use x instead", "use pnpm rather than npm", "you should've used make", "you shouldve set it", "should of run it",
		"that's wrong, it is the other one", "this is not right at all", "it is incorrect here", "that was not how we do it",
		"not quite what I meant", "wrong again you see", "no, not like that please", "it uses the wrong python here",
		"use pnpm not npm ok", "run make, not the script", "pass `-v`, not -x", "not the staging one but prod",
		"it's `make` not make", "don't use sudo here", "stop using the proxy now", "the correct port is 8080",
		"the right base branch was main", "nope, the other one", "nah use the cli", "wait, run it again",
		"you forgot the flag there", "you're missing a step", "it needs to be quoted", "run --verbose on it",
		"look at ./bin/x please", "see ~/x for it", "see src/x.go too", "set FOO=1 then", "port :8080 is it",
		"the .env file holds it", "it isn't installed here", "the port is taken by x", "no longer supported there",
		"there's no tty here", "there is no such file", "that file is read-only now", "the api is deprecated now",
		"cert is self-signed sadly", "it cannot bind there", "build it first please", "do it beforehand then",
		"run it before building anything", "pick a different port please", "use another branch then",
		"why not use make", "how about the cli", "what about ports", "don't delete that file", "never push to main",
		"do not commit that", "dont rebase it", "switch to main and rerun", "go with the cli version", "stick to make",
		"check out main first", "please just use pnpm for it", "no, use --insecure instead",
	)
}

// The substring check before each signal's expression only skips prompts
// the expression would not match, so verdicts are the expressions' own.
func TestSignalsNeedWhatTheyMatch(t *testing.T) {
	matched := map[string]int{}
	for _, prompt := range signalCorpus(t) {
		line, _ := correctionLine(prompt)
		s := signalText{raw: line, lower: normalize(line)}
		s.body = reFiller.ReplaceAllString(stripOpener(s.lower), "")
		for _, sig := range signals {
			if !sig.match(s) {
				continue
			}
			matched[sig.name]++
			if !sig.mayMatch(s) {
				t.Errorf("signal %q matches %q but its need %q skips it", sig.name, prompt, sig.need)
			}
		}
		checkShortcuts(t, s.raw, s.lower)
		if reCode.MatchString(s.raw) {
			matched["reCode"]++
		}
		if reOpener.MatchString(s.lower) {
			matched["reOpener"]++
		}
		if reFiller.MatchString(s.lower) {
			matched["reFiller"]++
		}
	}
	for _, re := range []string{"reCode", "reOpener", "reFiller"} {
		if matched[re] == 0 {
			t.Errorf("%s matched no prompt of the corpus", re)
		}
	}
	for _, sig := range signals {
		if matched[sig.name] == 0 {
			t.Errorf("signal %q matched no prompt of the corpus: the test says nothing of it", sig.name)
		}
	}
}

// checkShortcuts checks that the checks run before reCode, reOpener and
// reFiller only skip texts the expressions would not match.
func checkShortcuts(t *testing.T, texts ...string) {
	t.Helper()
	for _, x := range texts {
		if isCode(x) != reCode.MatchString(x) {
			t.Errorf("isCode(%q) = %v, reCode says %v", x, isCode(x), !isCode(x))
		}
		if hasSlashWord(x) && !reCode.MatchString(x) {
			t.Errorf("hasSlashWord(%q) but reCode does not match it", x)
		}
		if reOpener.MatchString(x) && !hasPrefixOf(x, openerStarts) {
			t.Errorf("reOpener matches %q, which opens with none of %q", x, openerStarts)
		}
		if got, want := stripFillers(x), reFiller.ReplaceAllString(x, ""); got != want {
			t.Errorf("stripFillers(%q) = %q, want %q", x, got, want)
		}
	}
}

func BenchmarkJudge(b *testing.B) {
	t := &testing.T{}
	prompts := signalCorpus(t)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range prompts {
			Judge(p)
		}
	}
}
