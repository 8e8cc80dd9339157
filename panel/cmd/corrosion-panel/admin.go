package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/redact"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/dev"
	"github.com/corrosion/corrosion/panel/store"
)

// dbFlags is a command's flag set with --database-url (DATABASE_URL).
type dbFlags struct {
	fs  *flag.FlagSet
	dsn string
}

func newDBFlags(name string, e env) *dbFlags {
	f := &dbFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), dsn: e.getenv("DATABASE_URL")}
	f.fs.SetOutput(e.stdout)
	// A Func flag: --help shows no default, which would be $DATABASE_URL
	// with its password.
	f.fs.Func("database-url", flagval.SecretUsage("Postgres URL [DATABASE_URL]", "DATABASE_URL", "database-url-file"), flagval.String(&f.dsn))
	f.fs.Func("database-url-file", "file holding the Postgres URL", flagval.SecretFile(&f.dsn))
	return f
}

// parse parses args; help is flag.ErrHelp. A missing or malformed
// database URL is a usage error naming the flag.
func (f *dbFlags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", cli.ErrUsage, f.fs.Arg(0))
	}
	if strings.TrimSpace(f.dsn) == "" {
		return fmt.Errorf("%w: --database-url (DATABASE_URL) is not set", cli.ErrUsage)
	}
	if _, err := pgx.ParseConfig(f.dsn); err != nil {
		return fmt.Errorf("%w: --database-url (DATABASE_URL): %q does not parse", cli.ErrUsage, redact.URL(f.dsn))
	}
	return nil
}

func (e env) migrate(ctx context.Context, args []string) int {
	f := newDBFlags("migrate", e)
	if err := f.parse(args); err != nil {
		return e.fail("migrate", err)
	}
	applied, err := store.Migrate(ctx, f.dsn)
	if err != nil {
		return e.fail("migrate", err)
	}
	latest, err := store.Schema.Latest()
	if err != nil {
		return e.fail("migrate", err)
	}
	if len(applied) == 0 {
		fmt.Fprintf(e.stdout, "database is up to date (version %d)\n", latest)
		return exitOK
	}
	for _, v := range applied {
		fmt.Fprintf(e.stdout, "applied migration %04d\n", v)
	}
	fmt.Fprintf(e.stdout, "database at version %d\n", latest)
	return exitOK
}

// addOnly is a noun whose one command is add (`user add`, `license
// add`): it runs add with the arguments after "add"; anything else is a
// bad command line, answered with the one form.
func (e env) addOnly(form string, add cli.Run) cli.Run {
	return func(ctx context.Context, args []string) int {
		if len(args) == 0 || args[0] != "add" {
			noun, _, _ := strings.Cut(form, " ")
			fmt.Fprintf(e.stderr, "corrosion-panel %s: the command is `%s`\n", noun, form)
			return exitUsage
		}
		return add(ctx, args[1:])
	}
}

func (e env) licenseAdd(ctx context.Context, args []string) int {
	f := newDBFlags("license add", e)
	id := f.fs.String("id", "", "license id: 1 to 64 letters, digits, '-' or '_' (the agent's license_id)")
	label := f.fs.String("label", "", "a label shown in the panel")
	if err := f.parse(args); err != nil {
		return e.fail("license add", err)
	}
	if *id == "" {
		return e.fail("license add", fmt.Errorf("%w: --id is required", cli.ErrUsage))
	}
	st, err := store.Open(ctx, f.dsn)
	if err != nil {
		return e.fail("license add", err)
	}
	defer st.Close()
	if err := st.CreateLicense(ctx, *id, *label); err != nil {
		return e.fail("license add", err)
	}
	fmt.Fprintf(e.stdout, "license %s added\n", *id)
	return exitOK
}

func (e env) userAdd(ctx context.Context, args []string) int {
	f := newDBFlags("user add", e)
	name := f.fs.String("name", "", "the operator's login name")
	role := f.fs.String("role", "", "admin, operator or viewer")
	var licenses []string
	f.fs.Func("licenses", "comma-separated licenses the operator or viewer may see (admins see all)", flagval.List(&licenses))
	fromStdin := f.fs.Bool("password-stdin", false, "read the password from the first line of stdin (default: generate one and print it)")
	if err := f.parse(args); err != nil {
		return e.fail("user add", err)
	}
	if strings.TrimSpace(*name) == "" {
		return e.fail("user add", fmt.Errorf("%w: --name is required", cli.ErrUsage))
	}
	if !auth.Role(*role).Valid() {
		return e.fail("user add", fmt.Errorf("%w: --role %q is not admin, operator or viewer", cli.ErrUsage, *role))
	}
	password, generated := "", false
	if *fromStdin {
		line, err := bufio.NewReader(e.stdin).ReadString('\n')
		if err != nil && line == "" {
			return e.fail("user add", errors.New("--password-stdin: no password on stdin"))
		}
		password = strings.TrimRight(line, "\r\n")
	} else {
		password, generated = dev.GeneratePassword(), true
	}
	if err := auth.CheckNewPassword(password); err != nil {
		return e.fail("user add", err)
	}
	if err := addUser(ctx, f.dsn, newUser{*name, auth.Role(*role), password, licenses}); err != nil {
		return e.fail("user add", err)
	}
	if generated {
		fmt.Fprintf(e.stdout, "username: %s  password: %s\n", *name, password)
	} else {
		fmt.Fprintf(e.stdout, "user %s added (%s)\n", *name, *role)
	}
	return exitOK
}

// newUser is what `user add` creates.
type newUser struct {
	name     string
	role     auth.Role
	password string
	licenses []string // granted; each must exist
}

// addUser hashes the password (argon2id) and creates the operator with
// their grants. Unknown licenses are refused before anything is created.
func addUser(ctx context.Context, dsn string, u newUser) error {
	hash, err := auth.HashPassword(u.password, auth.DefaultParams)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := checkLicenses(ctx, st, u.licenses); err != nil {
		return err
	}
	created, err := st.CreateUser(ctx, u.name, hash, string(u.role))
	if err != nil {
		return err
	}
	if len(u.licenses) == 0 {
		return nil
	}
	return st.SetGrants(ctx, created.ID, u.licenses)
}

func checkLicenses(ctx context.Context, st *store.Store, want []string) error {
	if len(want) == 0 {
		return nil
	}
	have, err := st.Licenses(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, l := range have {
		known[l.ID] = true
	}
	for _, id := range want {
		if !known[id] {
			return fmt.Errorf("--licenses: there is no license %q; add it first with `corrosion-panel license add --id %s`", id, id)
		}
	}
	return nil
}
