package world

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// The world's metrics, kept small for now: players and connections, the
// tick (whole and per phase, over the engine's last 100 ticks), logins by
// code, disconnects by cause, and the sidecar link.
var (
	descPlayers     = prometheus.NewDesc("worldsrv_players", "Players online.", nil, nil)
	descClients     = prometheus.NewDesc("worldsrv_connections_open", "Game connections open (TCP and WebSocket).", nil, nil)
	descAccepted    = prometheus.NewDesc("worldsrv_connections_accepted_total", "Game connections accepted.", nil, nil)
	descTicks       = prometheus.NewDesc("worldsrv_ticks_total", "Ticks run.", nil, nil)
	descOverruns    = prometheus.NewDesc("worldsrv_tick_overruns_total", "Ticks that took longer than the interval.", nil, nil)
	descTick        = prometheus.NewDesc("worldsrv_tick_seconds", "Tick work time over the last 100 ticks.", []string{"quantile"}, nil)
	descPhase       = prometheus.NewDesc("worldsrv_tick_phase_seconds", "Tick phase time over the last 100 ticks.", []string{"phase", "quantile"}, nil)
	descLogins      = prometheus.NewDesc("worldsrv_logins_total", "Login answers by code.", []string{"code"}, nil)
	descDisconnects = prometheus.NewDesc("worldsrv_disconnects_total", "Clients disconnected by the world, by cause.", []string{"cause"}, nil)
	descEtherUp     = prometheus.NewDesc("worldsrv_ether_up", "1 when the sidecar link is up.", nil, nil)
	descEtherSent   = prometheus.NewDesc("worldsrv_ether_sent_total", "Frames written to the sidecar.", nil, nil)
	descEtherRecv   = prometheus.NewDesc("worldsrv_ether_received_total", "Frames received from the sidecar.", nil, nil)
	descEtherDrop   = prometheus.NewDesc("worldsrv_ether_dropped_total", "Frames to the sidecar dropped.", nil, nil)
	descEtherConn   = prometheus.NewDesc("worldsrv_ether_reconnects_total", "Sidecar link reconnects.", nil, nil)
)

// collector reads the engine's, the listeners' and the link's snapshots at
// each scrape.
type collector struct{ w *World }

func (c *collector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st, ns := c.w.engine.Stats(), c.w.net.Stats()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(descPlayers, float64(st.Players))
	gauge(descClients, float64(ns.Open))
	counter(descAccepted, ns.Accepted)
	counter(descTicks, st.Ticks)
	counter(descOverruns, st.Overruns)
	gauge(descTick, st.Tick.P50.Seconds(), "0.5")
	gauge(descTick, st.Tick.P99.Seconds(), "0.99")
	for _, ph := range st.Phases {
		gauge(descPhase, ph.P50.Seconds(), ph.Name, "0.5")
		gauge(descPhase, ph.P99.Seconds(), ph.Name, "0.99")
	}
	for code, n := range st.Logins {
		if proto.LoginCode(code).Defined() {
			counter(descLogins, n, strconv.Itoa(code))
		}
	}
	counter(descDisconnects, st.SlowDisconnects+ns.SlowWrites, "slow")
	counter(descDisconnects, st.Floods, "flood")
	counter(descDisconnects, st.Idle, "idle")
	counter(descDisconnects, st.BadFrames+ns.BadFrames, "bad_frame")
	counter(descDisconnects, st.AcceptBusy, "busy")
	if c.w.link == nil {
		return
	}
	ls := c.w.link.Stats()
	up := 0.0
	if ls.Up {
		up = 1
	}
	gauge(descEtherUp, up)
	counter(descEtherSent, ls.Sent)
	counter(descEtherRecv, ls.Received)
	counter(descEtherDrop, ls.Dropped.Total())
	counter(descEtherConn, ls.Reconnects)
}
