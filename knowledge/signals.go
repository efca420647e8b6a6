package knowledge

import (
	"context"
	"errors"
	"fmt"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/store"
)

// Kinds of Signal.
const (
	SignalConfirmed = "confirmed"
	SignalRefuted   = "refuted"
	SignalStale     = "stale"
)

// Signal is evidence from the loop about one learning, found by the
// drainer in a session (docs/ranking.md): it was injected and its command
// then succeeded (confirmed) or failed again the same way (refuted), or
// the code no longer bears it out (stale, with Reason).
type Signal struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// maxStaleReason bounds the reason a stale learning carries in its
// frontmatter.
const maxStaleReason = 200

// RecordSignal adds s to its learning's feedback. Like a mark it leaves
// the updated time alone. It reports whether the document changed: a
// learning already stale is not re-marked, and one that no longer exists
// is not an error (it was forgotten since the session).
func (k *Base) RecordSignal(ctx context.Context, s Signal) (changed bool, err error) {
	ch := k.ix.BeginChange(s.ID)
	defer ch.Close()
	l, err := k.st.Read(s.ID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if l.Feedback == nil {
		l.Feedback = &store.Feedback{}
	}
	switch s.Kind {
	case SignalConfirmed:
		l.Feedback.Confirmed++
	case SignalRefuted:
		l.Feedback.Refuted++
	case SignalStale:
		if l.Feedback.Stale != "" || s.Reason == "" {
			return false, nil
		}
		r := []rune(redact.String(s.Reason))
		if len(r) > maxStaleReason {
			r = append(r[:maxStaleReason-1], '…')
		}
		l.Feedback.Stale = string(r)
	default:
		return false, fmt.Errorf("signal %q: not one of confirmed, refuted, stale", s.Kind)
	}
	if err := k.st.Write(l); err != nil {
		return false, err
	}
	return true, ch.Commit(ctx, s.ID)
}
