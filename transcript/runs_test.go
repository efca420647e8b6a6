package transcript

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Runs counts every shell command by key, successes that fix nothing
// included (Events keep only the fixes), with the heads of the failures'
// errors: what the drainer checks injected learnings against.
func TestCondenseRuns(t *testing.T) {
	c := condenseString(t, "claude", lines(
		cUser(quote("run the tests")),
		cBash("a", "go test ./..."),
		cResult("a", quote("ok  \texample.com/x\t0.1s"), false),
		cBash("b", "cd svc && npm ci"),
		cResult("b", quote("npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree"), true),
		cBash("c", "npm ci --legacy-peer-deps"),
		cResult("c", quote("added 12 packages"), false),
		cBash("d", "go test ./..."),
		cResult("d", quote("ok"), false),
	), Limits{})
	want := []Run{
		{Key: "go test", OK: 2},
		{Key: "npm ci", OK: 1, Failed: 1, Errors: []string{"npm ERR! code ERESOLVE | npm ERR! unable to resolve dependency tree"}},
	}
	if !reflect.DeepEqual(c.Runs, want) {
		t.Errorf("Runs = %+v\nwant  %+v", c.Runs, want)
	}
}

// Runs is bounded: keys past maxRuns and errors past maxRunErrors are not
// kept.
func TestCondenseRunsBounded(t *testing.T) {
	var ls []string
	for i := 0; i < maxRuns+10; i++ {
		id := fmt.Sprintf("t%d", i)
		ls = append(ls, cBash(id, fmt.Sprintf("make target%d", i)), cResult(id, quote("done"), false))
	}
	for i := 0; i < maxRunErrors+3; i++ {
		id := fmt.Sprintf("f%d", i)
		ls = append(ls, cBash(id, "make target0"), cResult(id, quote(fmt.Sprintf("make: *** error %d", i)), true))
	}
	c := condenseString(t, "claude", strings.Join(ls, "\n")+"\n", Limits{})
	if len(c.Runs) != maxRuns || len(c.Runs[0].Errors) != maxRunErrors || c.Runs[0].Failed != maxRunErrors+3 {
		t.Errorf("%d runs, first %+v", len(c.Runs), c.Runs[0])
	}
}
