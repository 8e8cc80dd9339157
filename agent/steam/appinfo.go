package steam

import (
	"bytes"
	"fmt"
	"io"
	"sort"
)

// Branch is one branch of an app as app_info_print shows it
// (depots.branches.<name>).
type Branch struct {
	BuildID     string
	PwdRequired bool // a password-protected beta
}

// AppInfo is what app_info_print says of an app.
type AppInfo struct {
	AppID    string
	Branches map[string]Branch // by branch name; "public" is the default
}

// ParseAppInfo finds app's KeyValues dump in steamcmd's app_info_print
// output (the line `"<app>"` followed by its { } object, amid steamcmd's
// other lines) and reads its branches. No dump for app, a malformed one or
// one without branches is an error.
func ParseAppInfo(output []byte, app string) (AppInfo, error) {
	if err := CheckAppID(app); err != nil {
		return AppInfo{}, err
	}
	start := -1
	head := []byte(`"` + app + `"`)
	for off := 0; off < len(output); {
		end := bytes.IndexByte(output[off:], '\n')
		line := output[off:]
		if end >= 0 {
			line = output[off : off+end]
		}
		if bytes.Equal(bytes.TrimSpace(line), head) {
			start = off
			break
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	if start < 0 {
		return AppInfo{}, fmt.Errorf("app_info_print printed no information for app %s", app)
	}
	_, info, err := parseVDFPair(output[start:])
	if err != nil {
		return AppInfo{}, fmt.Errorf("app_info_print for app %s: %w", app, err)
	}
	branches := info.Get("depots", "branches")
	if branches == nil || !branches.Obj || len(branches.Keys) == 0 {
		return AppInfo{}, fmt.Errorf("app_info_print for app %s: no depots.branches", app)
	}
	ai := AppInfo{AppID: app, Branches: map[string]Branch{}}
	for i, name := range branches.Keys {
		b := branches.Vals[i]
		if _, dup := ai.Branches[name]; dup || !b.Obj {
			continue
		}
		ai.Branches[name] = Branch{BuildID: b.String("buildid"), PwdRequired: b.String("pwdrequired") == "1"}
	}
	return ai, nil
}

// BranchNames lists the branches in order, for messages.
func (a AppInfo) BranchNames() []string {
	names := make([]string, 0, len(a.Branches))
	for n := range a.Branches {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// readLimited reads r to its end, refusing more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than the %d bytes allowed", ErrVDF, limit)
	}
	return data, nil
}
