// Package optional reads objects that may not exist: Get reports a
// missing object as not found rather than as an error. The webhook's and
// the controller's reads share it.
package optional
