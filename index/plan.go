package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/reflectkb/reflect/store"
)

// stepKind is what an update does with one document file.
type stepKind int

const (
	// stepUnchanged: same size and mtime as indexed; costs a stat.
	stepUnchanged stepKind = iota
	// stepStillMalformed: same size and mtime as when it was found
	// malformed; reported again, never read, and any stale indexed copy
	// is removed.
	stepStillMalformed
	// stepExamine: new or changed by its stat; its content decides
	// (judgeContent), so planUpdate never returns it as a final step.
	stepExamine
	// stepGone: deleted between the listing and the read.
	stepGone
	// stepMalformed: not a valid learning (unreadable, too large, not a
	// regular file, or failing to parse); recorded in problems.
	stepMalformed
	// stepTouch: same content under a new mtime; only the mtime is
	// recorded.
	stepTouch
	// stepParse: content differs from the indexed copy (or there is none);
	// a parse error makes it stepMalformed, success stepUpdate or stepAdd.
	stepParse
	// stepUpdate: changed content of an indexed learning.
	stepUpdate
	// stepAdd: a learning the index has not seen.
	stepAdd
)

// fileStep is one file of an update's plan, with what the index recorded
// about it.
type fileStep struct {
	file    store.FileInfo
	kind    stepKind
	indexed bool    // the index holds a row for this learning
	row     known   // that row, when indexed
	wasBad  bool    // the problems table holds this path
	prior   problem // that problem, when wasBad
	// unstated: file has its path and id but no stat yet (planFresh);
	// prepareStep takes it and classifies the step then.
	unstated bool
}

// updatePlan is what an update does, decided from the listing and what
// the index recorded, before any document is read.
type updatePlan struct {
	files []fileStep // in listing order
	gone  []known    // indexed rows whose file is no longer listed, by row
	// ids replaces files in Update: the documents listed, sorted, whose
	// steps step makes one at a time, with rows[i] what the index holds
	// for ids[i] (matchRows; nil for an index with no rows). An id and its
	// row cost about 130 bytes where a stat'ed step with its map entry
	// cost about 500, most of a reindex's memory at 1,000,000 learnings
	// (docs/benchmarks.md).
	ids   []string
	rows  []planRow
	bad   map[string]problem // for ids' steps
	store *store.Store       // for ids' paths
}

// planRow is what a plan keeps of an indexed row: no id (its position
// names it), the content hash as bytes.
type planRow struct {
	n, size, mtime int64
	hash           [sha256.Size]byte
	indexed        bool
	hashOK         bool // hash held a hex SHA-256 (else it matches nothing)
}

// len is the number of steps.
func (p updatePlan) len() int {
	if p.ids != nil {
		return len(p.ids)
	}
	return len(p.files)
}

// step is step i. One made from ids is unstated: prepareStep stats its
// file and classifies it as planUpdate would (byStat).
func (p updatePlan) step(i int) fileStep {
	if p.ids == nil {
		return p.files[i]
	}
	path := p.store.Path(p.ids[i])
	prior, wasBad := p.bad[path]
	s := fileStep{file: store.FileInfo{ID: p.ids[i], Path: path}, kind: stepExamine, wasBad: wasBad, prior: prior, unstated: true}
	if p.rows != nil && p.rows[i].indexed {
		r := p.rows[i]
		s.indexed = true
		s.row = known{n: r.n, size: r.size, mtime: r.mtime}
		if r.hashOK {
			s.row.hash = hex.EncodeToString(r.hash[:])
		}
	}
	return s
}

// done lets step i's strings go once it is written.
func (p updatePlan) done(i int) {
	if p.ids != nil {
		p.ids[i] = ""
	} else {
		p.files[i] = fileStep{}
	}
}

// planListed is the plan of an update over the sorted ids listed in
// documents/: for an index with no rows, every file is to examine (or
// still malformed, as its stat will show); otherwise matchRows adds the
// rows.
func planListed(ids []string, bad map[string]problem, st *store.Store) updatePlan {
	if ids == nil {
		ids = []string{}
	}
	return updatePlan{ids: ids, bad: bad, store: st}
}

// matchRows reads the docs rows in id order beside the sorted ids: each
// listed id gets its row, and a row whose id is not listed is gone. The
// rows are read once and never held by id.
func (p *updatePlan) matchRows(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT n, id, size, mtime, hash FROM docs ORDER BY id`)
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	defer rows.Close()
	p.rows = make([]planRow, len(p.ids))
	i := 0
	var id, hash sql.RawBytes // no string per row
	for rows.Next() {
		var r planRow
		if err := rows.Scan(&r.n, &id, &r.size, &r.mtime, &hash); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		for i < len(p.ids) && p.ids[i] < string(id) {
			i++
		}
		if i == len(p.ids) || p.ids[i] != string(id) {
			p.gone = append(p.gone, known{n: r.n})
			continue
		}
		r.indexed = true
		if len(hash) == 2*sha256.Size {
			_, err := hex.Decode(r.hash[:], hash)
			r.hashOK = err == nil
		}
		p.rows[i] = r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	sort.Slice(p.gone, func(i, j int) bool { return p.gone[i].n < p.gone[j].n })
	return nil
}

// planUpdate classifies each listed file by its stat against the index's
// rows (have) and recorded problems (bad): unchanged, still malformed, or
// to examine; and finds the rows whose file is gone. It is pure: no
// reads, no writes.
func planUpdate(files []store.FileInfo, have map[string]known, bad map[string]problem) updatePlan {
	p := updatePlan{files: make([]fileStep, 0, len(files))}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		k, indexed := have[f.ID]
		listed[f.ID] = true
		prior, wasBad := bad[f.Path]
		s := fileStep{file: f, kind: stepExamine, indexed: indexed, row: k, wasBad: wasBad, prior: prior}
		s.kind = s.byStat()
		p.files = append(p.files, s)
	}
	for id, k := range have {
		if !listed[id] {
			p.gone = append(p.gone, k)
		}
	}
	sort.Slice(p.gone, func(i, j int) bool { return p.gone[i].n < p.gone[j].n })
	return p
}

// byStat is the step a file's stat decides: unchanged (the same size and
// mtime as its row), still malformed (as its recorded problem), or to
// examine.
func (s fileStep) byStat() stepKind {
	f := s.file
	mtime := f.ModTime.UnixNano()
	switch {
	case s.indexed && s.row.size == f.Size && s.row.mtime == mtime:
		return stepUnchanged
	case s.wasBad && s.prior.size == f.Size && s.prior.mtime == mtime:
		return stepStillMalformed
	}
	return stepExamine
}

// judgeContent decides what to do with a file that was examined, from the
// outcome of readDocument: gone (readErr wraps os.ErrNotExist), malformed
// (a problem), unchanged content (same hash as the indexed row), or to
// parse. It is pure; any other read error is the caller's to return.
func judgeContent(s fileStep, readErr error, problem, hash string) stepKind {
	switch {
	case errors.Is(readErr, os.ErrNotExist):
		return stepGone
	case problem != "":
		return stepMalformed
	case s.indexed && s.row.hash == hash:
		return stepTouch
	}
	return stepParse
}

// judgeParsed is the step of a file whose content was parsed: malformed
// when parsing failed, otherwise an update of its indexed row or an add.
func judgeParsed(s fileStep, parseErr error) stepKind {
	switch {
	case parseErr != nil:
		return stepMalformed
	case s.indexed:
		return stepUpdate
	}
	return stepAdd
}
