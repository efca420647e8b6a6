package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
)

// MaxSourceSize bounds a source file: instruction files are kilobytes,
// and one of megabytes is a mistake (a log, a generated dump) that would
// flood the knowledge base.
const MaxSourceSize = 4 << 20

// Read is what reading one source gave.
type Read struct {
	File File
	// SHA256 is the hash of the file's bytes as read.
	SHA256 string
	Rules  []Rule
}

// ReadFile reads and splits one source: a regular file of at most
// MaxSourceSize bytes, redacted before it is parsed, so no secret it holds
// reaches a learning. The error names the file and says why it was
// skipped (missing, not a regular file, too large, malformed front matter).
func ReadFile(f File) (Read, error) {
	data, err := fsutil.ReadRegular(f.Path, MaxSourceSize)
	if err != nil {
		return Read{}, describe(f, err)
	}
	sum := sha256.Sum256(data)
	r := Read{File: f, SHA256: hex.EncodeToString(sum[:])}
	r.Rules, err = Parse(f.Kind, f.Path, withoutManaged(redact.String(string(data))))
	if err != nil {
		return r, fmt.Errorf("%s: %w; skipped", f.Name, err)
	}
	return r, nil
}

func describe(f File, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file; skipped", f.Name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied; skipped", f.Name)
	case errors.Is(err, fsutil.ErrNotRegular):
		return fmt.Errorf("%s: not a regular file; skipped", f.Name)
	case errors.Is(err, fsutil.ErrTooLarge):
		return fmt.Errorf("%s: larger than %d bytes; skipped", f.Name, MaxSourceSize)
	}
	return fmt.Errorf("%s: %w; skipped", f.Name, err)
}

// Parse splits a source's text (already redacted) into rules by its kind.
func Parse(k Kind, path, src string) ([]Rule, error) {
	src = strings.TrimPrefix(src, "\ufeff")
	switch k {
	case Cursor:
		return parseCursor(path, src)
	case ClaudeMemory:
		return parseClaudeMemory(src)
	case CodexMemories:
		return parseCodexMemory(src), nil
	}
	body, offset, _, err := splitFront(src)
	if err != nil {
		// Only Cursor rules must have a front matter; in another file a
		// broken one is text like the rest.
		body, offset = src, 0
	}
	return SplitMarkdown(body, offset), nil
}

// withoutManaged blanks the section `reflect promote` wrote (its lines are
// learnings already), keeping the line numbers of the rest.
func withoutManaged(src string) string {
	lines, begin, end, err := managed(src)
	if err != nil || begin < 0 {
		return src
	}
	for i := begin; i <= end; i++ {
		lines[i] = ""
	}
	return strings.Join(lines, "\n")
}
