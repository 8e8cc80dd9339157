// Command natsidle is a bare NATS client that connects and idles: the
// baseline for the agent's idle-memory benchmark. Used only by benchmarks.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats.go"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: natsidle NATS_URL")
		os.Exit(2)
	}
	nc, err := nats.Connect(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer nc.Close()
	if _, err := nc.Subscribe("natsidle.ping", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
