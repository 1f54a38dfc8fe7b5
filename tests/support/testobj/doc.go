// Package testobj builds Sluice objects for tests with functional options,
// e.g. testobj.Dataset("demo", "ns", testobj.WithMount("s3://bucket/path")).
package testobj
