// Package certmanager runs cert-manager's own controller and cainjector
// (bin/cert-manager-controller and bin/cert-manager-cainjector, built by
// `make certmanager-binaries` from tests/tools/certmanager) against a test
// API server, with cert-manager's CRDs installed, for tests of the webhook's
// cert-manager mode.
package certmanager
