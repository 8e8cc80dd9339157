package ether

// Crash drops the node's NATS connection without a goodbye, as if the
// process had died; the test then cancels Run to release the rest.
func (n *Node) Crash() {
	n.crashed.Store(true)
	n.member.Close()
}
