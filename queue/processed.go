package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Processed is one line of processed.jsonl: a transcript that was reflected
// (or deliberately given up on) at a given size and content hash. Enqueue
// skips a transcript the ledger covers, so the same content is never
// reflected twice while new turns of the same session still are.
type Processed struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // lowercase hex, as HashFile returns it
	// Outcome is what the drainer did with it, e.g. "reflected", "empty" or
	// "poisoned"; any outcome covers the content.
	Outcome string    `json:"outcome"`
	At      time.Time `json:"at"`
}

// MarkProcessed appends p to the ledger under the exclusive queue lock. At
// defaults to now. Path and SHA256 are required: an entry without a hash
// could never cover anything.
func (q *Queue) MarkProcessed(p Processed) error {
	line, err := q.ledgerLine(p)
	if err != nil {
		return fmt.Errorf("mark processed: %w", err)
	}
	unlock, err := q.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	return appendLine(q.processedPath, line)
}

// ledgerLine validates p, fills its defaults and encodes it as a ledger line.
func (q *Queue) ledgerLine(p Processed) ([]byte, error) {
	if p.Path == "" || p.SHA256 == "" {
		return nil, errors.New("path and sha256 are required")
	}
	if len(p.Path) > maxPath {
		return nil, fmt.Errorf("path longer than %d bytes", maxPath)
	}
	if p.At.IsZero() {
		p.At = q.now()
	}
	p.At = p.At.UTC()
	p.SHA256 = strings.ToLower(p.SHA256)
	return marshalLine(p)
}

// Reflected reports whether the ledger holds an entry for path at size whose
// hash equals hash(), for the drainer. hash is called at most once, and
// only when an entry of that path and size exists, so callers can pass an
// expensive HashFile. A poisoned outcome does not count, because an entry
// re-armed with `reflect queue retry` must run again (Enqueue still counts
// it, so hooks do not queue content that failed).
//
// It reads the ledger without the lock: the ledger only grows by whole-line
// appends, and a line caught half-written fails to parse and is ignored.
func (q *Queue) Reflected(path string, size int64, hash func() (string, error)) (bool, error) {
	ledger, err := readFile(q.processedPath)
	if err != nil {
		return false, err
	}
	return covers(ledger, path, size, hash, false)
}

func covers(ledger []byte, path string, size int64, hash func() (string, error), poisoned bool) (bool, error) {
	if len(ledger) == 0 {
		return false, nil
	}
	var sums []string
	scanLines(ledger, valueNeedle(path), func(start, end int) bool {
		var p Processed
		if json.Unmarshal(ledger[start:end], &p) == nil && p.Path == path && p.Size == size && p.SHA256 != "" &&
			(poisoned || p.Outcome != OutcomePoisoned) {
			sums = append(sums, p.SHA256)
		}
		return false // collect every entry of this size
	})
	if len(sums) == 0 {
		return false, nil
	}
	sum, err := hash()
	if err != nil {
		return false, fmt.Errorf("hash %s: %w", path, err)
	}
	for _, s := range sums {
		if strings.EqualFold(s, sum) {
			return true, nil
		}
	}
	return false, nil
}

// HashFile returns the size and lowercase hex SHA-256 of the file at path,
// both taken from the same read so that they describe the same content even
// while the file grows. The drainer records them when it acks an entry.
func HashFile(path string) (size int64, sum string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("hash %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
