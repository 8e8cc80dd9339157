package agent

import (
	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
)

// filesFuncs serves the jailed file manager. File operations can take a
// while (archives, trees), so every one runs on its own goroutine.
func filesFuncs(inst *instance) funcTable {
	t := funcTable{funcs: map[string]handler{}, blocking: func(wire.Request) bool { return true }}
	for _, name := range files.Funcs() {
		t.funcs[name] = inst.files.Handle
	}
	return t
}
