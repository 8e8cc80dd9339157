package scripts

// pkg is what one package's scripts differ in; the templates hold the
// rest, and resolve fills in the values every package shares unless it
// says otherwise.
type pkg struct {
	Name string // the package, e.g. corrosion-agent

	// preinstall: the system user and group (same name) the service runs as.
	User    string // default Name
	UserFor string // what it is for, ending "the system user and group `U` …"; default "its service runs as"
	Home    string // its home directory (not created by useradd); default /nonexistent
	Comment string // its passwd comment

	// postinstall.
	Dirs        []dir  // created when missing, never changed after (/etc/corrosion first, always)
	Restart     bool   // whether an upgrade try-restarts Unit
	RestartNote string // why that restart is safe (a comment line)
	Config      string // its file in /etc/corrosion, installed from its example; until it exists, the install prints the next steps
	EditHint    string // what to edit in Config (step 2)
	NotEnabled  string // what the next steps' first line says is not running; default "but not enabled"
	Then        []string
	Running     string // printed instead of the next steps when Config exists; "" prints nothing

	// preremove: on removal, stop Stop (a shell word; default Unit) and
	// disable Unit (default Name.service).
	Stop string
	Unit string

	// postremove: what a deb purge deletes besides Config.
	PurgeFiles []string
	PurgeDirs  []string
}

// dir is a directory postinstall creates, owned by Owner's user and group.
type dir struct {
	Path, Mode, Owner string
}

// etc is /etc/corrosion, every package's configuration directory.
var etc = dir{"/etc/corrosion", "0755", "root"}

// resolve returns p with every default filled in.
func (p pkg) resolve() pkg {
	or := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	or(&p.User, p.Name)
	or(&p.UserFor, "its service runs as")
	or(&p.Home, "/nonexistent")
	or(&p.NotEnabled, "but not enabled")
	or(&p.Unit, p.Name+".service")
	or(&p.Stop, p.Unit)
	p.Dirs = append([]dir{etc}, p.Dirs...)
	p.PurgeFiles = append([]string{p.ConfigPath()}, p.PurgeFiles...)
	return p
}

// ConfigPath is Config's path.
func (p pkg) ConfigPath() string { return etc.Path + "/" + p.Config }

// Example is where the package ships Config's example.
func (p pkg) Example() string { return "/usr/share/doc/" + p.Name + "/examples/" + p.Config }

// packages are the three packages' values, by the short name their nfpm
// config has. The owners and modes of the agent's directories are the ones
// `corrosion-agent install` uses (docs/installer.md).
var packages = map[string]pkg{
	// The agent: restarted on upgrade (KillMode=process keeps the games).
	// A purge deletes its configuration and state, never the game data in
	// /srv/corrosion or the user (files there may still belong to it).
	"agent": {
		Name:    "corrosion-agent",
		User:    "corrosion",
		UserFor: "the agent and its game servers run as",
		Home:    "/var/lib/corrosion-agent",
		Comment: "Corrosion agent",
		Dirs:    []dir{{"/var/lib/corrosion-agent", "0750", "corrosion"}, {"/srv/corrosion", "0750", "corrosion"}},
		Restart: true,
		RestartNote: "KillMode=process: the restart replaces only the agent; the game\n" +
			"\t# servers keep running and the new agent adopts them.",
		Config:     "agent.toml",
		EditHint:   "license_id, nats_url, your game servers",
		Then:       []string{"runuser -u corrosion -- corrosion-agent validate --config /etc/corrosion/agent.toml", "systemctl enable --now corrosion-agent"},
		PurgeFiles: []string{"/etc/corrosion/agent.env"},
		PurgeDirs:  []string{"/var/lib/corrosion-agent"},
	},
	// The panel: restarted on upgrade. Its data lives in Postgres and is
	// never touched by a purge.
	"panel": {
		Name:        "corrosion-panel",
		Comment:     "Corrosion panel",
		Restart:     true,
		RestartNote: "Sessions and state live in Postgres: nothing is lost.",
		Config:      "panel.env",
		EditHint:    "DATABASE_URL, NATS_URL, ...",
		Then:        []string{"set -a; . /etc/corrosion/panel.env; set +a; corrosion-panel migrate", "systemctl enable --now corrosion-panel"},
	},
	// A world is never restarted: a restart disconnects its players, so on
	// upgrade each running world keeps the old binary until its operator
	// restarts it. Removal stops every corrosion-world@N (their binaries are
	// going away); disabling the template disables every enabled instance.
	// A purge deletes the per-world env files too.
	"world": {
		Name:       "corrosion-world",
		Comment:    "Corrosion world server",
		Config:     "world.env",
		EditHint:   "RS_DB_*, RS_CLUSTER_HOSTS, WORLD_ARGS",
		NotEnabled: "but no world is enabled",
		Then:       []string{"systemctl enable --now corrosion-world@10     # node 10 = world 1"},
		Running:    "corrosion-world: running worlds keep the old version until restarted (systemctl restart corrosion-world@N).",
		Unit:       "corrosion-world@.service",
		Stop:       "'corrosion-world@*.service'",
		PurgeFiles: []string{"/etc/corrosion/world-*.env"},
	},
}
