package kbsync

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// pulledFile ($REFLECT_STATE_DIR/sync-pulled.json) lists the ids of the
// learnings recent syncs brought in, newest last, so `reflect doctor` can
// look for near-duplicates among them without searching for every
// learning of the knowledge base.
const pulledFile = "sync-pulled.json"

// maxPulled bounds the list: doctor runs one search per id.
const maxPulled = 500

// PulledIDs returns the ids of learnings among paths (relative to the
// learnings directory, as Result.Pulled has them).
func PulledIDs(paths []string) []string {
	var ids []string
	for _, p := range paths {
		dir, name := path.Split(p)
		if dir == "documents/" && strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, sidecarExt) {
			ids = append(ids, strings.TrimSuffix(name, ".md"))
		}
	}
	return ids
}

// RecordPulled adds ids to the recently pulled list, keeping the newest
// maxPulled. Only a sync writes it (one at a time, under the sync lock);
// the atomic replace lets doctor read it at any moment.
func RecordPulled(stateDir string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := fsutil.EnsurePrivateDir(stateDir); err != nil {
		return err
	}
	seen := map[string]bool{}
	var all []string
	for _, id := range append(RecentlyPulled(stateDir), ids...) {
		if !seen[id] {
			seen[id] = true
			all = append(all, id)
		}
	}
	if len(all) > maxPulled {
		all = all[len(all)-maxPulled:]
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(stateDir, pulledFile), data, fsutil.FilePerm)
}

// RecentlyPulled returns the recorded ids, oldest first; none when there
// is no record or it cannot be read.
func RecentlyPulled(stateDir string) []string {
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, pulledFile), 1<<20)
	if err != nil {
		return nil
	}
	var ids []string
	_ = json.Unmarshal(data, &ids)
	return ids
}
