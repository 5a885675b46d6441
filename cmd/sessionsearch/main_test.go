package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// binary is the sessionsearch command, built once by TestMain; the tests
// run it as a user would.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sessionsearch-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sessionsearch")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building sessionsearch:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the binary with args, in an environment without a database
// location unless env sets one.
func runBinary(t testing.TB, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// mustRun runs the binary and fails the test unless it exits with 0.
func mustRun(t testing.TB, args ...string) result {
	t.Helper()
	r := runBinary(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("sessionsearch %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// openDB opens a database the binary wrote.
func openDB(t testing.TB, path string) *driver.DB {
	t.Helper()
	db, err := driver.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// contentHash hashes every row of sessions and transcript_events, in key
// order: two databases with the same hash hold the same transcripts.
func contentHash(t testing.TB, db *sql.DB) (hash string, sessions, events int) {
	t.Helper()
	h := sha256.New()
	for _, q := range []string{
		`SELECT session_key, coalesce(spawned_by, '<null>'), coalesce(parent_session_key, '<null>'), coalesce(created_at, -1) FROM sessions ORDER BY session_key`,
		`SELECT session_key, seq, event, '' FROM transcript_events ORDER BY session_key, seq`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var a, b, c, d string
			if err := rows.Scan(&a, &b, &c, &d); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%q %q %q %q\n", a, b, c, d)
			if strings.HasPrefix(q, "SELECT session_key, coalesce") {
				sessions++
			} else {
				events++
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), sessions, events
}
