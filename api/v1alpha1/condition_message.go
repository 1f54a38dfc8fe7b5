package v1alpha1

import "unicode/utf8"

// MaxConditionMessage is the longest condition message Sluice writes. The
// API server refuses a status whose condition message exceeds 32768
// characters, and an error's text (a Helm failure, say) can be longer: the
// whole status write would then fail and no condition would say why.
const MaxConditionMessage = 4096

// ConditionMessage is msg cut to MaxConditionMessage bytes (on a rune
// boundary), marked with "…" where it was cut.
func ConditionMessage(msg string) string {
	if len(msg) <= MaxConditionMessage {
		return msg
	}
	cut := MaxConditionMessage - len("…")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}
