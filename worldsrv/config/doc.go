// Package config is worldsrv's one configuration: the flags of DESIGN.md
// section 6 with the seed's RS_* environment variables, defaults resolved
// in one place (Resolved), a Validate that names the bad flag and changes
// nothing, and a printed form with every secret redacted.
package config
