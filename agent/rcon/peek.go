package rcon

// peekState is what peekConn saw on an idle connection.
type peekState int

const (
	peekOpen   peekState = iota // nothing pending (or the platform cannot tell)
	peekData                    // bytes are waiting to be read
	peekClosed                  // the peer closed or reset the connection
)
