package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Peers are the peer programs of a run, each with its index built.
type Peers struct {
	Systems []System
	closers []func()
}

// StartPeers indexes the corpus with each peer binary the config names
// (docs/quality.md QB6), each into a directory of its own under work.
func StartPeers(ctx context.Context, c config, work string, corpus *Corpus, progress func(string, ...any)) (*Peers, error) {
	p := &Peers{}
	if c.deja != "" {
		t0 := time.Now()
		d, err := startDeja(ctx, c.deja, filepath.Join(work, "deja"), corpus)
		if err != nil {
			return nil, err
		}
		progress("deja-vu: indexed in %v", time.Since(t0).Round(time.Millisecond))
		p.Systems = append(p.Systems, d)
	}
	if c.agentsview != "" {
		t0 := time.Now()
		a, stop, err := startAgentsview(ctx, c.agentsview, filepath.Join(work, "agentsview"), corpus)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.closers = append(p.closers, stop)
		progress("agentsview: synced and serving in %v", time.Since(t0).Round(time.Millisecond))
		p.Systems = append(p.Systems, a)
	}
	return p, nil
}

// Close stops what StartPeers started.
func (p *Peers) Close() {
	for _, c := range p.closers {
		c()
	}
}

// runPeer runs a peer's command with HOME set to the corpus's home and
// the extra environment given; it returns standard output, or an error
// with the command's output.
func runPeer(ctx context.Context, home string, env []string, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "HOME="+home), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %q: %v\n%s%s", bin, args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// deja is deja-vu's CLI: `deja index`, then `deja search --json`.
type deja struct {
	bin, home string
	env       []string
	corpus    *Corpus
}

func startDeja(ctx context.Context, bin, dir string, corpus *Corpus) (*deja, error) {
	d := &deja{bin: bin, home: corpus.Home, env: []string{"DEJA_INDEX_DIR=" + dir}, corpus: corpus}
	if _, err := runPeer(ctx, d.home, d.env, bin, "index"); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *deja) Name() string { return "deja-vu" }

// ContentQuery: the words, separated by spaces, as a person types them.
func (d *deja) ContentQuery(words []string) string { return strings.Join(words, " ") }

// Ask runs `deja search --json --limit 25 -- QUERY`. Its answer
// (docs/json-output.md of deja-vu) lists sessions; each holds the messages
// that matched, in the session's order, and the passages deja-vu shows as
// its answer, best first, as snippets (two or three a session). The
// returned messages are those the snippets are cut from, in the snippets'
// order; a message is known by its session and time.
func (d *deja) Ask(ctx context.Context, query string, _ time.Time) (Ranked, error) {
	out, err := runPeer(ctx, d.home, d.env, d.bin, "search", "--json", "--limit", fmt.Sprint(limit), "--", query)
	if err != nil {
		return Ranked{}, err
	}
	var answer struct {
		Hits []struct {
			Session struct {
				ID       string `json:"id"`
				Messages []struct {
					Text string    `json:"text"`
					Time time.Time `json:"time"`
				} `json:"messages"`
			} `json:"session"`
			Snippets []string `json:"snippets"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		return Ranked{}, fmt.Errorf("deja-vu %q: %w in %.300q", query, err, out)
	}
	r := Ranked{Bytes: len(out)}
	for _, h := range answer.Hits {
		s := h.Session
		ref, ok := d.corpus.Sessions[s.ID]
		if !ok {
			return r, fmt.Errorf("deja-vu %q: session %q is not the corpus's", query, s.ID)
		}
		r.Sessions = append(r.Sessions, ref)
		var shown []int
		for _, snippet := range h.Snippets {
			core := []rune(strings.TrimSpace(strings.Trim(snippet, "… ")))
			core = core[:min(len(core), 40)]
			for i, m := range s.Messages {
				if !slices.Contains(shown, i) && strings.Contains(m.Text, string(core)) {
					shown = append(shown, i)
					break
				}
			}
		}
		for _, i := range shown {
			turn, ok := d.corpus.Times[s.ID][s.Messages[i].Time.UnixMilli()]
			if !ok {
				return r, fmt.Errorf("deja-vu %q: session %s has no message at %v", query, s.ID, s.Messages[i].Time)
			}
			r.Turns = append(r.Turns, turn)
		}
	}
	return r, nil
}

// agentsview is agentsview: `agentsview sync`, then a server of its own
// (`agentsview serve`), asked what its CLI's `session search --fts --json`
// asks it.
type agentsview struct {
	bin, home string
	env       []string
	corpus    *Corpus
	base      string // the server's URL
	client    *http.Client
}

// agentsviewOffline keeps agentsview off the network: its telemetry and
// update check off, and the pricing download its server starts (which no
// flag turns off) sent to a proxy on a closed port of this machine, so
// that it fails without a lookup. Its CLI reaches its server on 127.0.0.1,
// which no proxy serves.
var agentsviewOffline = []string{
	"AGENTSVIEW_TELEMETRY_ENABLED=0", "TELEMETRY_ENABLED=0", "AGENTSVIEW_DISABLE_UPDATE_CHECK=1",
	"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
}

func startAgentsview(ctx context.Context, bin, dir string, corpus *Corpus) (*agentsview, func(), error) {
	a := &agentsview{bin: bin, home: corpus.Home, env: append([]string{"AGENTSVIEW_DATA_DIR=" + dir, "AGENTSVIEW_NO_DAEMON=1"}, agentsviewOffline...),
		corpus: corpus, client: &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Minute}}
	if _, err := runPeer(ctx, a.home, a.env, bin, "sync"); err != nil {
		return nil, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	a.base = "http://127.0.0.1:" + port
	var log bytes.Buffer
	serve := exec.Command(bin, "serve", "--host", "127.0.0.1", "--port", port, "--no-sync")
	serve.Env = append(append(os.Environ(), "HOME="+a.home), a.env...)
	serve.Stdout, serve.Stderr = &log, &log
	if err := serve.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	stop := func() {
		serve.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			serve.Process.Kill()
			<-exited
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		resp, err := a.client.Get(a.base + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-exited:
			return nil, nil, fmt.Errorf("agentsview serve exited: %v\n%s", err, log.Bytes())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, nil, fmt.Errorf("agentsview serve did not answer on port %s in 2 minutes:\n%s", port, log.Bytes())
		}
	}
	// The CLI finds the server through the data directory and sends it the
	// request Ask sends: check once that it prints the same answer.
	const probe = `"support" OR "group"`
	cli, err := runPeer(ctx, a.home, a.env, bin, "session", "search", "--fts", "--json", "--limit", fmt.Sprint(limit), "--", probe)
	if err == nil {
		var direct []byte
		if direct, err = a.search(ctx, probe); err == nil && !bytes.Equal(bytes.TrimSpace(cli), bytes.TrimSpace(direct)) {
			err = fmt.Errorf("agentsview: its CLI answers %q with\n%.500s\nbut its server with\n%.500s", probe, cli, direct)
		}
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	return a, stop, nil
}

func (a *agentsview) Name() string { return "agentsview" }

// ContentQuery: the words quoted and joined by OR. A query that starts with
// a quote goes to FTS5 as it is; any other is quoted word by word and so
// needs every word (agentsview's internal/db/search.go PrepareFTSQuery).
func (a *agentsview) ContentQuery(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	return strings.Join(quoted, " OR ")
}

// search asks the server what `agentsview session search --fts --json
// --limit 25 QUERY` asks it (agentsview's internal/service/http.go
// SearchContent), and returns its answer as the CLI prints it.
func (a *agentsview) search(ctx context.Context, query string) ([]byte, error) {
	q := url.Values{"pattern": {query}, "mode": {"fts"}, "limit": {fmt.Sprint(limit)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v1/search/content?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("agentsview %q: %w", query, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %s: %.300s", resp.Status, body)
	}
	if err != nil {
		return nil, fmt.Errorf("agentsview %q: %w", query, err)
	}
	return body, nil
}

// Ask: messages by FTS5's bm25, each known by its session and its ordinal,
// its place among the session's messages.
func (a *agentsview) Ask(ctx context.Context, query string, _ time.Time) (Ranked, error) {
	out, err := a.search(ctx, query)
	if err != nil {
		return Ranked{}, err
	}
	var answer struct {
		Matches []struct {
			SessionID string `json:"session_id"`
			Ordinal   int    `json:"ordinal"`
		} `json:"matches"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		return Ranked{}, fmt.Errorf("agentsview %q: %w in %.300q", query, err, out)
	}
	r := Ranked{Bytes: len(out)}
	seen := map[SessionRef]bool{}
	for _, m := range answer.Matches {
		id := m.SessionID[strings.LastIndex(m.SessionID, ":")+1:]
		ref, ok := a.corpus.Sessions[id]
		turns := a.corpus.Turns[id]
		if !ok || m.Ordinal < 0 || m.Ordinal >= len(turns) {
			return r, fmt.Errorf("agentsview %q: message %d of session %q is not the corpus's", query, m.Ordinal, m.SessionID)
		}
		if !seen[ref] {
			seen[ref] = true
			r.Sessions = append(r.Sessions, ref)
		}
		r.Turns = append(r.Turns, turns[m.Ordinal])
	}
	return r, nil
}
