// Package hostile is the panel's hostile test suite: the whole panel
// (every feature, real PostgreSQL, embedded NATS, real HTTP) attacked the
// way issue 17's review attacked it — by an operator of another customer,
// by anonymous clients, by a script racing the login. It holds no
// production code; `make test` runs it with the rest of `go test ./...`.
//
// The harness (harness_test.go) starts one panel per test with two
// licenses, Demo ("demo") and Other ("other"), an admin, an operator
// granted only Other, and anonymous clients, and runs tables of probes:
// a request as someone, the status and words it must answer with, and the
// audit row it must (or must not) leave.
//
// To add a case: put it in a file named for what it attacks
// (denial_test.go, lockout_test.go, input_test.go, holding_test.go; a
// new point gets its own file, e.g. streams_test.go for streams that must
// end at logout), start a panel with start(t), and either run a table of
// probes with e.run(t, probes) or drive the clients directly (e.Admin,
// e.Op, e.Anon(t), e.P for the database and NATS). A case that needs a
// running agent starts one with paneltest.StartAgent(t, e.P.NATSURL,
// Demo or Other, ...); one that needs other panel options passes them to
// start (start(t, func(o *paneltest.Options) { ... })). Every case states
// the attack in its doc comment and, for a fixed hole, the issue point.
package hostile
