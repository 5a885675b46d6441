package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// GET /metrics: the Prometheus text exposition format, version 0.0.4
// (docs/serve.md H16). It is written here rather than with
// prometheus/client_golang, whose eight modules (protobuf and procfs among
// them) add 4.3 MB to a binary for a handful of counters and histograms;
// server/internal/metricscheck parses what a running server answers with
// Prometheus's own parser.
//
// No label holds a query, a session key, a caller or a token: requests are
// counted by endpoint (the route's pattern, "/v1/sessions/{key}" for every
// key) and status only.

// latencyBuckets are the upper bounds of the latency histogram, in seconds:
// a search takes about a millisecond, an append of a big transcript
// seconds.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// metrics are a handler's counts since it started.
type metrics struct {
	mu         sync.Mutex
	byRequest  map[requestKey]*latency
	lastAppend atomic.Int64 // Unix ms of the last POST /v1/append answered 200; 0: none
}

type requestKey struct {
	endpoint string
	status   int
}

// latency is one histogram: counts per bucket (not cumulative), count and
// sum.
type latency struct {
	buckets []uint64
	count   uint64
	sum     float64
}

// observe counts a request, by the mux pattern it matched.
func (m *metrics) observe(pattern string, status int, d time.Duration) {
	_, path, ok := strings.Cut(pattern, " ")
	if !ok {
		path = pattern
	}
	if path == "/" || path == "" {
		path = "other" // outside the API: its path is whatever the client sent
	}
	if path == "/v1/append" && status == http.StatusOK {
		m.lastAppend.Store(time.Now().UnixMilli())
	}
	k := requestKey{path, status}
	seconds := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byRequest == nil {
		m.byRequest = map[requestKey]*latency{}
	}
	l := m.byRequest[k]
	if l == nil {
		l = &latency{buckets: make([]uint64, len(latencyBuckets))}
		m.byRequest[k] = l
	}
	if i, _ := slices.BinarySearch(latencyBuckets, seconds); i < len(latencyBuckets) {
		l.buckets[i]++
	}
	l.count++
	l.sum += seconds
}

// serveMetrics answers GET /metrics: the request counts, and the store's
// gauges read now.
func (h *Handler) serveMetrics(ctx context.Context, c *call) ([]byte, int, *Error) {
	var b bytes.Buffer
	h.metrics.write(&b)
	h.storeGauges(ctx, &b)
	c.w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	c.w.Header().Set("Cache-Control", "no-store")
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b.Bytes())
	return nil, 0, nil
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	keys := make([]requestKey, 0, len(m.byRequest))
	copies := map[requestKey]latency{}
	for k, l := range m.byRequest {
		keys = append(keys, k)
		copies[k] = latency{slices.Clone(l.buckets), l.count, l.sum}
	}
	m.mu.Unlock()
	slices.SortFunc(keys, func(a, b requestKey) int {
		if c := strings.Compare(a.endpoint, b.endpoint); c != 0 {
			return c
		}
		return a.status - b.status
	})
	family(w, "sessionsearch_http_requests_total", "counter", "HTTP requests answered, by endpoint and status.")
	for _, k := range keys {
		sample(w, "sessionsearch_http_requests_total", float64(copies[k].count), "endpoint", k.endpoint, "status", strconv.Itoa(k.status))
	}
	family(w, "sessionsearch_http_request_duration_seconds", "histogram", "Time from a request's arrival to its answer, by endpoint and status.")
	for _, k := range keys {
		l, status := copies[k], strconv.Itoa(k.status)
		var cumulative uint64
		for i, bound := range latencyBuckets {
			cumulative += l.buckets[i]
			sample(w, "sessionsearch_http_request_duration_seconds_bucket", float64(cumulative), "endpoint", k.endpoint, "status", status, "le", formatValue(bound))
		}
		sample(w, "sessionsearch_http_request_duration_seconds_bucket", float64(l.count), "endpoint", k.endpoint, "status", status, "le", "+Inf")
		sample(w, "sessionsearch_http_request_duration_seconds_sum", l.sum, "endpoint", k.endpoint, "status", status)
		sample(w, "sessionsearch_http_request_duration_seconds_count", float64(l.count), "endpoint", k.endpoint, "status", status)
	}
	family(w, "sessionsearch_last_append_timestamp_seconds", "gauge",
		"When this process last answered POST /v1/append with 200, as Unix time; 0 before the first. A pushing client appends at every push, so time() minus this is how long the store has gone without a sync.")
	sample(w, "sessionsearch_last_append_timestamp_seconds", float64(m.lastAppend.Load())/1000)
}

// storeGauges reads the store's size and indexing backlog. A database that
// does not answer within a few seconds gives sessionsearch_database_up 0
// and no other store gauge.
func (h *Handler) storeGauges(ctx context.Context, w io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var size int64
	var index string
	err := h.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()), sessions_index_status()`).
		Scan(&size, &index)
	var status struct {
		PendingSessions *int64 `json:"pendingSessions"`
	}
	if err == nil {
		if err = json.Unmarshal([]byte(index), &status); err == nil && status.PendingSessions == nil {
			err = fmt.Errorf("sessions_index_status() gave %s", index)
		}
	}
	up := 0.0
	if err == nil {
		up = 1
	}
	family(w, "sessionsearch_database_up", "gauge", "1 when the database answered the reads of this scrape, else 0.")
	sample(w, "sessionsearch_database_up", up)
	if err != nil {
		return
	}
	family(w, "sessionsearch_database_bytes", "gauge", "Size of the database: its pages times the page size.")
	sample(w, "sessionsearch_database_bytes", float64(size))
	family(w, "sessionsearch_pending_sessions", "gauge",
		"Sessions whose stored events are not searchable yet, waiting for sessions_reconcile (docs/store.md S8).")
	sample(w, "sessionsearch_pending_sessions", float64(*status.PendingSessions))
}

// family writes the HELP and TYPE lines of a metric.
func family(w io.Writer, name, typ, help string) {
	help = strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(help)
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// sample writes one sample line; labels are name, value pairs.
func sample(w io.Writer, name string, value float64, labels ...string) {
	var b strings.Builder
	b.WriteString(name)
	for i := 0; i+1 < len(labels); i += 2 {
		if i == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(labels[i] + `="` + labelEscaper.Replace(labels[i+1]) + `"`)
	}
	if len(labels) > 0 {
		b.WriteByte('}')
	}
	b.WriteString(" " + formatValue(value) + "\n")
	io.WriteString(w, b.String())
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// formatValue writes a float as the text format spells it.
func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
