// Package deptest holds the dependency test: it keeps `testing` and the
// test helpers out of production binaries and enforces the import rules of
// docs/development.md. It has no non-test code.
package deptest
