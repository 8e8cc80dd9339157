// Package deptest holds the dependency tests: the import rules of
// docs/development.md on every package's direct imports, and, per GOOS
// (linux and windows), what each binary and a few pure packages link
// transitively — no `testing` or test helpers in any binary, no panel,
// web or world code in the agent, no database driver in the tick engine,
// no agent code in the installer. It has no non-test code.
package deptest
