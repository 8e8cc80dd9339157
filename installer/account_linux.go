package installer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
)

// account is the service account as found on the system.
type account struct {
	userFound, groupFound bool
	uid, gid              int // valid when found
}

// lookupAccount finds the corrosion user and group: with Root in
// ROOT/etc/passwd and ROOT/etc/group, else through the system's name
// service (os/user).
func (s *session) lookupAccount() (account, error) {
	if s.o.Root != "" {
		return lookupAccountFiles(s.host("/etc/passwd"), s.host("/etc/group"))
	}
	var a account
	if u, err := user.Lookup(ServiceUser); err == nil {
		a.userFound = true
		a.uid, _ = strconv.Atoi(u.Uid)
		a.gid, _ = strconv.Atoi(u.Gid)
	} else if !errors.As(err, new(user.UnknownUserError)) {
		return a, fmt.Errorf("look up user %s: %w", ServiceUser, err)
	}
	if g, err := user.LookupGroup(ServiceUser); err == nil {
		a.groupFound = true
		a.gid, _ = strconv.Atoi(g.Gid)
	} else if !errors.As(err, new(user.UnknownGroupError)) {
		return a, fmt.Errorf("look up group %s: %w", ServiceUser, err)
	}
	return a, nil
}

// lookupAccountFiles reads the corrosion entries of a passwd and a group
// file. The service's group is the group named corrosion.
func lookupAccountFiles(passwd, group string) (account, error) {
	var a account
	if f, ok, err := findEntry(passwd, ServiceUser); err != nil {
		return a, err
	} else if ok && len(f) >= 4 {
		a.userFound = true
		a.uid, _ = strconv.Atoi(f[2])
		a.gid, _ = strconv.Atoi(f[3])
	}
	if f, ok, err := findEntry(group, ServiceUser); err != nil {
		return a, err
	} else if ok && len(f) >= 3 {
		a.groupFound = true
		a.gid, _ = strconv.Atoi(f[2])
	}
	return a, nil
}

// findEntry returns the colon-separated fields of name's line in a
// passwd-style file; a missing file has no entries.
func findEntry(path, name string) ([]string, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if f[0] == name {
			return f, true, nil
		}
	}
	return nil, false, nil
}

// ensureUser creates the corrosion system user (and group) when missing
// and remembers its ids.
func (s *session) ensureUser(ctx context.Context) error {
	a, err := s.lookupAccount()
	if err != nil {
		return err
	}
	if a.userFound && a.groupFound {
		s.acc = a
		s.ok("user %s (uid %d, group %s gid %d)", ServiceUser, a.uid, ServiceUser, a.gid)
		return nil
	}
	if a.userFound {
		return fmt.Errorf("user %s exists but group %s does not: create the group, or remove the user", ServiceUser, ServiceUser)
	}
	args := []string{"--system", "--no-create-home", "--home-dir", StateDir, "--shell", "/usr/sbin/nologin",
		"--comment", "Corrosion host agent"}
	if a.groupFound {
		args = append(args, "--gid", ServiceUser) // join the existing group
	} else {
		args = append(args, "--user-group")
	}
	if s.o.Root != "" {
		args = append([]string{"--prefix", s.o.Root}, args...)
	}
	args = append(args, ServiceUser)
	what := fmt.Sprintf("create user %s (system user, group %s, home %s, shell /usr/sbin/nologin)", ServiceUser, ServiceUser, StateDir)
	return s.act(what, func() error {
		if out, err := exec.CommandContext(ctx, "useradd", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("useradd %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		if s.acc, err = s.lookupAccount(); err == nil && !(s.acc.userFound && s.acc.groupFound) {
			err = fmt.Errorf("useradd succeeded but user %s is not found", ServiceUser)
		}
		return err
	})
}
