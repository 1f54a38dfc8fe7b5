// Command cert-manager-controller runs cert-manager's Certificate,
// CertificateRequest and Issuer controllers, from the packages of the
// github.com/cert-manager/cert-manager module, against an API server: what
// the chart's cert-manager mode needs of a real cert-manager in tests.
package main
