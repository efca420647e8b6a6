package backfill

import (
	"context"
	"os"
	"testing"
)

func TestZZProfPlan(t *testing.T) {
	h := os.Getenv("ZZ_HIST")
	if h == "" {
		t.Skip()
	}
	st, _ := LoadState(t.TempDir())
	p, err := MakePlan(context.Background(), Options{Dirs: Dirs{Home: h, StateDir: h + "/state"}}, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", p.Total)
}
