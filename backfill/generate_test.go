package backfill

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Flags of TestGenerateHistory, which writes a synthetic history for the
// benchmark in docs/benchmarks.md ("Backfill"):
//
//	go test -tags sqlite_fts5 -run TestGenerateHistory ./backfill -args -history DIR -sessions 1000
var (
	historyDir   = flag.String("history", "", "TestGenerateHistory: write a synthetic HOME of agent sessions here")
	historyCount = flag.Int("sessions", 1000, "TestGenerateHistory: how many sessions")
	historyBig   = flag.Int64("big", 0, "TestGenerateHistory: also one Claude Code session of this many bytes (its fixture repeated)")
)

// TestGenerateHistory writes, when -history is given, a HOME holding
// -sessions sessions spread over the five agents, each made of its
// fixture's records repeated from 1 to 40 times (30 kB to 2 MB), written
// a day or more ago, and with -big one Claude Code session of that size.
func TestGenerateHistory(t *testing.T) {
	if *historyDir == "" {
		t.Skip("no -history DIR")
	}
	w := &world{dirs: Dirs{Home: *historyDir, StateDir: filepath.Join(*historyDir, "state")}}
	fixtures := map[string]string{"claude": "claude-session.jsonl", "codex": "codex-rollout.jsonl",
		"gemini": "gemini-session.jsonl", "opencode": "opencode-session.jsonl", "copilot": "copilot-events.jsonl"}
	body := map[string][]byte{}
	for agent, name := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		body[agent] = data
	}
	var total int64
	for i := 0; i < *historyCount; i++ {
		agent := Agents[i%len(Agents)]
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		path := syntheticPath(*historyDir, agent, id, i)
		repeat := 1 + (i*7919)%40
		text := string(body[agent])
		if agent == "gemini" {
			// Gemini's id is in the chat, not its name: one per session.
			text = strings.ReplaceAll(text, "53e0fb2d-02fe-4555-a75b-0f478d419ca4", id)
		}
		data := []byte(strings.Repeat(text, repeat))
		w.write(t, path, data, time.Now().Add(-time.Duration(24+i%720)*time.Hour))
		total += int64(len(data))
	}
	if *historyBig > 0 {
		total += writeBig(t, syntheticPath(*historyDir, "claude", "big-session", 0), body["claude"], *historyBig)
	}
	t.Logf("wrote %d sessions, %d MB, under %s", *historyCount, total>>20, *historyDir)
}

func syntheticPath(home, agent, id string, i int) string {
	switch agent {
	case "claude":
		return filepath.Join(home, ".claude", "projects", fmt.Sprintf("-home-dev-src-p%d", i%20), id+".jsonl")
	case "codex":
		return filepath.Join(home, ".codex", "sessions", "2026", "10", fmt.Sprintf("%02d", 1+i%28), "rollout-2026-10-01T10-00-00-"+id+".jsonl")
	case "gemini":
		return filepath.Join(home, ".gemini", "tmp", fmt.Sprintf("p%d", i%20), "chats", "session-"+id+".jsonl")
	case "opencode":
		return filepath.Join(home, "state", "transcripts", "opencode", "ses_"+id+".jsonl")
	default:
		return filepath.Join(home, ".copilot", "session-state", id, "events.jsonl")
	}
}

// writeBig writes a session of at least size bytes, record after record
// of body, in one pass and without holding it.
func writeBig(t *testing.T, path string, body []byte, size int64) int64 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for n < size {
		k, err := f.Write(body)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(k)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	return n
}
