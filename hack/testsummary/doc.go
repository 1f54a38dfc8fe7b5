// Command testsummary reads `go test -json` on its standard input, writes
// the test output as `go test` prints it without -json, and at the end
// names the slowest tests with their times (make test's last lines), so
// that where a run's time goes is in every log.
package main
