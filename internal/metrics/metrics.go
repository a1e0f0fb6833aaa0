// Package metrics is the hub's Prometheus instrumentation. Domain packages
// know nothing of Prometheus: each reports through a small observer
// interface of its own (dispatch.Observer, billing.Observer, …), which
// Metrics implements; the hub wires them and serves Handler on a listen
// address of its own (HOSTGATE_METRICS_ADDR), away from the public API.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "hostgate"

// Latency buckets: loopback round trips are sub-millisecond, agent
// commands run up to minutes.
var (
	fastBuckets  = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	agentBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
)

// Metrics holds the hub's collectors in a registry of its own.
type Metrics struct {
	reg *prometheus.Registry

	commands        *prometheus.CounterVec
	commandSeconds  *prometheus.HistogramVec
	charges         *prometheus.CounterVec
	requests        *prometheus.CounterVec
	requestSeconds  *prometheus.HistogramVec
	deliveries      *prometheus.CounterVec
	deliverySeconds *prometheus.HistogramVec
	redisCalls      *prometheus.CounterVec
	redisSeconds    prometheus.Histogram
}

// New returns the hub's metrics with the Go runtime and process
// collectors registered.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := factory{m.reg}
	m.commands = f.counter("commands_total", "Agent commands by operation and outcome (ok, agent_error, host_offline, agent_timeout, error).", "op", "outcome")
	m.commandSeconds = f.histogram("command_duration_seconds", "Agent command round trips, from send to answer, by operation.", agentBuckets, "op")
	m.charges = f.counter("charges_total", "Client API charges by pricing rule and outcome (charged, insufficient_balance, error).", "rule", "outcome")
	m.requests = f.counter("http_requests_total", "HTTP requests by route pattern and status code.", "route", "code")
	m.requestSeconds = f.histogram("http_request_duration_seconds", "HTTP request durations by route pattern.", fastBuckets, "route")
	m.deliveries = f.counter("webhook_attempts_total", "Webhook delivery attempts by resulting status (success, retrying, dead_letter).", "status")
	m.deliverySeconds = f.histogram("webhook_delivery_seconds",
		"Webhook timings: the attempt itself (phase=attempt) and, for successes, enqueue to delivered (phase=end_to_end).", agentBuckets, "phase")
	m.redisCalls = f.counter("redis_round_trips_total", "Round trips to Redis (a pipeline counts once) by outcome (ok, error).", "outcome")
	m.redisSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "redis_round_trip_seconds",
		Help: "Redis round-trip durations.", Buckets: fastBuckets})
	m.reg.MustRegister(m.redisSeconds,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Gauge registers a gauge read at each scrape, such as connected agents.
func (m *Metrics) Gauge(name, help string, read func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, read))
}

// CountGauge registers a gauge read at each scrape from a source that may
// fail or be slow (a database count); a failed read reports nothing.
func (m *Metrics) CountGauge(name, help string, read func(ctx context.Context) (int64, error)) {
	m.reg.MustRegister(&countGauge{desc: prometheus.NewDesc(namespace+"_"+name, help, nil, nil), read: read})
}

type countGauge struct {
	desc *prometheus.Desc
	read func(ctx context.Context) (int64, error)
}

func (g *countGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *countGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if n, err := g.read(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(n))
	}
}

// DBPools registers the database pools' statistics (open, in use, idle
// connections; waits), labelled by pool name ("write", "read").
func (m *Metrics) DBPools(stats func() map[string]sql.DBStats) {
	m.reg.MustRegister(&poolCollector{stats: stats})
}

var (
	poolOpen      = prometheus.NewDesc(namespace+"_db_connections_open", "Open database connections.", []string{"pool"}, nil)
	poolInUse     = prometheus.NewDesc(namespace+"_db_connections_in_use", "Database connections in use.", []string{"pool"}, nil)
	poolIdle      = prometheus.NewDesc(namespace+"_db_connections_idle", "Idle database connections.", []string{"pool"}, nil)
	poolMax       = prometheus.NewDesc(namespace+"_db_connections_max", "The pool's connection limit (0: none).", []string{"pool"}, nil)
	poolWaits     = prometheus.NewDesc(namespace+"_db_waits_total", "Times a caller waited for a free connection.", []string{"pool"}, nil)
	poolWaitTotal = prometheus.NewDesc(namespace+"_db_wait_seconds_total", "Time spent waiting for a free connection.", []string{"pool"}, nil)
)

type poolCollector struct{ stats func() map[string]sql.DBStats }

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolOpen, poolInUse, poolIdle, poolMax, poolWaits, poolWaitTotal} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for name, s := range c.stats() {
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.OpenConnections), name)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.InUse), name)
		ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.Idle), name)
		ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxOpenConnections), name)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount), name)
		ch <- prometheus.MustNewConstMetric(poolWaitTotal, prometheus.CounterValue, s.WaitDuration.Seconds(), name)
	}
}

// CommandDone implements dispatch.Observer.
func (m *Metrics) CommandDone(op, outcome string, took time.Duration) {
	m.commands.WithLabelValues(op, outcome).Inc()
	m.commandSeconds.WithLabelValues(op).Observe(took.Seconds())
}

// ChargeDone implements billing.Observer.
func (m *Metrics) ChargeDone(rule, outcome string) {
	m.charges.WithLabelValues(rule, outcome).Inc()
}

// RequestDone records one HTTP request; route is its mux pattern
// ("unmatched" when none), never the raw path, to keep labels bounded.
func (m *Metrics) RequestDone(route string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestSeconds.WithLabelValues(route).Observe(took.Seconds())
}

// DeliveryAttempt implements deliveries.Observer.
func (m *Metrics) DeliveryAttempt(status string, took, sinceEnqueued time.Duration) {
	m.deliveries.WithLabelValues(status).Inc()
	m.deliverySeconds.WithLabelValues("attempt").Observe(took.Seconds())
	if status == "success" {
		m.deliverySeconds.WithLabelValues("end_to_end").Observe(sinceEnqueued.Seconds())
	}
}

// RedisRoundTrip implements the Redis coordinator's round-trip observer.
func (m *Metrics) RedisRoundTrip(took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.redisCalls.WithLabelValues(outcome).Inc()
	m.redisSeconds.Observe(took.Seconds())
}
