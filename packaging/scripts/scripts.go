// Package scripts renders the deb and rpm maintainer scripts of the three
// packages (packaging/nfpm) from one template per hook (*.sh.tmpl) and the
// per-package values in packages.go, so that creating the user, the
// directories and the systemd handling are each written once. nfpm reads
// the rendered files from dist/stage/scripts: packaging/build.sh renders
// them there with mkscripts, and packaging/pkgtest runs the same program
// before it runs the scripts. Nothing rendered is committed.
package scripts

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

// Hooks are nfpm's script names; each is rendered from <hook>.sh.tmpl.
var Hooks = []string{"preinstall", "postinstall", "preremove", "postremove"}

//go:embed *.sh.tmpl
var templates embed.FS

var tmpl = template.Must(template.New("").Option("missingkey=error").Funcs(template.FuncMap{
	"join":   strings.Join,
	"concat": func(a, b []string) []string { return slices.Concat(a, b) },
	"add":    func(a, b int) int { return a + b },
}).ParseFS(templates, "*.sh.tmpl"))

// FileName is the name a package's script for hook is rendered to, as the
// nfpm configs name it under dist/stage/scripts.
func FileName(pkg, hook string) string { return pkg + "-" + hook + ".sh" }

// Script renders one package's script for hook.
func Script(pkg, hook string) ([]byte, error) {
	p, ok := packages[pkg]
	if !ok {
		return nil, fmt.Errorf("no package %q (want one of %v)", pkg, PackageNames())
	}
	if !slices.Contains(Hooks, hook) {
		return nil, fmt.Errorf("no hook %q (want one of %v)", hook, Hooks)
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, hook+".sh.tmpl", p.resolve()); err != nil {
		return nil, fmt.Errorf("render %s: %w", FileName(pkg, hook), err)
	}
	return b.Bytes(), nil
}

// Render writes every package's scripts into dir (created if missing).
func Render(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("render scripts: %w", err)
	}
	for _, pkg := range PackageNames() {
		for _, hook := range Hooks {
			b, err := Script(pkg, hook)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, FileName(pkg, hook)), b, 0o755); err != nil {
				return fmt.Errorf("render scripts: %w", err)
			}
		}
	}
	return nil
}

// PackageNames are the packages' short names (agent, panel, world), as
// their nfpm configs are named, sorted.
func PackageNames() []string { return slices.Sorted(maps.Keys(packages)) }
