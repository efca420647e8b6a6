package recall

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func injected(query string, ids ...string) Result {
	res := Result{Query: query}
	for i, id := range ids {
		res.Injected = append(res.Injected, Hit{ID: id, Evidence: 1.234 + float64(i)})
	}
	return res
}

func ledgerSize(t *testing.T, state string) int64 {
	t.Helper()
	days, err := ledgerDays(filepath.Join(state, ledgerDir))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range days {
		n += d.size
	}
	return n
}

func TestLedgerRecordsAndFilters(t *testing.T) {
	state := t.TempDir()
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	secret := "ghp_" + strings.Repeat("a", 36)
	steps := []struct {
		session string
		res     Result
		at      time.Time
	}{
		{"s1", injected("why is sqlite locked "+secret, "lrn-a", "lrn-b"), t0},
		{"s1", injected("nothing"), t0.Add(time.Minute)}, // nothing injected: no record
		{"s2", injected("redis eviction", "lrn-c"), t0.Add(24 * time.Hour)},
	}
	for _, s := range steps {
		if err := RecordInjection(state, "claude", "prompt", s.session, s.res, s.at); err != nil {
			t.Fatal(err)
		}
	}
	all, err := ReadLedger(state, LedgerFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Session != "s1" || strings.Join(all[0].IDs, ",") != "lrn-a,lrn-b" || all[0].Evidence[0] != 1.23 ||
		all[0].Agent != "claude" || all[0].Hook != "prompt" || !all[0].Time.Equal(t0) {
		t.Fatalf("ledger %+v", all)
	}
	if strings.Contains(all[0].Query, "ghp_") || !strings.Contains(all[0].Query, "why is sqlite locked") {
		t.Errorf("query %q: want it redacted", all[0].Query)
	}
	if got, _ := ReadLedger(state, LedgerFilter{Session: "s2"}); len(got) != 1 || got[0].IDs[0] != "lrn-c" {
		t.Errorf("--session s2: %+v", got)
	}
	if got, _ := ReadLedger(state, LedgerFilter{Since: t0.Add(time.Hour)}); len(got) != 1 || got[0].Session != "s2" {
		t.Errorf("--since: %+v", got)
	}
	if got, err := ReadLedger(t.TempDir(), LedgerFilter{}); err != nil || len(got) != 0 {
		t.Errorf("no ledger: %v, %v", got, err)
	}
}

// 10,000 injections take at most 5 MB, however they fall across days, and
// days older than 90 are deleted.
func TestLedgerIsBounded(t *testing.T) {
	ids := func(i int) []string {
		return []string{fmt.Sprintf("lrn-postgres-connection-pool-exhausted-under-load-%06x", i),
			fmt.Sprintf("lrn-oauth-state-cookie-must-be-samesite-lax-on-idp-redirects-%06x", i),
			fmt.Sprintf("lrn-sqlite-database-is-locked-set-busy-timeout-and-wal-%06x", i)}
	}
	query := strings.Repeat("why does the connection pool run out under load again ", 4)
	for _, perDay := range []int{10000, 1000, 100} {
		t.Run(fmt.Sprint(perDay, " a day"), func(t *testing.T) {
			state := t.TempDir()
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := 0; i < 10000; i++ {
				at := t0.Add(time.Duration(i/perDay) * 24 * time.Hour).Add(time.Duration(i%perDay) * time.Second)
				_ = RecordInjection(state, "claude", "prompt", "3f0c8e62-8f14-4e45-a5d1-1a2b3c4d5e6f", injected(query, ids(i)...), at)
			}
			if n := ledgerSize(t, state); n > 5<<20 {
				t.Errorf("ledger takes %d bytes after 10,000 injections, over 5 MB", n)
			}
			got, _ := ReadLedger(state, LedgerFilter{})
			t.Logf("%d a day: %d bytes, %d injections kept", perDay, ledgerSize(t, state), len(got))
			if perDay == 1000 && len(got) != 10000 {
				t.Errorf("kept %d of 10,000 injections spread over 10 days", len(got))
			}
		})
	}
	state := t.TempDir()
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for d := 0; d < 100; d++ {
		if err := RecordInjection(state, "codex", "session-start", "s", injected("q", "lrn-x"), t0.AddDate(0, 0, d)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := ReadLedger(state, LedgerFilter{})
	if len(got) != LedgerKeepDays+1 || !got[0].Time.Equal(t0.AddDate(0, 0, 100-1-LedgerKeepDays)) {
		t.Errorf("kept %d days from %v, want %d", len(got), got[0].Time, LedgerKeepDays+1)
	}
	if _, err := os.Stat(filepath.Join(state, ledgerDir, "2026-01-01.jsonl")); !os.IsNotExist(err) {
		t.Errorf("the oldest day is still there: %v", err)
	}
}

// TestLedgerStampChangesWithTheLedger: the stamp is the same while the
// ledger is, and changes with every recorded injection.
func TestLedgerStampChangesWithTheLedger(t *testing.T) {
	state := t.TempDir()
	if s := LedgerStamp(state); s != "" {
		t.Errorf("no ledger: stamp %q", s)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var stamps []string
	for i := 0; i < 3; i++ {
		if err := RecordInjection(state, "claude", "prompt", "s", injected("q", "lrn-x"), at.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, LedgerStamp(state))
		if LedgerStamp(state) != stamps[i] {
			t.Errorf("the stamp changed with no injection")
		}
	}
	if stamps[0] == "" || stamps[0] == stamps[1] || stamps[1] == stamps[2] {
		t.Errorf("stamps %q do not change with each injection", stamps)
	}
}
