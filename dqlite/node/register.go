//go:build libsqlite3 && sqlite_fts5

package node

/*
#cgo LDFLAGS: -lsqlite3
#include <stdio.h>
#include <sqlite3.h>

int sessionsearch_init_db(sqlite3 *db, char **pzErrMsg, const void *pApi);

// The page cache of each connection dqlite opens, in KiB (a negative
// cache_size), set by set_cache_kib before the node starts (docs/cluster.md K5).
static long long cache_kib = 262144;

// dqlite_conn_init runs on every connection SQLite opens in this process,
// after the extension: it sizes the page cache and turns off spilling, so a
// large transaction keeps its dirty pages in memory until dqlite replicates
// them at commit (dqlite's WAL takes frames only at commit: a spill in the
// middle of a transaction is the "disk I/O error" of docs/cluster.md K5).
static int dqlite_conn_init(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  char sql[96];
  (void)pApi;
  snprintf(sql, sizeof sql, "PRAGMA cache_size=-%lld; PRAGMA cache_spill=OFF", cache_kib);
  return sqlite3_exec(db, sql, 0, 0, pzErrMsg);
}

static void set_cache_kib(long long kib) { cache_kib = kib; }

static int register_all(void) {
  int rc = sqlite3_auto_extension((void (*)(void))sessionsearch_init_db);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_auto_extension((void (*)(void))dqlite_conn_init);
}
*/
import "C"

import (
	"fmt"
	"sync"

	// go-dqlite's init puts SQLite in single-thread mode, which must happen
	// before anything initializes SQLite; importing it here orders its init
	// before this package's registration.
	_ "github.com/canonical/go-dqlite"

	_ "github.com/sessionsearch/sessionsearch/extension"
)

var registerOnce sync.Once
var registerErr error

// register makes every connection SQLite opens in this process, and so every
// connection dqlite opens on the leader and on followers, load the
// sessionsearch extension and use a page cache of cacheKiB (docs/cluster.md K5).
func register(cacheKiB int64) error {
	registerOnce.Do(func() {
		C.set_cache_kib(C.longlong(cacheKiB))
		if rc := C.register_all(); rc != 0 {
			registerErr = fmt.Errorf("sqlite3_auto_extension failed with code %d", int(rc))
		}
	})
	return registerErr
}
