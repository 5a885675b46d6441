//go:build sqlite_fts5

package driver

/*
#include <sqlite3.h>

int sessionsearch_init_db(sqlite3 *db, char **pzErrMsg, const void *pApi);

// register_sessionsearch makes every connection that mattn/go-sqlite3 opens
// in this process load the extension. The call sits here, not in bridge.c,
// because bridge.c sees sqlite3ext.h, which turns sqlite3_auto_extension
// into a call through the extension API table that does not exist yet.
static int register_sessionsearch(void) {
  return sqlite3_auto_extension((void (*)(void))sessionsearch_init_db);
}

// stable_plans turns on the query planner stability guarantee
// (SQLITE_DBCONFIG_ENABLE_QPSG) of a connection: a statement's plan does
// not depend on the values bound to it, so binding new values never makes
// SQLite prepare it again (docs/search.md, "The single SELECT"). Without
// it SQLite 3.54 prepares FTS5's own lookup of a term in a segment again
// each time the segment number it is given changes from 1 to another or
// back, dozens of times in one search.
static int stable_plans(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_QPSG, 1, (int *)0);
}

static int register_stable_plans(void) {
  return sqlite3_auto_extension((void (*)(void))stable_plans);
}
*/
import "C"

import (
	"database/sql"
	"fmt"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sessionsearch/sessionsearch/extension"
)

// DriverName is the database/sql driver name this package registers.
const DriverName = "sessionsearch"

func init() {
	if rc := C.register_sessionsearch(); rc != 0 {
		panic(fmt.Sprintf("sessionsearch: sqlite3_auto_extension failed with code %d", int(rc)))
	}
	if rc := C.register_stable_plans(); rc != 0 {
		panic(fmt.Sprintf("sessionsearch: sqlite3_auto_extension (stable plans) failed with code %d", int(rc)))
	}
	sql.Register(DriverName, &sqlite3.SQLiteDriver{})
}

// Build describes the extension this package links, running in the SQLite
// that mattn/go-sqlite3 links (docs/cli.md C26).
func Build() extension.BuildInfo {
	v, _, _ := sqlite3.Version()
	return extension.Build(v)
}
