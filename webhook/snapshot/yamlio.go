package snapshot

import (
	"bufio"
	"bytes"
	"io"
)

func newBufReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

func isBlank(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return false
		}
	}
	return true
}
