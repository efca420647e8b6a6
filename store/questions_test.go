package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanQuestions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("why ", 80)
	got := CleanQuestions([]string{
		"  why does it\nhang?\t", "WHY DOES IT HANG?", "", " \x00\x07 ", long,
		"token ghp_" + strings.Repeat("a", 36) + " rejected", "bad \xff byte", "six", "seven",
	})
	if len(got) != MaxQuestions {
		t.Fatalf("got %d questions, want %d: %q", len(got), MaxQuestions, got)
	}
	if got[0] != "why does it hang?" {
		t.Errorf("first question %q: one line, trimmed", got[0])
	}
	if utf8.RuneCountInString(got[1]) > MaxQuestionRunes || !strings.HasPrefix(got[1], "why why") {
		t.Errorf("long question not cut to %d runes: %d", MaxQuestionRunes, utf8.RuneCountInString(got[1]))
	}
	if strings.Contains(got[2], "ghp_") {
		t.Errorf("secret kept: %q", got[2])
	}
	if !utf8.ValidString(got[3]) || got[4] != "six" {
		t.Errorf("got %q", got)
	}
	if CleanQuestions(nil) != nil {
		t.Error("no questions should stay nil")
	}
}
