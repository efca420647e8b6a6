package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/lazyre"
)

// Setting is one configuration key with its effective value and where that
// value comes from: "default", "config.toml" or "env REFLECT_…".
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// keyKind is the TOML type of a settable key.
type keyKind int

const (
	kindString keyKind = iota
	kindInt
	kindFloat
	kindDuration
	kindBool
)

// keys are the settable keys, in the order `reflect config list` shows
// them, with their TOML types. learnings_dir lives in the [paths] table.
var keys = []struct {
	name string
	kind keyKind
}{
	{"learnings_dir", kindString},
	{"drain.writer", kindString},
	{"drain.command", kindString},
	{"drain.max_per_run", kindInt},
	{"drain.daily_max", kindInt},
	{"drain.daily_usd", kindFloat},
	{"drain.timeout", kindDuration},
	{"drain.max_attempts", kindInt},
	{"drain.review", kindBool},
	{"index.embedder", kindString},
	{"index.embedder_model", kindString},
	{"index.embedder_url", kindString},
	{"index.embedder_dim", kindInt},
	{"index.embedder_api_key_env", kindString},
	{"index.half_life_days", kindInt},
	{"index.vector_weight", kindFloat},
	{"recall.max", kindInt},
	{"recall.chars", kindInt},
	{"recall.gate", kindString},
	{"sync.auto", kindBool},
	{"sync.pull_interval", kindDuration},
}

// Keys lists the keys `reflect config get` and `set` accept.
func Keys() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}

// value is the effective value of key as text.
func (c *Config) value(key string) string {
	switch key {
	case "learnings_dir":
		return c.LearningsDir
	case "drain.writer":
		return c.Drain.Writer
	case "drain.command":
		return c.Drain.Command
	case "drain.max_per_run":
		return strconv.Itoa(c.Drain.MaxPerRun)
	case "drain.daily_max":
		return strconv.Itoa(c.Drain.DailyMax)
	case "drain.daily_usd":
		return strconv.FormatFloat(c.Drain.DailyUSD, 'f', -1, 64)
	case "drain.timeout":
		return c.Drain.Timeout.String()
	case "drain.max_attempts":
		return strconv.Itoa(c.Drain.MaxAttempts)
	case "drain.review":
		return strconv.FormatBool(c.Drain.ReviewOn())
	case "index.embedder":
		return c.Index.Embedder
	case "index.embedder_model":
		return c.Index.EmbedderModel
	case "index.embedder_url":
		return c.Index.EmbedderURL
	case "index.embedder_dim":
		return strconv.Itoa(c.Index.EmbedderDim)
	case "index.embedder_api_key_env":
		return c.Index.EmbedderKeyEnv
	case "index.half_life_days":
		return strconv.Itoa(c.Index.HalfLifeDays)
	case "index.vector_weight":
		return strconv.FormatFloat(c.Index.VectorWeight, 'f', -1, 64)
	case "recall.max":
		return strconv.Itoa(c.Recall.Max)
	case "recall.chars":
		return strconv.Itoa(c.Recall.Chars)
	case "recall.gate":
		return c.Recall.Gate
	case "sync.auto":
		return strconv.FormatBool(c.Sync.Auto)
	case "sync.pull_interval":
		return c.Sync.PullInterval.String()
	}
	return ""
}

// Settings lists every settable key with its effective value and source.
// state_dir comes first: it says where config.toml itself is.
func (c *Config) Settings() []Setting {
	src := func(key string) string {
		if o := c.Origin[key]; o != "" {
			return o
		}
		if key == "drain.review" {
			// Its default follows the writer: say so, or a user who
			// sets drain.writer would not see why it changed.
			return "default (true for an LLM writer)"
		}
		return "default"
	}
	out := []Setting{{Key: "state_dir", Value: c.StateDir, Source: src("state_dir")}}
	for _, k := range keys {
		out = append(out, Setting{Key: k.name, Value: c.value(k.name), Source: src(k.name)})
	}
	return out
}

// ErrUnknownKey is returned for a key reflect does not know.
var ErrUnknownKey = errors.New("unknown configuration key")

// Get returns one setting. An unknown key wraps ErrUnknownKey and names
// the nearest known key when there is one.
func (c *Config) Get(key string) (Setting, error) {
	for _, s := range c.Settings() {
		if s.Key == canonical(key) {
			return s, nil
		}
	}
	return Setting{}, unknownKey(key)
}

func canonical(key string) string {
	if key == "paths.learnings_dir" {
		return "learnings_dir"
	}
	return key
}

func unknownKey(key string) error {
	if near := Nearest(key); near != "" {
		return fmt.Errorf("%q: %w; did you mean %s? ('reflect config list' shows them all)", key, ErrUnknownKey, near)
	}
	return fmt.Errorf("%q: %w ('reflect config list' shows them all)", key, ErrUnknownKey)
}

// Nearest returns the known key closest to key (a misspelling or a key
// in the wrong table), or "" when none is close.
func Nearest(key string) string {
	best, bestD := "", 4
	leaf := key[strings.LastIndexByte(key, '.')+1:]
	for _, k := range append(Keys(), "paths.learnings_dir") {
		d := editDistance(key, k)
		if k[strings.LastIndexByte(k, '.')+1:] == leaf {
			d = min(d, 1) // the right key in the wrong table
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Set writes key = value into the config.toml at path, keeping every other
// line (comments included) as it is, and checks that the result still
// loads. The value is checked against the key's type first.
func Set(path, key, value string) error {
	key = canonical(key)
	i := slices.IndexFunc(keys, func(k struct {
		name string
		kind keyKind
	}) bool {
		return k.name == key
	})
	if i < 0 {
		return unknownKey(key)
	}
	literal, err := tomlLiteral(keys[i].kind, key, value)
	if err != nil {
		return err
	}
	table, leaf := "paths", key
	if t, l, ok := strings.Cut(key, "."); ok {
		table, leaf = t, l
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	data := setLine(old, table, leaf, literal)
	var fc fileConfig
	if _, err := toml.Decode(string(data), &fc); err != nil {
		return fmt.Errorf("%s would not parse after the change (%s); edit it by hand", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	return fsutil.WriteAtomic(path, data, 0o600)
}

func tomlLiteral(kind keyKind, key, value string) (string, error) {
	switch kind {
	case kindInt:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return "", fmt.Errorf("%s: %q is not a non-negative whole number", key, value)
		}
		return strconv.Itoa(n), nil
	case kindFloat:
		if key == "drain.daily_usd" {
			f, err := ParseUSD(value)
			if err != nil {
				return "", fmt.Errorf("%s: %q is %v", key, value, err)
			}
			return strconv.FormatFloat(f, 'f', -1, 64), nil
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 {
			return "", fmt.Errorf("%s: %q is not a non-negative number such as 1.50", key, value)
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case kindDuration:
		if d, err := parseDuration(value); err != nil || d <= 0 {
			return "", fmt.Errorf("%s: %q is not a duration such as 300s or 5m", key, value)
		}
	case kindBool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return "", fmt.Errorf("%s: %q is not true or false", key, value)
		}
		return strconv.FormatBool(b), nil
	}
	if key == "recall.gate" {
		level, ok := gateLevel(value)
		if !ok {
			return "", fmt.Errorf("%s: %q is not a gate level; %v", key, value, errGateLevel)
		}
		value = level
	}
	if strings.IndexFunc(value, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%s: the value may not hold control characters", key)
	}
	return strconv.Quote(value), nil
}

var tableLine = lazyre.New(`^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$`)

// setLine replaces the line of leaf in [table], or adds it at the end of
// that table, or adds the table at the end of the file.
func setLine(data []byte, table, leaf, literal string) []byte {
	line := leaf + " = " + literal
	keyLine := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(leaf) + `\s*=`)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	current, last := "", -1 // last: the last line of the table
	for i, l := range lines {
		if m := tableLine.Get().FindStringSubmatch(l); m != nil {
			current = m[1]
			if current == table {
				last = i
			}
			continue
		}
		if current != table {
			continue
		}
		if keyLine.MatchString(l) {
			lines[i] = line
			return []byte(strings.Join(lines, "\n") + "\n")
		}
		if strings.TrimSpace(l) != "" {
			last = i
		}
	}
	if last < 0 {
		var b bytes.Buffer
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		if len(lines) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", table, line)
		return b.Bytes()
	}
	lines = slices.Insert(lines, last+1, line)
	return []byte(strings.Join(lines, "\n") + "\n")
}

// unknownKeys lists the undecoded keys of config.toml, leaving out a table
// whose own keys are listed ("recal" when "recal.max" is).
func unknownKeys(undecoded []toml.Key) []string {
	var out []string
	for i, k := range undecoded {
		name := k.String()
		parent := slices.ContainsFunc(undecoded[i+1:], func(o toml.Key) bool {
			return strings.HasPrefix(o.String(), name+".")
		})
		if !parent {
			out = append(out, name)
		}
	}
	return out
}
