package lazyre

import (
	"sync"
	"testing"
)

func TestCompilesOnFirstUseOnly(t *testing.T) {
	r := New(`a(b+)c`)
	if r.re != nil {
		t.Fatal("compiled before first use")
	}
	if !r.MatchString("xabbc") || r.MatchString("ac") {
		t.Error("MatchString wrong")
	}
	first := r.Get()
	if got := r.FindStringSubmatch("abbbc"); len(got) != 2 || got[1] != "bbb" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if r.Get() != first {
		t.Error("compiled twice")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	r := New(`^\d+$`)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !r.MatchString("123") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}

func TestInvalidPanicsAtFirstUse(t *testing.T) {
	r := New(`(`) // creating it must not panic
	defer func() {
		if recover() == nil {
			t.Error("invalid expression did not panic at first use")
		}
	}()
	r.MatchString("x")
}
