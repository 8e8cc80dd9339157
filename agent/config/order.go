package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// StartOrder returns every instance (managed or not) in an order where each
// comes after the instances it depends on: at each step, the earliest
// instance in the file whose dependencies are all placed. So a file with
// no depends_on keeps its order. A depends_on naming an unknown instance or
// itself, or a cycle, is an error (the same FieldErrors Validate reports).
func (c *Config) StartOrder() ([]*Instance, error) {
	g := c.graph()
	if errs := append(g.problems, g.cycles()...); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	n := len(c.Instances)
	placed := make([]bool, n)
	order := make([]*Instance, 0, n)
	for len(order) < n {
		progress := false
		for i := 0; i < n && !progress; i++ {
			if !placed[i] && g.ready(i, placed) {
				placed[i], progress = true, true
				order = append(order, &c.Instances[i])
			}
		}
		if !progress {
			return nil, errors.New("start order: dependency cycle") // unreachable: cycles() found none
		}
	}
	return order, nil
}

// depGraph is the depends_on graph by instance index.
type depGraph struct {
	ids      []string
	edges    [][]int // edges[i]: the instances i depends on (known, not itself)
	problems []error // unknown and self dependencies
}

func (c *Config) graph() *depGraph {
	n := len(c.Instances)
	g := &depGraph{ids: make([]string, n), edges: make([][]int, n)}
	index := make(map[string]int, n)
	for i := range c.Instances {
		g.ids[i] = c.Instances[i].ID
		if _, dup := index[g.ids[i]]; !dup {
			index[g.ids[i]] = i
		}
	}
	for i := range c.Instances {
		in := &c.Instances[i]
		for k, dep := range in.DependsOn {
			field := "instance[" + strconv.Itoa(i) + "].depends_on[" + strconv.Itoa(k) + "]"
			j, ok := index[dep]
			switch {
			case dep == in.ID:
				g.problems = append(g.problems, &FieldError{Field: field, Err: fmt.Errorf("%q is the instance itself", dep)})
			case !ok:
				g.problems = append(g.problems, &FieldError{Field: field, Err: fmt.Errorf("%q is not a configured instance", dep)})
			default:
				g.edges[i] = append(g.edges[i], j)
			}
		}
	}
	return g
}

// ready reports whether every dependency of i is placed.
func (g *depGraph) ready(i int, placed []bool) bool {
	for _, j := range g.edges[i] {
		if !placed[j] {
			return false
		}
	}
	return true
}

// cycles finds dependency cycles by depth-first search in file order and
// reports each once, on the depends_on of its first instance:
// `instance[0].depends_on: dependency cycle: a → b → a`. A cycle sharing an
// instance with one already reported is not reported again.
func (g *depGraph) cycles() []error {
	const (
		white = iota
		gray
		black
	)
	color := make([]int, len(g.ids))
	reported := make([]bool, len(g.ids))
	var stack []int
	var errs []error
	var visit func(i int)
	visit = func(i int) {
		color[i] = gray
		stack = append(stack, i)
		for _, j := range g.edges[i] {
			switch color[j] {
			case white:
				visit(j)
			case gray:
				if err := g.cycleAt(stack, j, reported); err != nil {
					errs = append(errs, err)
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range g.ids {
		if color[i] == white {
			visit(i)
		}
	}
	return errs
}

// cycleAt describes the cycle closed by an edge back to j, which is on the
// stack; nil when it touches an already reported cycle.
func (g *depGraph) cycleAt(stack []int, j int, reported []bool) error {
	k := len(stack) - 1
	for stack[k] != j {
		k--
	}
	cyc := stack[k:]
	names := make([]string, 0, len(cyc)+1)
	for _, i := range cyc {
		if reported[i] {
			return nil
		}
		names = append(names, g.ids[i])
	}
	for _, i := range cyc {
		reported[i] = true
	}
	names = append(names, g.ids[j])
	return &FieldError{
		Field: "instance[" + strconv.Itoa(j) + "].depends_on",
		Err:   fmt.Errorf("dependency cycle: %s", strings.Join(names, " → ")),
	}
}
