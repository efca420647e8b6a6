package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValueRedactsEveryStringAndKey(t *testing.T) {
	var v any
	in := `{"AKIAIOSFODNN7EXAMPLE":1,"a":["x AKIAIOSFODNN7EXAMPLE",{"b":"<private>p</private>"}],"n":2,"t":true}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(Value(v))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(s, "<private>") ||
		!strings.Contains(s, `"n":2`) || !strings.Contains(s, `"t":true`) || strings.Count(s, "[REDACTED:") != 2 {
		t.Errorf("Value(%s) = %s", in, s)
	}
}
