// Package faults holds tests of `sluice controller` and `sluice webhook`
// behind a faulty API server connection: every request either makes (the
// caches' lists and watches, the controller's writes and Helm's, the
// webhook's live reads) may get 429 or 500, lose its connection before or
// after the API server acted, or, for watches, start slowly and be cut
// mid-stream (the reflector relists). The tests check that the controller
// converges anyway and touches nothing it should not, and that the webhook
// never lets a Pod labelled for injection be stored unmutated.
package faults
