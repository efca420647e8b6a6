package recall_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/recall"
)

// TestPastedLogVariables: a pasted log's timestamps, addresses and request
// ids are no words a learning shares, so they neither match learnings at
// random nor raise a long prompt's floor: the log line that says what went
// wrong recalls its learning, in a KB of ten of the userset's learnings
// dealt out as `bench recall` deals them. Written for this test, not taken
// from the set's prompts.
func TestPastedLogVariables(t *testing.T) {
	set, err := bench.LoadSet("userset")
	if err != nil {
		t.Fatal(err)
	}
	const want = "lrn-a-lambda-in-a-vpc-has-no-internet-access-without-a-nat-gatew-99d99d"
	names := make([]string, 0, len(set.Learnings))
	for n := range set.Learnings {
		names = append(names, n)
	}
	sort.Strings(names)
	groups := (len(names) + 9) / 10
	at := slices.Index(names, want+".md")
	if at < 0 {
		t.Fatalf("%s is not in the userset", want)
	}
	ix := recall.NewKB(t, func(docs string) {
		for i, name := range names {
			if i%groups != at%groups {
				continue
			}
			if err := os.WriteFile(filepath.Join(docs, name), set.Learnings[name], 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
	prompt := "2026-03-14T08:01:41.170Z START RequestId: 9b1c4e7a-2f3d-4a6b-8c1d-5e7f9a0b2c4d Version: $LATEST\n" +
		"2026-03-14T08:02:11.204Z 9b1c4e7a-2f3d-4a6b-8c1d-5e7f9a0b2c4d Task timed out after 30.03 seconds\n" +
		"END RequestId: 9b1c4e7a-2f3d-4a6b-8c1d-5e7f9a0b2c4d\n" +
		"REPORT RequestId: 9b1c4e7a-2f3d-4a6b-8c1d-5e7f9a0b2c4d\tDuration: 30031.87 ms\tBilled Duration: 30000 ms\tMemory Size: 256 MB\tMax Memory Used: 71 MB"
	res, err := recall.Recall(context.Background(), ix, recall.Request{Kind: recall.Prompt, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if got := recall.IDs(res.Injected); len(got) == 0 || got[0] != want {
		t.Errorf("recall of a pasted Lambda log injected %v (%s), want %s", got, res.Skipped, want)
	}
}
