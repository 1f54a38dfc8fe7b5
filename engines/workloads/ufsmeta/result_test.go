package ufsmeta

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

func TestMessageRoundTrips(t *testing.T) {
	u := engines.UFSUsage{Bytes: 154262709011, Files: 1152}
	msg := Message(u)
	if msg != `{"bytes":154262709011,"files":1152}` {
		t.Errorf("Message = %s", msg)
	}
	got, err := ParseMessage(msg + "\n")
	if err != nil || got != u {
		t.Errorf("ParseMessage(Message) = %+v, %v; want %+v", got, err, u)
	}
}

func TestParseMessageRefuses(t *testing.T) {
	for name, msg := range map[string]string{
		"empty (no result written)": "",
		"a log line":                "Error: counting /dataset: permission denied",
		"a count missing":           `{"bytes":1}`,
		"an unknown field":          `{"bytes":1,"files":2,"dirs":3}`,
		"a negative count":          `{"bytes":-1,"files":2}`,
		"not a number":              `{"bytes":"1","files":2}`,
		"a fraction":                `{"bytes":1.5,"files":2}`,
		"two objects":               `{"bytes":1,"files":2}{"bytes":1,"files":2}`,
		"too long":                  `{"bytes":1,"files":2}` + strings.Repeat(" ", maxMessage),
	} {
		t.Run(name, func(t *testing.T) {
			if u, err := ParseMessage(msg); err == nil || !strings.Contains(err.Error(), "metadata pod's result") {
				t.Errorf("ParseMessage(%.40q) = %+v, %v; want an error naming the result", msg, u, err)
			}
		})
	}
}
