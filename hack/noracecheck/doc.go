// Command noracecheck checks the packages make test runs without the race
// detector (TEST_NORACE): none of their files, code or tests, may start a
// goroutine (a go statement, a Go method such as sync.WaitGroup.Go or
// errgroup.Group.Go) or run a test in parallel (Parallel). The detector
// reports only accesses from two goroutines at once, so in such a package
// it could find a race only inside the code it calls, whose concurrency
// the packages that run it concurrently are raced for; under the detector
// these packages took three to ten times the CPU.
//
// Usage: noracecheck PACKAGE...
package main
