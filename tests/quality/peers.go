package main

import (
	"context"
)

// Peers are the peer programs of a run, started and indexed.
type Peers struct {
	Systems []System
	closers []func()
}

// StartPeers indexes the corpus with each peer binary the config names.
func StartPeers(ctx context.Context, c config, work string, corpus *Corpus, progress func(string, ...any)) (*Peers, error) {
	return &Peers{}, nil
}

// Close stops what StartPeers started.
func (p *Peers) Close() {
	for _, c := range p.closers {
		c()
	}
}
