package udiff

import "testing"

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	a := []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n")
	b := []byte("1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n")
	want := `--- a
+++ b
@@ -1,7 +1,7 @@
 1
 2
 3
-4
+four
 5
 6
 7
@@ -13,3 +13,4 @@
 13
 14
 15
+sixteen
`
	if got := Unified("a", "b", a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Unified("/dev/null", "b", nil, []byte("x\n")); got != "--- /dev/null\n+++ b\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("from empty: %q", got)
	}
}
