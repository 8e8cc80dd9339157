package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// An egg is a Pterodactyl (PTDL_v1/v2) or Pelican (PLCN_v1+) game
// definition: JSON whose install is a shell script run in a container.
// ImportEgg keeps what is data (the startup line, the stop, the done
// string, the variables and their Laravel rules, the config-file parsers)
// and lists everything else by name; it never runs or keeps a script.

// Unmapped is one part of an egg that did not become part of the template:
// Field is its JSON path in the egg, Reason why.
type Unmapped struct {
	Field  string
	Reason string
}

func (u Unmapped) String() string { return u.Field + ": " + u.Reason }

// eggDoc is the part of an egg's JSON the importer reads.
type eggDoc struct {
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	Startup         string            `json:"startup"`
	StartupCommands map[string]string `json:"startup_commands"` // Pelican: name → command line
	Config          struct {
		Files   json.RawMessage `json:"files"`   // an object, or (PTDL_v2) a JSON string holding one
		Startup json.RawMessage `json:"startup"` // likewise: {"done": string or [string]}
		Logs    json.RawMessage `json:"logs"`
		Stop    string          `json:"stop"`
	} `json:"config"`
	Scripts struct {
		Installation struct {
			Script string `json:"script"`
		} `json:"installation"`
	} `json:"scripts"`
	Variables []eggVar `json:"variables"`
}

type eggVar struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	EnvVariable  string          `json:"env_variable"`
	DefaultValue json.RawMessage `json:"default_value"` // a string, sometimes a number or null
	UserViewable bool            `json:"user_viewable"`
	UserEditable bool            `json:"user_editable"`
	Rules        json.RawMessage `json:"rules"` // "required|string|max:20" or (Pelican) ["required", …]
}

// eggKeys are the top-level keys ImportEgg reads or knowingly skips as
// metadata; any other is listed as unmapped.
var eggKeys = []string{"_comment", "meta", "exported_at", "name", "author", "uuid", "description", "tags",
	"startup", "startup_commands", "config", "scripts", "variables", "docker_images", "features", "file_denylist"}

// MaxEggSize bounds an egg; a larger one is refused unread.
const MaxEggSize = 1 << 20

// ImportEgg turns a Pterodactyl or Pelican egg into a template (game
// generic, version 1, defaults filled, validated) and lists every part of
// the egg that could not be mapped: the install script (never run: a
// steamcmd step is made from the defaults of SRCDS_APPID, WINDOWS_INSTALL
// and SRCDS_BETAID instead, which stay variables too), Docker images, rules with no equivalent, config
// edits whose values refer to the server's build. An egg whose startup
// line cannot be mapped (shell syntax, an unknown reference) or whose
// result does not validate is an error; the unmapped list is returned
// with it.
func ImportEgg(data []byte) (Template, []Unmapped, error) {
	if len(data) > MaxEggSize {
		return Template{}, nil, fmt.Errorf("egg is %d bytes (at most %d)", len(data), MaxEggSize)
	}
	var doc eggDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Template{}, nil, fmt.Errorf("parse egg: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Template{}, nil, fmt.Errorf("parse egg: %w", err)
	}
	im := &eggImport{t: Template{Name: strings.TrimSpace(doc.Name), Description: clip(doc.Description, 2000),
		Game: "generic", Version: 1, ID: slug(doc.Name)}}
	im.unknownKeys(top)
	im.variables(doc.Variables)
	im.install(doc)
	if err := im.run(doc); err != nil {
		return Template{}, im.out, err
	}
	im.configFiles(doc.Config.Files)
	im.ports()
	im.t.applyDefaults()
	if err := im.t.Validate(); err != nil {
		return Template{}, im.out, fmt.Errorf("imported template: %w", err)
	}
	return im.t, im.out, nil
}

// eggImport is one import: the template being built and what did not map.
type eggImport struct {
	t   Template
	out []Unmapped
}

func (im *eggImport) skip(field, format string, args ...any) {
	im.out = append(im.out, Unmapped{Field: field, Reason: fmt.Sprintf(format, args...)})
}

func (im *eggImport) unknownKeys(top map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(top)) {
		switch {
		case !slices.Contains(eggKeys, k):
			im.skip(k, "not an egg key the importer knows")
		case k == "docker_images" || k == "features":
			if len(top[k]) > 2 && string(top[k]) != "null" {
				im.skip(k, "containers and panel features are not used: the agent runs the game directly")
			}
		case k == "file_denylist":
			if len(bytes.TrimSpace(top[k])) > 2 {
				im.skip(k, "not mapped: set [instance.files] deny on the host")
			}
		}
	}
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a template id from an egg's name ("Conan Exiles" → "egg-conan-exiles").
func slug(name string) string {
	s := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(name), "-"), "-")
	return clip("egg-"+s, 64)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n]), "-")
	}
	return s
}

// install: the script is never kept; a Steam app id becomes a steamcmd step.
func (im *eggImport) install(doc eggDoc) {
	if strings.TrimSpace(doc.Scripts.Installation.Script) != "" {
		im.skip("scripts.installation.script", "an install script is never run; add source steps by hand")
	}
	def := func(key string) string {
		for _, v := range doc.Variables {
			if v.EnvVariable == key {
				return rawString(v.DefaultValue)
			}
		}
		return ""
	}
	id := def("SRCDS_APPID")
	var app int
	if _, err := fmt.Sscanf(id, "%d", &app); err != nil || app < 1 || fmt.Sprint(app) != id {
		return
	}
	s := &SteamCMD{AppID: app, Platform: PlatformLinux, Validate: ValidateInstallOnly, Branch: def("SRCDS_BETAID")}
	if def("WINDOWS_INSTALL") == "1" {
		s.Platform = PlatformWindows
	}
	if strings.Contains(s.Branch, "{{") || strings.Contains(s.Branch, "}}") {
		s.Branch = ""
		im.skip("variables.SRCDS_BETAID", "not a plain branch name")
	}
	im.t.Sources = append(im.t.Sources, Source{SteamCMD: s})
}

// rawString is a JSON string's value, a number's text, or "" (null).
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// nested decodes raw into v, raw being an object or a JSON string holding
// one (PTDL_v2 stores config.files and config.startup as strings).
func nested(raw json.RawMessage, v any) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}

var errNoStartup = errors.New("the egg has no startup command")
