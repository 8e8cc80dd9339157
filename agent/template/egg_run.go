package template

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Build references an egg may use, and what they become.
const (
	eggPortKey   = "SERVER_PORT"   // {{server.build.default.port}}
	eggMemoryKey = "SERVER_MEMORY" // {{server.build.memory}} (MiB)
)

var eggRefRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.]+)\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// eggRefs rewrites an egg's references ({{VAR}}, {{env.VAR}},
// {{server.build.env.VAR}}, ${VAR}, {{server.build.default.port}},
// {{server.build.memory}}) as {{KEY}}, adding the build variables it needs.
// A reference to anything else, or to no variable, is an error.
func (im *eggImport) eggRefs(s string) (string, error) {
	var bad error
	out := eggRefRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := eggRefRE.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		switch {
		case name == "server.build.default.port":
			name = eggPortKey
		case name == "server.build.memory":
			name = eggMemoryKey
		case strings.HasPrefix(name, "server.build.env."):
			name = strings.TrimPrefix(name, "server.build.env.")
		case strings.HasPrefix(name, "env."):
			name = strings.TrimPrefix(name, "env.")
		}
		if name == eggPortKey || name == eggMemoryKey {
			im.buildVar(name) // Wings sets them from the server's build
		}
		if im.t.variable(name) == nil {
			bad = fmt.Errorf("%s refers to %q, which is not a variable of the template", m, name)
		}
		return "{{" + name + "}}"
	})
	return out, bad
}

// ports declares a [[port]] for each port variable. An egg does not say a
// port's protocol: udp is assumed, and listed.
func (im *eggImport) ports() {
	var keys []string
	for _, v := range im.t.Variables {
		if v.Type == TypePort {
			im.t.Ports = append(im.t.Ports, Port{Name: clip(strings.ToLower(v.Key), 32), Protocol: ProtocolUDP, Variable: v.Key})
			keys = append(keys, v.Key)
		}
	}
	if len(keys) > 0 {
		im.skip("variables", "an egg does not say a port's protocol: udp assumed for %s, check it", strings.Join(keys, ", "))
	}
}

// buildVar declares the variable standing for a value the panel's build
// gave an egg (its port, its memory).
func (im *eggImport) buildVar(key string) {
	if im.t.variable(key) != nil {
		return
	}
	v := Variable{Key: key, Required: true, RestartRequired: true}
	switch key {
	case eggPortKey:
		v.Name, v.Type = "Game port", TypePort
	case eggMemoryKey:
		v.Name, v.Type, v.Default = "Memory (MiB)", TypeInt, "1024"
	}
	im.t.Variables = append(im.t.Variables, v)
}

// run maps the startup line, the done string and the stop.
func (im *eggImport) run(doc eggDoc) error {
	line, field := doc.Startup, "startup"
	if line == "" && len(doc.StartupCommands) > 0 {
		names := slices.Sorted(maps.Keys(doc.StartupCommands))
		field = "startup_commands." + names[0]
		if slices.Contains(names, "Default") {
			field = "startup_commands.Default"
		}
		line = doc.StartupCommands[strings.TrimPrefix(field, "startup_commands.")]
		for _, n := range names {
			if "startup_commands."+n != field {
				im.skip("startup_commands."+n, "only one startup command is kept")
			}
		}
	}
	if strings.TrimSpace(line) == "" {
		return errNoStartup
	}
	words, err := shellWords(line)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	for i := range words {
		if words[i], err = im.eggRefs(words[i]); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	prog := words[0]
	switch {
	case strings.HasPrefix(prog, "./"):
		im.t.Run.Exec = strings.TrimPrefix(prog, "./")
	case strings.HasPrefix(prog, "/home/container/"):
		im.t.Run.Exec = strings.TrimPrefix(prog, "/home/container/")
	default:
		im.t.Run.Program = prog
	}
	for _, w := range words[1:] {
		im.t.Run.Args = append(im.t.Run.Args, strings.ReplaceAll(w, "/home/container/", ""))
	}
	im.ready(doc.Config.Startup)
	im.stop(doc.Config.Stop)
	return nil
}

func (im *eggImport) ready(raw json.RawMessage) {
	var st struct {
		Done json.RawMessage `json:"done"`
	}
	if err := nested(raw, &st); err != nil {
		im.skip("config.startup", "not JSON: %v", err)
		return
	}
	var dones []string
	if s := rawString(st.Done); s != "" {
		dones = []string{s}
	} else if json.Unmarshal(st.Done, &dones) != nil {
		dones = nil
	}
	var alts []string
	for _, d := range dones {
		if d != "" {
			alts = append(alts, regexp.QuoteMeta(d))
		}
	}
	im.t.Run.Ready.Regex = strings.Join(alts, "|")
}

// stop: "^C" (or "^^C", as some eggs escape it) is SIGINT; anything else
// is a console command.
func (im *eggImport) stop(s string) {
	switch s {
	case "":
	case "^C", "^^C", "^C ^C":
		im.t.Run.Stop = Stop{Kind: StopSignal, Value: "SIGINT"}
	default:
		if strings.HasPrefix(s, "^") || strings.ContainsAny(s, "\r\n\x00") {
			im.skip("config.stop", "%q is neither ^C nor a one-line command: SIGTERM used", s)
			return
		}
		im.t.Run.Stop = Stop{Kind: StopCommand, Value: s}
	}
}

// shellWords splits a startup line as a shell would split plain words and
// quoted strings, and refuses everything else a shell would interpret.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|;&<>`()\\*?", r) || (r == '$' && !strings.HasPrefix(line[i:], "${")):
			return nil, fmt.Errorf("%q at offset %d is shell syntax (a template runs one program with its arguments, no shell)", r, i)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errNoStartup
	}
	return words, nil
}

// eggParsers maps Wings' config parsers to formats.
var eggParsers = map[string]Format{"properties": FormatProperties, "ini": FormatINI, "json": FormatJSON,
	"yaml": FormatYAML, "xml": FormatXML, "file": FormatLinePrefix}

func (im *eggImport) configFiles(raw json.RawMessage) {
	var files map[string]struct {
		Parser string                     `json:"parser"`
		Find   map[string]json.RawMessage `json:"find"`
	}
	if err := nested(raw, &files); err != nil {
		im.skip("config.files", "not JSON: %v", err)
		return
	}
	for _, path := range slices.Sorted(maps.Keys(files)) {
		f, field := files[path], "config.files."+strconv.Quote(path)
		format, ok := eggParsers[f.Parser]
		if !ok {
			im.skip(field, "parser %q has no equivalent", f.Parser)
			continue
		}
		cf := ConfigFile{Path: path, Format: format, Set: map[string]string{}}
		for _, k := range slices.Sorted(maps.Keys(f.Find)) {
			if err := CheckEditKey(format, k); err != nil {
				im.skip(field+".find."+strconv.Quote(k), "%v", err)
				continue
			}
			var val string
			if json.Unmarshal(f.Find[k], &val) != nil {
				im.skip(field+".find."+strconv.Quote(k), "not a plain string value")
				continue
			}
			v, err := im.eggRefs(val)
			if err != nil {
				im.skip(field+".find."+strconv.Quote(k), "%v", err)
				continue
			}
			cf.Set[k] = v
		}
		if len(cf.Set) > 0 {
			im.t.ConfigFiles = append(im.t.ConfigFiles, cf)
		}
	}
}
