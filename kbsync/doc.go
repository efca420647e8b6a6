// Package kbsync is `reflect sync`: the learnings directory as a git
// repository, shared between machines and with a team through the system
// git, with the user's own credentials and SSH configuration.
//
// Init makes the directory a repository (or adopts the one it is), writes
// .gitignore (index/ is derived and never synced) and .gitattributes, and
// registers the learning merge driver. Sync, one at a time under
// .git/reflect-sync.lock, plans what may leave the machine (Plan: personal
// and private learnings, and any file holding a secret by the redactor's
// patterns, are held back, so a secret never becomes a git object),
// commits, fetches, inspects what the remote would bring before any of it
// reaches the work tree (links, submodules, oversized blobs and paths that
// are not learnings, sidecars or files sync owns are refused), merges and
// pushes, retrying a push the remote refused because it moved on.
// MergeFile is the merge driver git runs for learnings and sidecars
// (MergeFileIn with the environment passed in): field by field
// (store.Merge), both bodies kept when they conflict (needs_review), two
// learnings added under one id on two machines both kept. RecordPulled and RecentlyPulled remember the ids
// syncs brought in, for the drainer's fold of near-duplicates and doctor.
//
// Sync changes documents/ as git does, in the work tree: it does not go
// through package knowledge, and the command layer updates the index over
// what arrived (ARCHITECTURE §1). It prints nothing and reads no
// configuration; the caller passes Options. docs/sync.md is the user's
// guide.
package kbsync
