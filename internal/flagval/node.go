package flagval

import "strconv"

// NodeVars are the seed's node settings, which ether and its world both
// take and must read alike: the world node id (RS_NODE_ID, --node-id,
// 1-255) and the port of the link between them on 127.0.0.1
// (RS_ETHER_PORT, --ether-port; 0: 5000 + node id).
func NodeVars(node *uint8, etherPort *int) []Var {
	return []Var{
		{Flag: "node-id", Env: "RS_NODE_ID", Usage: "world node id, 1-255 (world number = node id - 9)", Set: NodeID(node), Get: func() string { return strconv.Itoa(int(*node)) }},
		{Flag: "ether-port", Env: "RS_ETHER_PORT", Usage: "port of the world ⇄ ether link on 127.0.0.1 (0: 5000 + node id)", Set: Port(etherPort), Get: func() string { return strconv.Itoa(*etherPort) }},
	}
}
