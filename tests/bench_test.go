//go:build sqlite_fts5

package tests

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchdata"
)

// BenchmarkHostIndexBuild is driver's BenchmarkIndexBuild in every host: the
// sqlite3 shell and Python load dist/sessionsearch.so into Debian's SQLite,
// Node into better-sqlite3's own build, and Go links the extension into
// mattn's. A host's SQLite sets the cost of the FTS5 work around the
// tokenizer, so the ratio differs by host.
//
// One SQL script per run builds an index of the same documents with
// unicode61 and with sessionsearch, three times each in alternating order,
// in one INSERT ... SELECT each (so the host's own statement overhead does
// not count), and times each build with julianday('now'), which has
// millisecond resolution: the documents are repeated to about 8 MB so that
// a build takes over 100 ms.
func BenchmarkHostIndexBuild(b *testing.B) {
	sets := []struct {
		name  string
		texts func() []string
	}{
		{"english-prose", benchdata.Prose},
		{"english-and-code", func() []string {
			return append(append(benchdata.Prose(), benchdata.Messages(benchdata.English)...), benchdata.GoSource()[:8]...)
		}},
		{"go-code", benchdata.GoSource},
	}
	for _, s := range sets {
		docs := benchdata.Docs(s.texts(), 1024)
		if len(docs) < 10 {
			b.Fatalf("corpus %s has only %d documents", s.name, len(docs))
		}
		path, bytes := writeDocs(b, docs, 8<<20)
		script := hostBuildScript(path)
		for _, h := range hosts {
			b.Run(s.name+"/"+h.name, func(b *testing.B) {
				var ours, ref float64 // milliseconds
				for b.Loop() {
					r := h.run(":memory:", script, true, false)
					if r.failed != nil || len(r.errs) > 0 {
						b.Fatalf("%s: %v %v", h.name, r.failed, r.errs)
					}
					o, f, err := buildTimes(r.out)
					if err != nil {
						b.Fatalf("%s: %v\n%s", h.name, err, r.out)
					}
					ours, ref = ours+o, ref+f
				}
				builds := float64(3 * b.N)
				b.ReportMetric(float64(bytes)*builds/ours/1e3, "ours-MB/s")
				b.ReportMetric(float64(bytes)*builds/ref/1e3, "ref-MB/s")
				b.ReportMetric(ref/ours, "speed-ratio")
			})
		}
	}
}

// writeDocs writes docs, repeated to at least size bytes, to the table docs
// of a new database file, and returns its path and the bytes it holds.
func writeDocs(b *testing.B, docs []string, size int) (string, int) {
	path := filepath.Join(b.TempDir(), "docs.db")
	db, err := sql.Open(driver.DriverName, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`CREATE TABLE docs(body TEXT)`); err != nil {
		b.Fatal(err)
	}
	n := 0
	for n < size {
		for _, d := range docs {
			if _, err := tx.Exec(`INSERT INTO docs VALUES (?)`, d); err != nil {
				b.Fatal(err)
			}
			n += len(d)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return path, n
}

// hostBuildScript returns the SQL that builds the index of the documents in
// path with each tokenizer and prints each build's time: rows `ours|ms` and
// `ref|ms`.
func hostBuildScript(path string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "ATTACH '%s' AS d;\n", strings.ReplaceAll(path, "'", "''"))
	s.WriteString("CREATE TABLE clock(step TEXT, t REAL);\n")
	s.WriteString("INSERT INTO clock VALUES ('start', julianday('now'));\n")
	build := func(name, tokenize string) {
		fmt.Fprintf(&s, "CREATE VIRTUAL TABLE %s USING fts5(body, tokenize='%s');\n", name, tokenize)
		fmt.Fprintf(&s, "INSERT INTO %s(body) SELECT body FROM d.docs;\n", name)
		fmt.Fprintf(&s, "INSERT INTO clock VALUES ('%s', julianday('now'));\n", name[:len(name)-1])
		fmt.Fprintf(&s, "DROP TABLE %s;\n", name)
		fmt.Fprintf(&s, "INSERT INTO clock VALUES ('start', julianday('now'));\n")
	}
	for round := 1; round <= 3; round++ {
		ours, ref := fmt.Sprintf("ours%d", round), fmt.Sprintf("ref%d", round)
		if round%2 == 1 {
			build(ref, "unicode61 remove_diacritics 2")
			build(ours, "sessionsearch")
		} else {
			build(ours, "sessionsearch")
			build(ref, "unicode61 remove_diacritics 2")
		}
	}
	s.WriteString("SELECT step, ms FROM (SELECT step, CAST(round((t - lag(t) OVER (ORDER BY rowid)) * 86400000) AS INTEGER) AS ms FROM clock) WHERE step <> 'start';\n")
	return s.String()
}

// buildTimes sums the milliseconds of the `ours|ms` and `ref|ms` rows.
func buildTimes(out []byte) (ours, ref float64, err error) {
	rows := 0
	for _, line := range lines(out) {
		step, ms, ok := strings.Cut(line, "|")
		v, perr := strconv.Atoi(ms)
		if !ok || perr != nil || (step != "ours" && step != "ref") {
			return 0, 0, fmt.Errorf("unexpected row %q", line)
		}
		if step == "ours" {
			ours += float64(v)
		} else {
			ref += float64(v)
		}
		rows++
	}
	if rows != 6 || ours == 0 || ref == 0 {
		return 0, 0, fmt.Errorf("%d build times, want 6 that are not all 0", rows)
	}
	return ours, ref, nil
}
