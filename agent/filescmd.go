package agent

import (
	"github.com/corrosion/corrosion/agent/files"
)

// filesFuncs serves the jailed file manager, with the instance's
// [instance.files] options applied. File operations can take a while
// (archives, trees), so every one runs on its own goroutine. Each request
// is recorded in the request metrics.
func filesFuncs(inst *instance) funcTable {
	fm := inst.files
	if inst.conf().Files.AllowHardlinks {
		fm = fm.WithHardlinks()
	}
	t := funcTable{funcs: map[string]spec{}}
	for _, name := range files.Funcs() {
		t.funcs[name] = slow(inst.metrics.timed(kindFiles, inst.conf().ID, name, fm.Handle))
	}
	return t
}
