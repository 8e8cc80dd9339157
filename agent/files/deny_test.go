package files

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDenylist_Match(t *testing.T) {
	type c struct {
		path  string
		isDir bool
		want  bool
	}
	tests := []struct {
		name     string
		patterns []string
		cases    []c
	}{
		{"star matches any name at any depth", []string{"*.key"}, []c{
			{"a.key", false, true}, {"x/y/a.key", false, true}, {"a.keys", false, false}, {"key", false, false},
		}},
		{"star does not cross slash", []string{"/a*b"}, []c{
			{"ab", false, true}, {"axxb", false, true}, {"a/b", false, false},
		}},
		{"question mark", []string{"file?.txt"}, []c{
			{"file1.txt", false, true}, {"file.txt", false, false}, {"file12.txt", false, false},
		}},
		{"class and negated class", []string{"log[0-9]", "tmp[!a]"}, []c{
			{"log5", false, true}, {"logx", false, false}, {"tmpb", false, true}, {"tmpa", false, false},
		}},
		{"leading slash anchors", []string{"/secret"}, []c{
			{"secret", false, true}, {"a/secret", false, false},
		}},
		{"middle slash anchors", []string{"conf/db.yml"}, []c{
			{"conf/db.yml", false, true}, {"x/conf/db.yml", false, false},
		}},
		{"name without slash matches at any depth", []string{"secrets"}, []c{
			{"secrets", true, true}, {"a/secrets", true, true}, {"a/secrets/x", false, true},
		}},
		{"trailing slash: directories only", []string{"logs/"}, []c{
			{"logs", true, true}, {"logs", false, false}, {"a/logs", true, true}, {"logs/x.txt", false, true},
		}},
		{"leading double star", []string{"**/cache"}, []c{
			{"cache", true, true}, {"a/b/cache", false, true}, {"cachex", false, false},
		}},
		{"trailing double star", []string{"data/**"}, []c{
			{"data", true, false}, {"data/x", false, true}, {"data/x/y", false, true}, {"a/data/x", false, false},
		}},
		{"middle double star", []string{"a/**/z"}, []c{
			{"a/z", false, true}, {"a/b/z", false, true}, {"a/b/c/z", false, true}, {"b/a/z", false, false},
		}},
		{"negation re-includes", []string{"*.cfg", "!public.cfg"}, []c{
			{"server.cfg", false, true}, {"public.cfg", false, false}, {"x/public.cfg", false, false},
		}},
		{"negation cannot re-include below a denied dir", []string{"private/", "!private/ok.txt"}, []c{
			{"private/ok.txt", false, true}, {"private", true, true},
		}},
		{"negation of a dir's contents", []string{"/cfg/*", "!/cfg/public"}, []c{
			{"cfg", true, false}, {"cfg/secret", false, true}, {"cfg/public", false, false}, {"cfg/public/x", false, false},
		}},
		{"last match wins", []string{"!a.txt", "a.txt"}, []c{{"a.txt", false, true}}},
		{"comments, blanks, escapes, trailing spaces", []string{"# c", "", `\#hash`, `\!bang`, "trail   ", `sp\ `}, []c{
			{"#hash", false, true}, {"!bang", false, true}, {"trail", false, true}, {"sp ", false, true}, {"# c", false, false},
		}},
		{"root never denied", []string{"*"}, []c{{"", true, false}, {"x", false, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := compileDeny(tt.patterns)
			must(t, err)
			for _, c := range tt.cases {
				if got := d.Denied(c.path, c.isDir); got != c.want {
					t.Errorf("%q Denied(%q, dir=%v) = %v, want %v", tt.patterns, c.path, c.isDir, got, c.want)
				}
			}
		})
	}
}

func TestDenylist_BadPattern(t *testing.T) {
	_, err := New(t.TempDir(), []string{"ok", "[z-"}, Limits{}, nil)
	if !errors.Is(err, ErrBadDenyPattern) || !strings.Contains(err.Error(), "[z-") {
		t.Fatalf("New with a bad pattern: %v", err)
	}
}

// TestDenylist_AgreesWithGit compares the matcher with git check-ignore on
// a real tree, for the same patterns in a .gitignore.
func TestDenylist_AgreesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	patterns := []string{
		"*.key", "/top.txt", "logs/", "!logs/keep/", "build/**", "!build/out.txt",
		"**/cache", "a/**/z", "conf/db.yml", "tmp?", "data[0-9]", "secret", "!secret.pub",
		"/priv/*", "!/priv/pub",
	}
	paths := map[string]bool{ // path -> is a directory
		"top.txt": false, "x/top.txt": false, "a.key": false, "d/b.key": false,
		"logs": true, "logs/x": false, "logs/keep": true, "logs/keep/y": false, "x/logs": true, "x/logs/f": false,
		"build": true, "build/out.txt": false, "build/sub": true, "build/sub/o": false,
		"cache": true, "q/cache": true, "q/cache/c": false, "a": true, "a/z": false, "a/m": true, "a/m/z": false,
		"conf": true, "conf/db.yml": false, "x/conf": true, "x/conf/db.yml": false,
		"tmp1": false, "tmp12": false, "data4": false, "datax": false,
		"secret": false, "secret.pub": false, "s": true, "s/secret": true, "s/secret/f": false,
		"priv": true, "priv/a": false, "priv/pub": true, "priv/pub/b": false, "plain.txt": false,
	}
	dir := t.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("git %v: %v", args, err)
			}
		}
		return out.String()
	}
	run("", "init", "-q")
	must(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(strings.Join(patterns, "\n")+"\n"), 0o644))
	var list []string
	for p, isDir := range paths {
		list = append(list, p)
		if isDir {
			must(t, os.MkdirAll(filepath.Join(dir, p), 0o755))
		} else {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, p), nil, 0o644))
		}
	}
	out := run(strings.Join(list, "\n")+"\n", "check-ignore", "--no-index", "--stdin", "-v", "-n")
	gitSays := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		src, p, _ := strings.Cut(sc.Text(), "\t")
		fields := strings.SplitN(src, ":", 3)
		gitSays[p] = len(fields) == 3 && fields[2] != "" && !strings.HasPrefix(fields[2], "!")
	}
	d, err := compileDeny(patterns)
	must(t, err)
	for p, isDir := range paths {
		if got := d.Denied(p, isDir); got != gitSays[p] {
			t.Errorf("Denied(%q, dir=%v) = %v, git check-ignore says %v", p, isDir, got, gitSays[p])
		}
	}
}
