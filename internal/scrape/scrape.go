// Package scrape builds the Prometheus collectors that read a program's
// state at scrape time (the agent's and ether's /metrics): a table of
// metric definitions, a function that emits their values, and the
// registry a program serves them from beside Go's and the process's own.
package scrape

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Def is one metric of a Collector's table.
type Def struct {
	Name   string
	Help   string
	Labels []string // the variable labels, in the order Emit's calls give their values
}

// Collector is a prometheus.Collector over a fixed table of metrics whose
// values are read at each scrape by its collect function.
type Collector struct {
	descs   map[string]*prometheus.Desc // immutable after New
	collect func(Emit)                  // immutable after New
}

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector of the metrics in defs; collect emits their
// values at each scrape.
func New(defs []Def, collect func(Emit)) *Collector {
	c := &Collector{descs: make(map[string]*prometheus.Desc, len(defs)), collect: collect}
	for _, d := range defs {
		c.descs[d.Name] = prometheus.NewDesc(d.Name, d.Help, d.Labels, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.collect(Emit{descs: c.descs, ch: ch})
}

// Emit sends the values of one scrape. Naming a metric that is not in the
// table, or giving the wrong number of label values, panics: it is a
// mistake in the program, which its metrics test finds.
type Emit struct {
	descs map[string]*prometheus.Desc
	ch    chan<- prometheus.Metric
}

// Gauge emits the value of the gauge name.
func (e Emit) Gauge(name string, v float64, labels ...string) {
	e.ch <- prometheus.MustNewConstMetric(e.desc(name), prometheus.GaugeValue, v, labels...)
}

// Counter emits the value of the counter name.
func (e Emit) Counter(name string, v float64, labels ...string) {
	e.ch <- prometheus.MustNewConstMetric(e.desc(name), prometheus.CounterValue, v, labels...)
}

// Flag emits the gauge name as 1 when on, 0 when not.
func (e Emit) Flag(name string, on bool, labels ...string) {
	v := 0.0
	if on {
		v = 1
	}
	e.Gauge(name, v, labels...)
}

func (e Emit) desc(name string) *prometheus.Desc {
	d, ok := e.descs[name]
	if !ok {
		panic(fmt.Sprintf("scrape: metric %q is not in the collector's table", name))
	}
	return d
}

// Registry returns a registry of cs and of Go's and the process's
// collectors (go_*, process_*), as the agent's and ether's /metrics serve.
func Registry(cs ...prometheus.Collector) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
