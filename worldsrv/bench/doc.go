// Package bench holds the world's end-to-end benchmarks (make bench): the
// real worldsrv binary with its ether sidecar, NATS and PostgreSQL, loaded
// by 2,000 bots over TCP (worldsrv/bot/swarm). See bench_test.go; the
// package itself has no code.
package bench
