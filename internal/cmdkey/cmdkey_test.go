package cmdkey

import (
	"slices"
	"testing"
)

func TestKey(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./...":                      "go test",
		"cd svc && FOO=1 go test -run X ./.": "go test",
		"bash -lc 'make idp'":                "make idp",
		"sudo -u root npm ci":                "npm ci",
		"python3 -m pytest -x":               "python3 -m pytest",
		"npm run build -- --prod":            "npm run build",
		"curl -k https://x":                  "curl",
		"":                                   "",
	} {
		if got := Key(cmd); got != want {
			t.Errorf("Key(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	for cmd, want := range map[string][]string{
		"make gen && go test ./... && go test -race ./x": {"make gen", "go test"},
		"cd x; echo hi":               nil,
		"git push --force-with-lease": {"git push"},
		"./run.sh | tee log":          {"tee"}, // "run.sh" names a file, not a program
		"FOO=1 timeout 30 pytest -q":  {"pytest"},
	} {
		if got := Keys(cmd); !slices.Equal(got, want) {
			t.Errorf("Keys(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestRecorded(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		symptoms []string
		want     []string
	}{
		{"builtin writer", "`go test ./...` failed with \"undefined: Foo\"; `go test -tags integration ./...` works (-tags integration).", nil, []string{"go test"}},
		{"mini-learning", "`curl https://localhost:8443/health` failed with \"curl: (60) SSL certificate problem\"; the user said: use --insecure", nil, []string{"curl"}},
		{"prose", "Running `npm ci` exits with code 1 when the lockfile is stale; run `npm install` first.", nil, []string{"npm ci"}},
		{"fix only", "Use `go test -count=1 ./...` to skip the cache.", nil, nil},
		{"file names are not commands", "`config.yaml` fails to parse when tabs are used", nil, nil},
		{"a lone known program", "`make` fails without GOFLAGS set", nil, []string{"make"}},
		{"a lone unknown word", "`SameSite=Strict` breaks the callback", nil, nil},
		{"symptom spans and prompt lines", "", []string{"$ terraform plan -out x", "`helm upgrade --install` times out"}, []string{"terraform plan", "helm upgrade"}},
		{"no code", "the build fails", nil, nil},
		{"a program named in prose", "curl exits 60 (SSL certificate problem) against https://localhost:8443", nil, []string{"curl"}},
		{"a subcommand named in prose", "Here npm ci fails when the lockfile is stale.", nil, []string{"npm ci"}},
		{"prose that names no failure", "go test covers the package; make sure the build is clean", nil, nil},
		{"a failure too far away", "curl is used by the health check script and the deploy failed", nil, nil},
	}
	for _, tc := range tests {
		if got := Recorded(tc.text, tc.symptoms); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Recorded = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRecordedIsBounded(t *testing.T) {
	text := ""
	for i := 0; i < 100; i++ {
		text += "`tool" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " x` failed. "
	}
	if got := Recorded(text, nil); len(got) != maxRecorded {
		t.Errorf("Recorded kept %d keys, want %d", len(got), maxRecorded)
	}
}

func FuzzRecorded(f *testing.F) {
	f.Add("`go test ./...` failed", "$ make")
	f.Add("``` `", "`")
	f.Fuzz(func(t *testing.T, text, symptom string) {
		keys := Recorded(text, []string{symptom})
		if len(keys) > maxRecorded {
			t.Fatalf("%d keys", len(keys))
		}
		for _, k := range keys {
			if !plausibleKey(k) {
				t.Fatalf("implausible key %q", k)
			}
		}
		_ = Keys(text)
	})
}
