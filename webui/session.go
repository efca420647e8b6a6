package webui

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/reflectkb/reflect/internal/redact"
	textutil "github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/recall"
)

// sessionsListed is how many sessions the activity page and a learning's
// page list from the injection ledger; the rest are counted.
const sessionsListed = 20

// sessionRef is one session the injection ledger recorded.
type sessionRef struct {
	Session string
	Agent   string
	Last    time.Time
	// Injections is how many times the hooks injected, Learnings how many
	// distinct learnings they injected.
	Injections, Learnings int
}

// injectedItem is one learning of an injection and its relevance evidence.
type injectedItem struct {
	ID, Title string
	Evidence  float64
	// Gone says the learning is no longer there (forgotten since).
	Gone bool
}

// injectionView is one recorded injection as the session page shows it.
type injectionView struct {
	Time               time.Time
	Agent, Hook, Query string
	Items              []injectedItem
}

type sessionData struct {
	Session    string
	Agent      string
	Injections []injectionView
	Learnings  int
}

// ledgerCache keeps what recall.ReadLedger returned until the ledger's
// stamp changes: the ledger holds up to about 10,000 injections, and every
// learning page lists the sessions of its learning.
type ledgerCache struct {
	mu    sync.Mutex
	stamp string
	inj   []recall.Injection
}

// ledger returns every recorded injection, oldest first. Callers must not
// modify what it returns.
func (s *Server) ledger() ([]recall.Injection, error) {
	c := &s.ledgerCache
	c.mu.Lock()
	defer c.mu.Unlock()
	stamp := recall.LedgerStamp(s.cfg.StateDir)
	if c.inj != nil && stamp == c.stamp {
		return c.inj, nil
	}
	inj, err := recall.ReadLedger(s.cfg.StateDir, recall.LedgerFilter{})
	if err != nil {
		return nil, err
	}
	c.stamp, c.inj = stamp, inj
	return inj, nil
}

// ledgerWhere returns the recorded injections keep selects, oldest first.
func (s *Server) ledgerWhere(keep func(recall.Injection) bool) ([]recall.Injection, error) {
	all, err := s.ledger()
	if err != nil {
		return nil, err
	}
	var out []recall.Injection
	for _, in := range all {
		if keep(in) {
			out = append(out, in)
		}
	}
	return out, nil
}

// sessionPage shows what the hooks injected into one session and why:
// the ledger's injections (read through recall's reader) with each
// learning's evidence and the query it answered.
func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("id")
	inj, err := s.ledgerWhere(func(in recall.Injection) bool { return in.Session == sid })
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "read the injection ledger: "+err.Error())
		return
	}
	if len(inj) == 0 {
		s.fail(w, http.StatusNotFound, "no injection recorded for session "+strconv.Quote(textutil.ClipRunes(sid, 80))+
			" (the ledger keeps "+strconv.Itoa(recall.LedgerKeepDays)+" days; 'reflect log' lists the sessions it holds)")
		return
	}
	d := sessionData{Session: sid, Agent: inj[0].Agent}
	titles := map[string]*injectedItem{}
	for _, in := range inj {
		v := injectionView{Time: in.Time, Agent: in.Agent, Hook: in.Hook, Query: in.Query}
		for i, id := range in.IDs {
			it, ok := titles[id]
			if !ok {
				it = &injectedItem{ID: id}
				if l, err := s.st.Read(id); err == nil {
					it.Title = redact.String(l.Title)
				} else {
					it.Gone = true
				}
				titles[id] = it
			}
			item := *it
			if i < len(in.Evidence) {
				item.Evidence = in.Evidence[i]
			}
			v.Items = append(v.Items, item)
		}
		d.Injections = append(d.Injections, v)
	}
	d.Learnings = len(titles)
	s.renderPage(w, http.StatusOK, "session", page{Title: "Session " + textutil.ClipRunes(sid, 40), Nav: "activity", Data: d})
}

// sessions groups injections by session, the most recent first, and
// returns at most sessionsListed of them with how many more there are.
func sessions(inj []recall.Injection) ([]sessionRef, int) {
	byID := map[string]*sessionRef{}
	seen := map[string]map[string]bool{}
	for _, in := range inj {
		ref := byID[in.Session]
		if ref == nil {
			ref = &sessionRef{Session: in.Session, Agent: in.Agent}
			byID[in.Session], seen[in.Session] = ref, map[string]bool{}
		}
		ref.Injections++
		if in.Time.After(ref.Last) {
			ref.Last = in.Time
		}
		for _, id := range in.IDs {
			if !seen[in.Session][id] {
				seen[in.Session][id] = true
				ref.Learnings++
			}
		}
	}
	out := make([]sessionRef, 0, len(byID))
	for _, ref := range byID {
		out = append(out, *ref)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].Session < out[j].Session
	})
	if len(out) > sessionsListed {
		return out[:sessionsListed], len(out) - sessionsListed
	}
	return out, 0
}

// injectedIn lists the sessions the ledger recorded the learning id in.
// A ledger that cannot be read lists none: the page is about the learning.
func (s *Server) injectedIn(id string) ([]sessionRef, int) {
	mine, err := s.ledgerWhere(func(in recall.Injection) bool { return slices.Contains(in.IDs, id) })
	if err != nil {
		return nil, 0
	}
	return sessions(mine)
}
