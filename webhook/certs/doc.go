// Package certs provides the webhook server's serving certificate in one of
// three modes (Mode): self-managed, where the webhook keeps its own CA and
// certificate in a Secret with github.com/open-policy-agent/cert-controller
// and injects the CA into both webhook configurations; cert-manager, where
// cert-manager issues it and the webhook reports the Certificate's
// readiness; and files, where someone else writes the certificate
// directory. In every mode the server presents what is in the certificate
// directory, reloaded when it changes, and the webhook is not ready until a
// certificate is loaded (and, self-managed or cert-manager, trusted by the
// caBundles of both configurations, read live).
//
// Self-managed rotation has two parts. cert-controller creates the CA and
// renews the serving certificate under the same CA, which a reloading
// server survives without failing a handshake. A new CA cannot be switched
// to at once, because the API server and the replicas would never see the
// switch at the same moment; the rollover in this package makes the
// change in steps the way CA bundles are usually rotated: trust the new CA
// next to the old one, then sign with it, then drop the old one when it
// expires (docs/design/webhook-certificates.md).
package certs
