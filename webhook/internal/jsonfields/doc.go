// Package jsonfields is the one model, on the admission fast path, of how
// encoding/json encodes a struct: which fields it writes, under which
// names, and when it leaves one out. regovalue and podpatch both walk Go
// values with it instead of marshalling them.
package jsonfields
