package v1alpha1

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestConditionMessage(t *testing.T) {
	if got := ConditionMessage("short"); got != "short" {
		t.Errorf("short message changed: %q", got)
	}
	long := strings.Repeat("é", 40<<10) // 80 KiB of two-byte runes
	got := ConditionMessage(long)
	if len(got) > MaxConditionMessage || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("a 80 KiB message became %d bytes (valid UTF-8: %v, ends %q)", len(got), utf8.ValidString(got), got[len(got)-6:])
	}
}
