package webhook

import (
	"fmt"
	"net/http"
)

// limitBody rejects requests whose body is larger than max with 413 and a
// message naming the limit, before the admission handler reads them.
func limitBody(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, fmt.Sprintf("admission request body of %d bytes is larger than the webhook's limit of %d bytes (--max-request-bytes)", r.ContentLength, max), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}
