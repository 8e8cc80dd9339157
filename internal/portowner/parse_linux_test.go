package portowner

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 100 0 0 10 0
`

func TestListeningInodesTakesListenersOfThePortOnly(t *testing.T) {
	got := map[string]bool{}
	listeningInodes(strings.NewReader(table), 0x1F90, got)
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"4242"}) {
		t.Fatalf("inodes of port 8080: %v, want [4242] (the established 4343 and port 8081's 4444 left out)", keys)
	}
}

// The table is the kernel's, but read as untrusted text: any input parses
// without a panic and yields only inodes that appear in it.
func FuzzListeningInodes(f *testing.F) {
	f.Add(table, 8080)
	f.Add("header\n0: :: 0A", 0)
	f.Add("h\n 0: 0100007F:FFFFFFFF 0 0A a b c d e 1", 1)
	f.Fuzz(func(t *testing.T, in string, port int) {
		got := map[string]bool{}
		listeningInodes(strings.NewReader(in), port, got)
		for k := range got {
			if !strings.Contains(in, k) {
				t.Fatalf("inode %q not in the input", k)
			}
		}
	})
}
