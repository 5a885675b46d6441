package server

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"syscall"
)

// What an operator of a shared service sets at start, the same for
// `sessionsearch serve` and the dqlite node (docs/serve.md H14–H17): the
// flags here, and the tokens file reloaded on SIGHUP.

// DefaultAuditRows is how many rows the audit trail keeps unless
// --audit-rows says otherwise.
const DefaultAuditRows = 100_000

// OperatorFlags are the flags of the rate limit and the audit trail.
type OperatorFlags struct {
	rate      float64
	burst     int
	auditKey  string
	auditRows int64
}

// AddOperatorFlags defines --rate-limit, --rate-burst, --audit-key and
// --audit-rows on fs.
func AddOperatorFlags(fs *flag.FlagSet) *OperatorFlags {
	f := &OperatorFlags{}
	fs.Float64Var(&f.rate, "rate-limit", 0, "the most requests per second one token may make on average; over it the answer is 429 with Retry-After (0: no limit)")
	fs.IntVar(&f.burst, "rate-burst", 0, "how many requests one token may make at once under --rate-limit (0: the limit per second, at least 1)")
	fs.StringVar(&f.auditKey, "audit-key", "", "record every search and history in the table sessionsearch_audit, with queries hashed by the HMAC key in `file` (mode 0600, at least 32 bytes, kept out of the database)")
	fs.Int64Var(&f.auditRows, "audit-rows", DefaultAuditRows, "the most rows the audit trail keeps; the oldest go first")
	return f
}

// Apply checks the flags and sets them in opts; it reads the audit key.
func (f *OperatorFlags) Apply(opts *Options) error {
	if f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0) {
		return fmt.Errorf("--rate-limit must be a number of requests per second, 0 or more, got %g", f.rate)
	}
	if f.burst < 0 {
		return fmt.Errorf("--rate-burst must be 0 or more, got %d", f.burst)
	}
	if f.auditRows < 1 {
		return fmt.Errorf("--audit-rows must be at least 1, got %d", f.auditRows)
	}
	opts.RateLimit, opts.RateBurst = f.rate, f.burst
	if opts.RateBurst == 0 {
		opts.RateBurst = max(int(math.Ceil(f.rate)), 1)
	}
	if f.auditKey == "" {
		return nil
	}
	key, err := LoadAuditKey(f.auditKey)
	if err != nil {
		return err
	}
	opts.Audit, err = NewAudit(key, f.auditRows)
	return err
}

// ReloadTokensOnHangup reloads the tokens file at path into t each time
// the process gets SIGHUP, until stop is called (docs/serve.md H14). A file
// that LoadTokens refuses changes nothing: the error is logged and the
// tokens in use stay. With no tokens file (path "", the development mode)
// SIGHUP is only logged, so that it does not end the process.
func ReloadTokensOnHangup(path string, t *Tokens, logf func(format string, args ...any)) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
			}
			if path == "" {
				logf("SIGHUP: no tokens file to reload")
				continue
			}
			n, err := LoadTokens(path)
			if err != nil {
				logf("SIGHUP: keeping the %d tokens in use: %v", t.Len(), err)
				continue
			}
			t.Replace(n)
			logf("SIGHUP: reloaded %d tokens from %s", n.Len(), path)
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}
