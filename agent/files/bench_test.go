package files

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// BenchmarkList10k lists a 10,000-entry directory: baseline is os.ReadDir
// plus an Lstat of each entry, corrosion is fm_list through Handle (jail,
// resolution, sorting; no deny patterns).
func BenchmarkList10k(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "big")
	must(b, os.Mkdir(dir, 0o755))
	for i := range 10_000 {
		name := filepath.Join(dir, "file-"+strconv.Itoa(i)+".dat")
		if i%10 == 0 {
			must(b, os.Mkdir(name, 0o755))
			continue
		}
		must(b, os.WriteFile(name, nil, 0o644))
	}
	b.Run("baseline", func(b *testing.B) {
		for b.Loop() {
			des, err := os.ReadDir(dir)
			must(b, err)
			for _, de := range des {
				if _, err := os.Lstat(filepath.Join(dir, de.Name())); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("corrosion", func(b *testing.B) {
		m, err := New(root, nil, Limits{}, nil)
		must(b, err)
		req := wire.Request{Func: "fm_list", Args: []byte(`{"path":"big"}`)}
		for b.Loop() {
			out, err := m.Handle(context.Background(), req)
			must(b, err)
			if n := len(out.(ListReply).Entries); n != 10_000 {
				b.Fatalf("%d entries", n)
			}
		}
	})
}
