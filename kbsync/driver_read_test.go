package kbsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// The merge driver reads its three files with the store's bounded reader:
// a link (to a learning-shaped private key, say) or an oversize file is
// refused, and what the driver writes to ours holds nothing of it.
func TestMergeFileRefusesLinksAndOversizeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := func(id, body string) string {
		return "---\nid: " + id + "\ntitle: Deploy notes\ntype: learning\nconfidence: high\nkey_insight: read this\ncreated: 2026-11-22T11:05:00Z\n---\n" + body
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const id = "lrn-deploy-notes-a1a1a1"
	base := write("base", "")
	key := write("id_rsa", doc(id, "SECRETKEYMATERIAL\n"))
	link := filepath.Join(dir, "theirs-link")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	big := write("theirs-big", doc(id, strings.Repeat("x", store.MaxDocumentSize)))
	for name, theirs := range map[string]string{"link": link, "oversize": big} {
		ours := write("ours-"+name, doc(id, "ours\n"))
		if _, err := MergeFile(context.Background(), base, ours, theirs, "documents/"+id+".md"); err == nil {
			t.Errorf("%s: merged; want a refusal", name)
		}
		if data, _ := os.ReadFile(ours); string(data) != doc(id, "ours\n") {
			t.Errorf("%s: ours became %.200q", name, data)
		}
	}
}
