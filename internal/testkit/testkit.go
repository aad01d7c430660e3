// Package testkit is what the tests of every package share: the limits a
// test gives a provider when the test is not about a limit, the bound of a
// wait for an event, and the fixtures that were once copied from package to
// package (a config directory, the shared testdata). It is for tests only
// (imports_test.go keeps it out of production code), and it imports nothing
// of the module, so that a package's own internal
// tests may use it without an import cycle.
//
// It refuses to let a production default decide a test: a test that is not
// about the compile timeout, the init timeout or the call deadline runs
// under Patient, and a test that waits for an event waits up to Wait.
package testkit
