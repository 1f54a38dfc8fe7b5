// Package ownwrites remembers a reconciler's own writes of its objects, so
// that a reconcile can tell when its informer cache still shows a version
// one of those writes replaced (the cache lags behind the writes, and the
// writes' side effects wake the object again at once).
package ownwrites
