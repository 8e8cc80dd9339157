package main

import (
	"fmt"
	"slices"
	"strings"
)

// phasePrefix marks a per-phase metric: phase:<phase>:<unit>, e.g.
// phase:inputs:p99-ms. Such metrics are left out of the main table and
// rendered as a table of their own per benchmark: one row per phase, one
// column per sub-benchmark and unit.
const phasePrefix = "phase:"

// tickOrder is the order worldsrv's tick runs its phases in; phases of
// other benchmarks keep the order they were first reported in, after these.
var tickOrder = []string{"world", "inputs", "npcs", "players", "logouts", "logins",
	"process_ether_inbound", "zones", "info", "outputs", "cleanup"}

// phaseRank sorts phases by tickOrder, unknown ones last.
func phaseRank(phase string) int {
	if i := slices.Index(tickOrder, phase); i >= 0 {
		return i
	}
	return len(tickOrder)
}

// phaseUnit splits a per-phase unit into its phase and unit.
func phaseUnit(unit string) (phase, u string, ok bool) {
	rest, ok := strings.CutPrefix(unit, phasePrefix)
	if !ok {
		return "", "", false
	}
	phase, u, ok = strings.Cut(rest, ":")
	return phase, u, ok && phase != "" && u != ""
}

// renderPhases writes a phase table for each benchmark of rs that reports
// per-phase metrics.
func renderPhases(b *strings.Builder, rs []result) {
	var tops []string
	byTop := map[string][]result{}
	for _, r := range rs {
		if !hasPhases(r) {
			continue
		}
		top := topName(r.name)
		if _, ok := byTop[top]; !ok {
			tops = append(tops, top)
		}
		byTop[top] = append(byTop[top], r)
	}
	for _, top := range tops {
		phaseTable(b, top, byTop[top])
	}
}

func hasPhases(r result) bool {
	for _, m := range r.metrics {
		if _, _, ok := phaseUnit(m.unit); ok {
			return true
		}
	}
	return false
}

// phaseTable: rows are phases (tickOrder first, then as first reported),
// columns are (sub-benchmark, unit) pairs in the order reported; values
// with three decimals.
func phaseTable(b *strings.Builder, top string, rs []result) {
	type column struct {
		r    result
		unit string
	}
	var phases []string
	var cols []column
	for _, r := range rs {
		var units []string
		for _, m := range r.metrics {
			phase, u, ok := phaseUnit(m.unit)
			if !ok {
				continue
			}
			if !slices.Contains(phases, phase) {
				phases = append(phases, phase)
			}
			if !slices.Contains(units, u) {
				units = append(units, u)
				cols = append(cols, column{r, u})
			}
		}
	}
	slices.SortStableFunc(phases, func(a, b string) int { return phaseRank(a) - phaseRank(b) })
	fmt.Fprintf(b, "Per phase, `%s`:\n\n| phase |", strings.TrimPrefix(top, "Benchmark"))
	for _, c := range cols {
		_, leaf := split(c.r.name)
		if leaf == "" {
			leaf = strings.TrimPrefix(c.r.name, "Benchmark")
		}
		fmt.Fprintf(b, " %s %s |", leaf, c.unit)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, phase := range phases {
		fmt.Fprintf(b, "| %s |", phase)
		for _, c := range cols {
			if v, ok := c.r.get(phasePrefix + phase + ":" + c.unit); ok {
				fmt.Fprintf(b, " %.3f |", v)
			} else {
				b.WriteString("  |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}
