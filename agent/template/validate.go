package template

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/agent/config"
)

var (
	idRE       = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	portNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	repoRE     = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$`)
)

// Signals a stop of kind signal may send.
var Signals = config.StopSignals

// Extracts, ConfigFormats, Protocols: the values those fields accept.
var (
	Extracts      = []Extract{ExtractNone, ExtractZip, ExtractTarGz}
	ConfigFormats = []Format{FormatProperties, FormatINI, FormatJSON, FormatYAML, FormatXML, FormatLinePrefix}
	Protocols     = []Protocol{ProtocolTCP, ProtocolUDP}
)

// Validate checks the whole template and returns every problem, joined
// (each a *FieldError naming the field's path), or nil. It expects the
// defaults filled (Parse does): a hand-built template sets every field
// docs/templates.md gives a default for. It does not change t.
func (t *Template) Validate() error {
	var p problems
	if !idRE.MatchString(t.ID) {
		p.add("id", "%q is not a template id (want [a-z0-9][a-z0-9_-]{0,63})", t.ID)
	}
	text(&p, "name", t.Name, 100)
	if !slices.Contains(config.Games, t.Game) {
		p.add("game", "%q is not a known game (want %s)", t.Game, strings.Join(config.Games, ", "))
	}
	if t.Version < 1 {
		p.add("version", "%d is too small (want at least 1)", t.Version)
	}
	if t.Description != "" { // optional
		text(&p, "description", t.Description, 2000)
	}
	t.validateVariables(&p)
	t.validatePorts(&p)
	for i := range t.Sources {
		t.validateSource(&p, fmt.Sprintf("source[%d]", i), &t.Sources[i])
	}
	t.validateRun(&p)
	for i := range t.ConfigFiles {
		t.validateConfigFile(&p, fmt.Sprintf("config_file[%d]", i), &t.ConfigFiles[i])
	}
	return p.err()
}

// text: a required one-line field of at most limit characters.
func text(p *problems, field, s string, limit int) {
	switch {
	case strings.TrimSpace(s) == "":
		p.add(field, "must be set")
	case len([]rune(s)) > limit:
		p.add(field, "is longer than %d characters", limit)
	case strings.ContainsAny(s, "\x00"):
		p.add(field, "holds a NUL character")
	}
}

// templated checks a templated field: well-formed references to declared
// variables only.
func (t *Template) templated(p *problems, field, s string) {
	keys, err := References(s)
	if err != nil {
		p.addErr(field, err)
		return
	}
	for _, k := range keys {
		if t.variable(k) == nil {
			p.add(field, "{{%s}}: %w", k, ErrUnknownVariable)
		}
	}
}

// relPath checks a path relative to the instance root that must stay
// inside it ("" allowed when empty is).
func relPath(p *problems, field, s string, emptyOK bool) {
	switch {
	case s == "" && emptyOK:
	case s == "":
		p.add(field, "must be set")
	case strings.ContainsAny(s, "\x00\\:"):
		p.add(field, "%q holds a NUL, a backslash or a colon (want a slash-separated relative path)", s)
	case path.IsAbs(s):
		p.add(field, "%q is absolute (want a path relative to the instance root)", s)
	case path.Clean(s) == ".." || strings.HasPrefix(path.Clean(s), "../"):
		p.add(field, "%q leaves the instance root", s)
	}
}

func oneOf[T ~string](p *problems, field string, s T, allowed []T) {
	if !slices.Contains(allowed, s) {
		p.add(field, "%q is not one of %s", s, strings.Join(quoteAll(allowed), ", "))
	}
}

func quoteAll[T ~string](ss []T) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(string(s))
	}
	return out
}

func (t *Template) validateSource(p *problems, pre string, s *Source) {
	n := 0
	for _, set := range []bool{s.SteamCMD != nil, s.HTTP != nil, s.GitHubRelease != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		p.add(pre, "has %d of steamcmd, http, github_release (want exactly one)", n)
	}
	if s.When != nil {
		t.validateCondition(p, pre+".when", s.When)
	}
	if s.SteamCMD != nil {
		t.validateSteamCMD(p, pre+".steamcmd", s.SteamCMD)
	}
	if h := s.HTTP; h != nil {
		pre := pre + ".http"
		t.checkTemplated(p, pre+".url", h.URL, checkURL)
		t.checkTemplated(p, pre+".sha256", h.SHA256, checkSHA256)
		oneOf(p, pre+".extract", h.Extract, Extracts)
		relPath(p, pre+".into", h.Into, true)
	}
	if g := s.GitHubRelease; g != nil {
		pre := pre + ".github_release"
		if !repoRE.MatchString(g.Repo) {
			p.add(pre+".repo", "%q is not a GitHub repository (want owner/name)", g.Repo)
		}
		if g.Asset == "" || strings.ContainsAny(g.Asset, "/\\\x00") {
			p.add(pre+".asset", "%q is not an asset file name", g.Asset)
		}
		oneOf(p, pre+".extract", g.Extract, Extracts)
		relPath(p, pre+".into", g.Into, true)
		oneOf(p, pre+".reapply", g.Reapply, []Reapply{ReapplyNever, ReapplyAfterGameUpdate})
	}
}

// checkTemplated: a value check passes, or s is templated (and Render
// checks the rendered value).
func (t *Template) checkTemplated(p *problems, field, s string, check func(string) error) {
	if keys, _ := References(s); len(keys) > 0 {
		t.templated(p, field, s)
		for _, k := range keys {
			if v := t.variable(k); v != nil && v.Type == TypeSecret {
				p.add(field, "{{%s}} is a secret (its value would show in a download's errors and logs)", k)
			}
		}
		return
	}
	if err := check(s); err != nil {
		p.addErr(field, err)
	}
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http or https URL", s)
	}
	return nil
}

func checkSHA256(s string) error {
	if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
		return fmt.Errorf("%q is not 64 hex digits", s)
	}
	return nil
}

func (t *Template) validateCondition(p *problems, pre string, c *Condition) {
	v := t.variable(c.Variable)
	if v == nil {
		p.add(pre+".variable", "%q: %w", c.Variable, ErrUnknownVariable)
		return
	}
	if v.Type == TypeSecret {
		p.add(pre+".variable", "%q is a secret (a condition may not depend on one)", c.Variable)
		return
	}
	if err := v.check(c.Equals); err != nil {
		p.add(pre+".equals", "can never hold: %w", err)
	}
}

func (t *Template) validateSteamCMD(p *problems, pre string, s *SteamCMD) {
	if s.AppID < 1 {
		p.add(pre+".app_id", "%d is not a Steam app id (want at least 1)", s.AppID)
	}
	t.templated(p, pre+".branch", s.Branch)
	t.templated(p, pre+".beta_password", s.BetaPassword)
	if s.BetaPassword != "" && s.Branch == "" {
		p.add(pre+".beta_password", "is set without a branch")
	}
	oneOf(p, pre+".platform", s.Platform, []Platform{PlatformLinux, PlatformWindows})
	seen := map[int]bool{s.AppID: true}
	for i, a := range s.ExtraApps {
		switch {
		case a < 1:
			p.add(fmt.Sprintf("%s.extra_apps[%d]", pre, i), "%d is not a Steam app id (want at least 1)", a)
		case seen[a]:
			p.add(fmt.Sprintf("%s.extra_apps[%d]", pre, i), "%d is listed twice", a)
		}
		seen[a] = true
	}
	oneOf(p, pre+".validate", s.Validate, []ValidateMode{ValidateNever, ValidateInstallOnly, ValidateAlways})
}

func (t *Template) validateConfigFile(p *problems, pre string, c *ConfigFile) {
	relPath(p, pre+".path", c.Path, false)
	oneOf(p, pre+".format", c.Format, ConfigFormats)
	if len(c.Set) == 0 {
		p.add(pre+".set", "is empty (want at least one key)")
	}
	for _, k := range sortedKeys(c.Set) {
		if err := CheckEditKey(c.Format, k); err != nil {
			p.addErr(pre+".set", err)
			continue
		}
		t.templated(p, pre+".set."+strconv.Quote(k), c.Set[k])
	}
}

func (t *Template) validatePorts(p *problems) {
	seen := map[string]int{}
	for i, pt := range t.Ports {
		pre := fmt.Sprintf("port[%d]", i)
		if !portNameRE.MatchString(pt.Name) {
			p.add(pre+".name", "%q is not a port name (want [a-z][a-z0-9_]{0,31})", pt.Name)
		} else if j, dup := seen[pt.Name]; dup {
			p.add(pre+".name", "%q duplicates port[%d]", pt.Name, j)
		} else {
			seen[pt.Name] = i
		}
		oneOf(p, pre+".protocol", pt.Protocol, Protocols)
		if pt.Variable == "" {
			if pt.Default < 1 || pt.Default > 65535 {
				p.add(pre+".default", "%d is out of range (want 1-65535)", pt.Default)
			}
			if pt.Offset != 0 {
				p.add(pre+".offset", "is set without a variable")
			}
			continue
		}
		if pt.Offset < -100 || pt.Offset > 100 {
			p.add(pre+".offset", "%d is out of range (want -100..100)", pt.Offset)
		}
		if v := t.variable(pt.Variable); v == nil || v.Type != TypePort {
			p.add(pre+".variable", "%q is not a port variable of this template", pt.Variable)
		}
		if pt.Default != 0 {
			p.add(pre+".default", "is set with a variable (the variable's default applies)")
		}
	}
}
