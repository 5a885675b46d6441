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
	sql.Register(DriverName, &sqlite3.SQLiteDriver{})
}

// Build describes the extension this package links, running in the SQLite
// that mattn/go-sqlite3 links (docs/cli.md C26).
func Build() extension.BuildInfo {
	v, _, _ := sqlite3.Version()
	return extension.Build(v)
}
