// Package controller holds tests of `sluice controller` against a real
// kube-apiserver: the manager runs in-process and the tests create objects
// the way users and other components do.
package controller
