// Command cert-manager-cainjector runs cert-manager's CA injector, from the
// package pkg/controller/cainjector of the github.com/cert-manager/cert-manager
// module: it copies the CA of the Certificate or Secret an object's
// cert-manager.io/inject-ca-from (or inject-ca-from-secret) annotation names
// into the caBundle of webhook configurations, APIServices and CRD
// conversion webhooks.
package main
