package agent

import (
	"github.com/corrosion/corrosion/agent/files"
)

// filesFuncs serves the jailed file manager. File operations can take a
// while (archives, trees), so every one runs on its own goroutine.
func filesFuncs(inst *instance) funcTable {
	t := funcTable{funcs: map[string]spec{}}
	for _, name := range files.Funcs() {
		t.funcs[name] = slow(inst.files.Handle)
	}
	return t
}
