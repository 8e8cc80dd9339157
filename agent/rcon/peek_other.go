//go:build !unix

package rcon

import "net"

// canPeek: this platform cannot tell a closed idle connection before use,
// so a Source RCON command that got nothing back on a pooled connection is
// resent once instead (see sourceClient.exec).
const canPeek = false

func peekConn(net.Conn) peekState { return peekOpen }
