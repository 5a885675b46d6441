/*
 * entry.c: the entry points of the loadable extension.
 *
 * SQLite derives sqlite3_sessionsearch_init from the file name; Python 3.11's
 * load_extension cannot name an entry point, and some loaders look for
 * sqlite3_extension_init. Both return SQLITE_OK_LOAD_PERMANENTLY: a Go
 * runtime cannot be unloaded. The driver package registers
 * sessionsearch_init_db directly as an auto-extension, where SQLite requires
 * SQLITE_OK, so these two exist only in the loadable build.
 */
#include <sqlite3.h>

int sessionsearch_init_db(sqlite3 *db, char **pzErrMsg, const void *pApi);

int sqlite3_sessionsearch_init(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  int rc = sessionsearch_init_db(db, pzErrMsg, pApi);
  return rc == SQLITE_OK ? SQLITE_OK_LOAD_PERMANENTLY : rc;
}

int sqlite3_extension_init(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  return sqlite3_sessionsearch_init(db, pzErrMsg, pApi);
}
