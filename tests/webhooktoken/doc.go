// Package webhooktoken runs `sluice webhook` against a real kube-apiserver
// whose ServiceAccount admission plugin is on, as in every cluster (envtest
// turns it off): the plugin gives each Pod its account's token volume,
// named kube-api-access-<random>, before the webhook sees it. The replicas
// of a Deployment are then decided from the decision memo all the same:
// the policy input leaves that volume out (webhook/mutating/apiaccess.go).
package webhooktoken
