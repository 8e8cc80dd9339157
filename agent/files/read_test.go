package files

import (
	"context"
	"encoding/base64"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestHandle_UnknownFunc(t *testing.T) {
	e := newEnv(t)
	werr := e.fail(wire.CodeUnknownFunc, "fm_nope", nil)
	for _, fn := range Funcs() {
		if !strings.Contains(werr.Msg, fn) {
			t.Errorf("message %q does not list %s", werr.Msg, fn)
		}
	}
	want := []string{"fm_archive", "fm_chmod", "fm_copy", "fm_delete", "fm_extract", "fm_list",
		"fm_mkdir", "fm_read", "fm_rename", "fm_save", "fm_search", "fm_stat"}
	if !slices.Equal(Funcs(), want) {
		t.Fatalf("Funcs() = %v", Funcs())
	}
}

func TestHandle_BadArgs(t *testing.T) {
	e := newEnv(t)
	e.write("f", "x")
	tests := []struct {
		fn   string
		args map[string]any
	}{
		{"fm_list", nil},
		{"fm_list", map[string]any{"path": 5}},
		{"fm_stat", nil},
		{"fm_read", nil},
		{"fm_read", map[string]any{"path": "f", "offset": "x"}},
		{"fm_save", map[string]any{"path": "f"}},
		{"fm_save", map[string]any{"content": "x"}},
		{"fm_mkdir", nil},
		{"fm_rename", map[string]any{"from": "f"}},
		{"fm_rename", map[string]any{"to": "g"}},
		{"fm_copy", map[string]any{"from": "f"}},
		{"fm_delete", nil},
		{"fm_chmod", map[string]any{"path": "f"}},
		{"fm_chmod", map[string]any{"mode": "0644"}},
		{"fm_search", map[string]any{"path": ""}},
		{"fm_search", map[string]any{"query": "x"}},
		{"fm_extract", map[string]any{"to": "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			e.fail(wire.CodeBadArgs, tt.fn, tt.args)
		})
	}
}

func TestNew_Errors(t *testing.T) {
	if _, err := New("", nil, Limits{}, nil); err == nil {
		t.Error("empty root accepted")
	}
	if _, err := New(t.TempDir(), nil, Limits{ReadMax: -1}, nil); err == nil || !strings.Contains(err.Error(), "ReadMax") {
		t.Errorf("negative ReadMax: %v", err)
	}
	m, err := New(t.TempDir(), nil, Limits{SaveMax: 5}, nil)
	must(t, err)
	want := DefaultLimits()
	want.SaveMax = 5
	if m.limits != want {
		t.Errorf("limits %+v, want %+v", m.limits, want)
	}
}

func TestList(t *testing.T) {
	e := newEnv(t, "*.key", "hidden/")
	e.write("b.txt", "bb")
	e.write("A.txt", "a")
	e.write("z/inner", "")
	e.mkdir("c")
	e.mkdir("hidden")
	e.write("s.key", "k")
	e.symlink("z", "linkdir")
	e.symlink("../sentinel", "out")
	must(t, os.Chmod(e.p("b.txt"), 0o640))
	for _, root := range []string{"", ".", "/"} {
		rep := e.ok("fm_list", map[string]any{"path": root})
		names := entryNames(rep, "entries", "name")
		want := []string{"c", "z", "A.txt", "b.txt", "linkdir", "out"}
		if !slices.Equal(names, want) {
			t.Fatalf("list %q: %q, want %q", root, names, want)
		}
	}
	rep := e.ok("fm_list", map[string]any{"path": ""})
	byName := map[string]map[string]any{}
	for _, x := range rep["entries"].([]any) {
		en := x.(map[string]any)
		byName[en["name"].(string)] = en
	}
	b := byName["b.txt"]
	if b["type"] != TypeFile || b["size"] != float64(2) || b["mode"] != "0640" {
		t.Errorf("b.txt entry %v", b)
	}
	if _, err := time.Parse(time.RFC3339Nano, b["modified"].(string)); err != nil {
		t.Errorf("modified %v: %v", b["modified"], err)
	}
	if byName["z"]["type"] != TypeDir || byName["linkdir"]["type"] != TypeSymlink || byName["out"]["type"] != TypeSymlink {
		t.Errorf("types: %v %v %v", byName["z"], byName["linkdir"], byName["out"])
	}
	if names := entryNames(e.ok("fm_list", map[string]any{"path": "linkdir"}), "entries", "name"); !slices.Equal(names, []string{"inner"}) {
		t.Errorf("list through an inside symlink: %q", names)
	}
	if rep := e.ok("fm_list", map[string]any{"path": "c"}); len(rep["entries"].([]any)) != 0 {
		t.Errorf("empty dir: %v", rep)
	}
	e.fail(CodeNotADirectory, "fm_list", map[string]any{"path": "b.txt"})
	e.fail(CodeNotFound, "fm_list", map[string]any{"path": "nope"})
	e.fail(CodeDenied, "fm_list", map[string]any{"path": "hidden"})
	e.fail(CodeOutsideRoot, "fm_list", map[string]any{"path": "out"})
}

func TestStat(t *testing.T) {
	e := newEnv(t, "*.key")
	e.write("d/f.txt", "hello")
	e.write("k.key", "k")
	e.symlink("../sentinel/secret", "out")
	rep := e.ok("fm_stat", map[string]any{"path": "/d/f.txt"})
	if rep["path"] != "d/f.txt" || rep["name"] != "f.txt" || rep["type"] != TypeFile || rep["size"] != float64(5) {
		t.Errorf("stat file: %v", rep)
	}
	if rep := e.ok("fm_stat", map[string]any{"path": ""}); rep["type"] != TypeDir || rep["path"] != "" || rep["name"] != "/" {
		t.Errorf("stat root: %v", rep)
	}
	if rep := e.ok("fm_stat", map[string]any{"path": "out"}); rep["type"] != TypeSymlink {
		t.Errorf("stat of a link pointing out shows the link: %v", rep)
	}
	e.fail(CodeNotFound, "fm_stat", map[string]any{"path": "d/nope"})
	e.fail(CodeNotADirectory, "fm_stat", map[string]any{"path": "d/f.txt/x"})
	e.fail(CodeDenied, "fm_stat", map[string]any{"path": "k.key"})
}

func TestRead(t *testing.T) {
	e := newEnvLimits(t, Limits{ReadMax: 16}, "*.key", "priv/")
	e.write("t.txt", "héllo\nworld")
	e.write("bin", "\x00\x01\x02")
	e.write("bad-utf8", "\xff\xfe")
	e.write("big", strings.Repeat("x", 20))
	e.write("k.key", "k")
	e.write("priv/p", "p")
	e.symlink("t.txt", "lt")
	e.symlink("priv", "pl")
	e.symlink("k.key", "lk")
	e.mkdir("dir")
	tests := []struct {
		name     string
		args     map[string]any
		content  string
		encoding string
		size     float64
	}{
		{"text", map[string]any{"path": "t.txt"}, "héllo\nworld", EncodingUTF8, 12},
		{"binary", map[string]any{"path": "bin"}, base64.StdEncoding.EncodeToString([]byte("\x00\x01\x02")), EncodingBase64, 3},
		{"invalid utf8", map[string]any{"path": "bad-utf8"}, base64.StdEncoding.EncodeToString([]byte("\xff\xfe")), EncodingBase64, 2},
		{"offset and limit", map[string]any{"path": "t.txt", "offset": 7, "limit": 3}, "wor", EncodingUTF8, 12},
		{"offset to the end", map[string]any{"path": "t.txt", "offset": 10}, "ld", EncodingUTF8, 12},
		{"offset past the end", map[string]any{"path": "t.txt", "offset": 100}, "", EncodingUTF8, 12},
		{"big file in parts", map[string]any{"path": "big", "offset": 16, "limit": 16}, "xxxx", EncodingUTF8, 20},
		{"through a symlink inside", map[string]any{"path": "lt"}, "héllo\nworld", EncodingUTF8, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := e.ok("fm_read", tt.args)
			if rep["content"] != tt.content || rep["encoding"] != tt.encoding || rep["size"] != tt.size {
				t.Fatalf("read %v = %v", tt.args, rep)
			}
		})
	}
	errs := []struct {
		name, code string
		args       map[string]any
	}{
		{"too large whole", CodeTooLarge, map[string]any{"path": "big"}},
		{"limit over ReadMax", CodeTooLarge, map[string]any{"path": "big", "limit": 17}},
		{"negative offset", wire.CodeBadArgs, map[string]any{"path": "t.txt", "offset": -1}},
		{"negative limit", wire.CodeBadArgs, map[string]any{"path": "t.txt", "limit": -1}},
		{"directory", CodeIsADirectory, map[string]any{"path": "dir"}},
		{"root", CodeIsADirectory, map[string]any{"path": "/"}},
		{"missing", CodeNotFound, map[string]any{"path": "nope"}},
		{"denied", CodeDenied, map[string]any{"path": "k.key"}},
		{"denied dir", CodeDenied, map[string]any{"path": "priv/p"}},
		{"denied through a dir symlink", CodeDenied, map[string]any{"path": "pl/p"}},
		{"denied through a file symlink", CodeDenied, map[string]any{"path": "lk"}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_read", tt.args)
		})
	}
}

func TestRead_FIFO(t *testing.T) {
	e := newEnv(t)
	if err := mkfifo(e.p("pipe")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	e.fail(CodeNotAFile, "fm_read", map[string]any{"path": "pipe"})
	e.fail(CodeNotAFile, "fm_chmod", map[string]any{"path": "pipe", "mode": "0600"})
}

func TestSearch(t *testing.T) {
	e := newEnvLimits(t, Limits{SearchMaxResults: 3, SearchMaxDepth: 3}, "*.key")
	e.write("Config.txt", "")
	e.write("a/config.json", "")
	e.write("a/b/CONFIG.bak", "")
	e.write("a/b/c/config.deep", "")
	e.write("a/other", "")
	e.write("config.key", "")
	e.mkdir("configs")
	e.symlink("a", "link-config")
	tests := []struct {
		name      string
		args      map[string]any
		want      []string
		truncated bool
	}{
		{"capped by the limit", map[string]any{"path": "", "query": "CONFIG"}, []string{"Config.txt", "configs", "link-config"}, true},
		{"max depth 1", map[string]any{"path": "/", "query": "config", "max_depth": 1, "limit": 10},
			[]string{"Config.txt", "configs", "link-config"}, false},
		{"max depth 2", map[string]any{"path": "", "query": "config", "max_depth": 2, "limit": 3},
			[]string{"Config.txt", "configs", "link-config"}, true},
		{"sub directory, depth bounded by the limit", map[string]any{"path": "a", "query": "conf", "max_depth": 50},
			[]string{"a/config.json", "a/b/CONFIG.bak", "a/b/c/config.deep"}, false},
		{"no match", map[string]any{"path": "", "query": "zzz"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := e.ok("fm_search", tt.args)
			got := entryNames(rep, "results", "path")
			if !slices.Equal(got, tt.want) || rep["truncated"] != tt.truncated {
				t.Fatalf("search %v = %q truncated=%v, want %q %v", tt.args, got, rep["truncated"], tt.want, tt.truncated)
			}
		})
	}
	e.fail(wire.CodeBadArgs, "fm_search", map[string]any{"path": "", "query": "x", "limit": -1})
	e.fail(wire.CodeBadArgs, "fm_search", map[string]any{"path": "", "query": ""})
	e.fail(CodeNotADirectory, "fm_search", map[string]any{"path": "Config.txt", "query": "x"})
}

func TestHandle_Canceled(t *testing.T) {
	e := newEnv(t)
	e.write("a/b", "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.m.Handle(ctx, wire.Request{Func: "fm_search", Args: []byte(`{"path":"","query":"b"}`)})
	if err == nil {
		t.Fatal("search on a canceled context succeeded")
	}
}
