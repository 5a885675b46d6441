// Package metricscheck parses the /metrics answer of a running
// `sessionsearch serve` with Prometheus's own parser, so that the text
// that package server writes by hand (docs/serve.md H16) is what a
// Prometheus server reads. It is a module of its own so that the library
// never links prometheus/common.
package metricscheck

import (
	"bufio"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// binary is the CLI that `make` builds before the tests.
var binary = filepath.Join("..", "..", "..", "bin", "sessionsearch")

func TestMetricsParse(t *testing.T) {
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "s.db"), "--insecure-loopback-no-auth")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%v (make builds %s)", err, binary)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + strings.TrimPrefix(strings.TrimSpace(line), "listening on ")
	post := func(path, body string) {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	post("/v1/append", `{"sessions":[{"sessionKey":"agent:main:main"}],"events":[{"sessionKey":"agent:main:main","seq":0,"event":{"type":"message","id":"m0","message":{"role":"user","content":"hello"}}}]}`)
	post("/v1/search", `{"query":"hello","caller":"agent:main:main"}`)
	post("/v1/search", `{"query":"hello"}`) // 400: no caller
	post("/nowhere", `{}`)

	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := expfmt.ResponseFormat(resp.Header); got.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("Content-Type %q is read as %v", resp.Header.Get("Content-Type"), got)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("Prometheus's parser refuses /metrics: %v", err)
	}
	types := map[string]dto.MetricType{
		"sessionsearch_http_requests_total":           dto.MetricType_COUNTER,
		"sessionsearch_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"sessionsearch_last_append_timestamp_seconds": dto.MetricType_GAUGE,
		"sessionsearch_database_up":                   dto.MetricType_GAUGE,
		"sessionsearch_database_bytes":                dto.MetricType_GAUGE,
		"sessionsearch_pending_sessions":              dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		f, ok := families[name]
		if !ok || f.GetType() != typ || f.GetHelp() == "" {
			t.Errorf("%s: %v", name, f)
		}
	}
	if len(families) != len(types) {
		t.Errorf("%d families, want %d", len(families), len(types))
	}
	counts := map[string]float64{}
	for _, m := range families["sessionsearch_http_requests_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		counts[labels["endpoint"]+" "+labels["status"]] = m.GetCounter().GetValue()
	}
	for k, want := range map[string]float64{"/v1/append 200": 1, "/v1/search 200": 1, "/v1/search 400": 1, "other 404": 1} {
		if counts[k] != want {
			t.Errorf("requests %s = %v, want %v (all: %v)", k, counts[k], want, counts)
		}
	}
	for _, m := range families["sessionsearch_http_request_duration_seconds"].GetMetric() {
		h := m.GetHistogram()
		buckets := h.GetBucket()
		for i := 1; i < len(buckets); i++ {
			if buckets[i].GetCumulativeCount() < buckets[i-1].GetCumulativeCount() || buckets[i].GetUpperBound() <= buckets[i-1].GetUpperBound() {
				t.Errorf("histogram buckets out of order: %v", buckets)
			}
		}
		if h.GetSampleCount() == 0 || h.GetSampleSum() <= 0 || buckets[len(buckets)-1].GetCumulativeCount() > h.GetSampleCount() {
			t.Errorf("histogram %v", h)
		}
	}
	if v := families["sessionsearch_database_bytes"].GetMetric()[0].GetGauge().GetValue(); v <= 0 {
		t.Errorf("database bytes %v", v)
	}
}
