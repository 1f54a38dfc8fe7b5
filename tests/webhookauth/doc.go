// Package webhookauth runs `sluice webhook --client-ca-file` against
// a real kube-apiserver that presents a client certificate to admission
// webhooks (its --admission-control-config-file): the API server's
// reviews are answered as always, any other caller fails the TLS handshake
// (reliability audit M5). The webhook runs with the client authentication
// the chart (charts/sluice, webhook.clientAuth) renders for it.
package webhookauth
