package queue

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Trigger says which hook (or command) queued a transcript.
type Trigger string

// The triggers of ARCHITECTURE §3. Anything else is rejected by Enqueue, so a typo
// in a hook shows up in the hook log instead of in the queue.
const (
	TriggerPreCompactAuto   Trigger = "precompact-auto"
	TriggerPreCompactManual Trigger = "precompact-manual"
	TriggerStop             Trigger = "stop"
	TriggerSessionEnd       Trigger = "session-end"
	TriggerManual           Trigger = "manual"
	// TriggerBackfill is a past session `reflect backfill` queued.
	TriggerBackfill Trigger = "backfill"
)

// Harness names the agent that wrote the transcript; the drainer picks the
// transcript parser by it.
type Harness string

// The supported harnesses.
const (
	HarnessClaude   Harness = "claude"
	HarnessCodex    Harness = "codex"
	HarnessGemini   Harness = "gemini"
	HarnessOpenCode Harness = "opencode"
	HarnessCopilot  Harness = "copilot"
)

// Harnesses are the harnesses the queue accepts, in the order status and
// doctor show the agents; agents/registry_test.go holds it to
// agents.Registry.
var Harnesses = []Harness{HarnessClaude, HarnessCodex, HarnessGemini, HarnessOpenCode, HarnessCopilot}

// Record is one line of pending_reflections.jsonl (ARCHITECTURE §3, "Queue record").
type Record struct {
	// ID is assigned by Enqueue: "q-" + UTC time + random hex, so ids sort
	// roughly by age and never collide between concurrent hooks.
	ID             string  `json:"id"`
	TranscriptPath string  `json:"transcript_path"`
	SessionID      string  `json:"session_id"`
	Trigger        Trigger `json:"trigger"`
	Harness        Harness `json:"harness"`
	Cwd            string  `json:"cwd"`
	// QueuedAt is RFC 3339 in UTC, at second precision like the design's
	// example; file order, not this field, is the queue order.
	QueuedAt time.Time `json:"queued_at"`
	// Attempts and NotBefore belong to the drainer's retry/backoff: a new
	// record has 0 attempts and a null NotBefore.
	Attempts  int        `json:"attempts"`
	NotBefore *time.Time `json:"not_before"`
}

// Payload strings are bounded so that one hostile or broken payload cannot
// turn a queue line into megabytes that every later Enqueue must scan.
const (
	maxSessionID = 256
	maxPath      = 4096
)

func (r *Record) validate() error {
	switch r.Trigger {
	case TriggerPreCompactAuto, TriggerPreCompactManual, TriggerStop, TriggerSessionEnd, TriggerManual, TriggerBackfill:
	default:
		return fmt.Errorf("queue record: unknown trigger %q", r.Trigger)
	}
	if !slices.Contains(Harnesses, r.Harness) {
		return fmt.Errorf("queue record: unknown harness %q", r.Harness)
	}
	if len(r.SessionID) > maxSessionID {
		return fmt.Errorf("queue record: session id is %d bytes (max %d)", len(r.SessionID), maxSessionID)
	}
	if len(r.TranscriptPath) > maxPath || len(r.Cwd) > maxPath {
		return fmt.Errorf("queue record: path longer than %d bytes", maxPath)
	}
	return nil
}

// newID returns "q-20261122T104200-1a2b3c4d5e6f". 48 random bits make a
// collision between hooks that enqueue in the same second negligible.
func newID(now time.Time) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("queue id: %w", err)
	}
	return "q-" + now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), nil
}

// marshalLine encodes v as one JSON line without HTML escaping: paths with
// '&' stay readable, and Enqueue's substring search for an encoded session id
// or path relies on one canonical encoding for everything this package writes.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode appends the '\n'
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonString is the encoded form of s as marshalLine writes it, quotes included.
func jsonString(s string) []byte {
	b, err := marshalLine(s)
	if err != nil { // cannot happen for a string
		panic(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// valueNeedle is what every line holding the JSON string value s contains:
// the end of its encoded form, closing quote included. Lines that contain it
// are decoded to confirm, so it only has to be selective and fast to find.
//
// The opening quote is left out on purpose: JSON has a '"' every few bytes,
// which pushes bytes.Index off its IndexByte fast path onto a brute-force
// scan, which would be most of what an enqueue costs. The
// closing quote keeps keys from matching ("session" vs "session_id"), and 32
// bytes stay within bytes.Index's SIMD needle size while still singling out
// a path by its file name.
func valueNeedle(s string) []byte {
	b := jsonString(s)
	b = b[1:]
	if len(b) > 32 {
		b = b[len(b)-32:]
	}
	return b
}
