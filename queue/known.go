package queue

// Known is what the queue and the ledger held when they were read, for a
// caller that checks many transcripts at once (`reflect backfill`'s plan):
// one read of each file, instead of the two that every Enqueue makes.
// Enqueue checks again under the lock, so a Known that went stale
// meanwhile costs a plan line, never a duplicate record.
type Known struct {
	pending []byte
	ledger  []byte
}

// Known reads the queue and the processed ledger (not the spill
// directory: Enqueue folds it in) without the lock, as Enqueue's own
// first read does.
func (q *Queue) Known() (*Known, error) {
	pend, err := readSnapshot(q.pendingPath)
	if err != nil {
		return nil, err
	}
	ledger, err := readSnapshot(q.processedPath)
	if err != nil {
		return nil, err
	}
	return &Known{pending: pend.data, ledger: ledger.data}, nil
}

// Pending reports whether a record for sessionID (when not empty) or for
// transcriptPath is waiting in the queue.
func (k *Known) Pending(sessionID, transcriptPath string) bool {
	return isPending(k.pending, sessionID, transcriptPath)
}

// Covered reports whether the ledger holds an entry for path at size
// whose hash equals hash(), poisoned ones included, as Enqueue decides.
// hash is called at most once, and only when an entry of that size exists.
func (k *Known) Covered(path string, size int64, hash func() (string, error)) (bool, error) {
	return covers(k.ledger, path, size, hash, true)
}
