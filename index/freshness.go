package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflectkb/reflect/store"
)

// DefaultHalfLife is the age at which recency has taken half of what it can
// take from a learning's score (see recencyFactor).
const DefaultHalfLife = 180 * 24 * time.Hour

// recencyWeight is the most recency takes from a score: an old learning is
// still worth 80% of a new one with the same match. Learnings are meant to
// last; recency only breaks near-ties in favour of what was learned lately.
const recencyWeight = 0.2

// staleFactor demotes a learning whose cited files changed: it may
// describe code that is no longer there, yet it usually still names the
// right place to look, so it is pushed down, not dropped.
const staleFactor = 0.7

// freshnessHeadroom is how many results beyond the limit are checked for
// freshness, so that a stale learning demoted out of the top lets the
// next one in with its own freshness known.
const freshnessHeadroom = 5

// maxCiteBytes bounds the files hashed for freshness, as the drainer bounds
// the files it cites.
const maxCiteBytes = 4 << 20

// WithHalfLife sets the recency half-life; 0 keeps DefaultHalfLife, a
// negative value turns recency off.
func WithHalfLife(d time.Duration) OpenOption {
	return func(o *openOptions) { o.halfLife = d }
}

// recencyFactor is 1 for a learning updated today and falls towards
// 1-recencyWeight as it ages: 1 - w·(1 - 2^(-age/halfLife)), the age in
// whole days so that two searches a moment apart rank alike.
func recencyFactor(updated string, now time.Time, halfLife time.Duration) float64 {
	if halfLife < 0 {
		return 1
	}
	if halfLife == 0 {
		halfLife = DefaultHalfLife
	}
	t, err := time.Parse(time.RFC3339, updated)
	if err != nil {
		return 1
	}
	age := now.Sub(t).Truncate(24 * time.Hour)
	if age <= 0 {
		return 1
	}
	return 1 - recencyWeight*(1-math.Exp2(-float64(age)/float64(halfLife)))
}

// checkFreshness hashes the files each result cites and demotes the
// results whose files changed since the learning was written. A file that
// cannot be found is not evidence of anything (another checkout, another
// machine), so only a file that exists with other content counts.
// Relative paths are resolved under q.Root, and only for learnings of the
// current project or of none: another project's relative path means
// nothing here.
func checkFreshness(results []Result, q Query) {
	hashes := map[string]string{}
	for i := range results {
		r := &results[i]
		if r.cites == "" || r.cites == "[]" {
			continue
		}
		var cites []store.Cite
		if json.Unmarshal([]byte(r.cites), &cites) != nil {
			continue
		}
		for _, c := range cites {
			if c.SHA256 == "" || c.Path == "" {
				continue
			}
			path := c.Path
			if !filepath.IsAbs(path) {
				if q.Root == "" || (r.Project != "" && !strings.EqualFold(r.Project, q.Project)) {
					continue
				}
				path = filepath.Join(q.Root, path)
			}
			h, ok := hashes[path]
			if !ok {
				h = fileSHA256(path)
				hashes[path] = h
			}
			if h != "" && !strings.EqualFold(h, c.SHA256) {
				r.Stale = true
				r.StaleFiles = append(r.StaleFiles, c.Path)
			}
		}
		if r.Stale {
			r.Why.Freshness = staleFactor
			r.Score *= staleFactor
		}
	}
}

// fileSHA256 is the hex sha256 of a regular file of at most maxCiteBytes,
// or "" when there is no such file.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCiteBytes {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CiteStatus is one cited file of a learning and whether it changed.
type CiteStatus struct {
	store.Cite
	// State is "fresh" (same content), "changed" (other content: the
	// learning may be stale), or "unknown" (no hash recorded, the file is
	// not found, or a relative path of another project).
	State string `json:"state"`
}

// Cites checks each file learning l cites, as a search does for its
// results: relative paths are resolved under root, and only for learnings
// of project or of no project.
func Cites(l *store.Learning, root, project string) []CiteStatus {
	out := make([]CiteStatus, 0, len(l.Cites))
	for _, c := range l.Cites {
		s := CiteStatus{Cite: c, State: "unknown"}
		path := c.Path
		if !filepath.IsAbs(path) {
			if root == "" || (l.Project != "" && !strings.EqualFold(l.Project, project)) {
				path = ""
			} else {
				path = filepath.Join(root, path)
			}
		}
		if path != "" && c.SHA256 != "" {
			switch h := fileSHA256(path); {
			case h == "":
			case strings.EqualFold(h, c.SHA256):
				s.State = "fresh"
			default:
				s.State = "changed"
			}
		}
		out = append(out, s)
	}
	return out
}
