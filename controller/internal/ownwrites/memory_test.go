package ownwrites

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestMemory: versions the writes replaced are behind, with the last
// write's value; the next version read (the cache caught up, or someone
// else wrote) drops the memory; at most remembered versions are kept.
func TestMemory(t *testing.T) {
	key := types.NamespacedName{Namespace: "n", Name: "o"}
	var w Memory[string]
	w.Wrote(key, "1", "after 1")
	w.Wrote(key, "2", "after 2")
	for _, v := range []string{"1", "2"} {
		if last, ok := w.Behind(key, v); !ok || last != "after 2" {
			t.Errorf("version %s: behind %v with %q, want the last write's", v, ok, last)
		}
	}
	if _, ok := w.Behind(key, "3"); ok {
		t.Error("version 3, which no write replaced, is behind")
	}
	if _, ok := w.Behind(key, "1"); ok {
		t.Error("after the cache caught up the memory is still there")
	}
	for i := range remembered + 2 {
		w.Wrote(key, string(rune('a'+i)), "x")
	}
	if _, ok := w.Behind(key, "a"); ok {
		t.Errorf("more than %d versions remembered", remembered)
	}
	w.Wrote(key, "z", "x")
	w.Forget(key)
	if _, ok := w.Behind(key, "z"); ok {
		t.Error("a forgotten object is behind")
	}
}
