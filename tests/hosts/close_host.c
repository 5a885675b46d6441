/*
 * close_host.c: a C host of the extension, for TestCloseAfterSearch. It loads
 * the extension, searches twice (the extension keeps the search statement
 * prepared), and closes the connection with sqlite3_close, which refuses to
 * close while statements are unfinalized (the sqlite3 shell and many C hosts
 * close this way). Prints "closed" and exits 0 when sqlite3_close succeeds.
 * (A host that finalizes every statement through sqlite3_next_stmt before
 * closing cannot use FTS5 at all: FTS5 finalizes its own statements again
 * at close.)
 */
#include <stdio.h>
#include <sqlite3.h>

static int run(sqlite3 *db, const char *sql) {
  char *err = 0;
  if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", sql, err);
    sqlite3_free(err);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: close_host EXTENSION\n");
    return 2;
  }
  sqlite3 *db = 0;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  sqlite3_enable_load_extension(db, 1);
  char *err = 0;
  if (sqlite3_load_extension(db, argv[1], 0, &err) != SQLITE_OK) {
    fprintf(stderr, "load: %s\n", err);
    return 1;
  }
  if (run(db, "SELECT sessionsearch_migrate()") ||
      run(db, "INSERT INTO sessions(session_key) VALUES ('agent:main:main')") ||
      run(db, "INSERT INTO transcript_events VALUES ('agent:main:main', 0, "
              "'{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,"
              "\"message\":{\"role\":\"user\",\"content\":\"hello world\"}}')") ||
      run(db, "SELECT sessions_search('hello', '{\"caller\":\"agent:main:main\"}')") ||
      run(db, "SELECT sessions_search('world', '{\"caller\":\"agent:main:main\"}')"))
    return 1;
  int rc = sqlite3_close(db);
  if (rc != SQLITE_OK) {
    fprintf(stderr, "sqlite3_close: %d %s\n", rc, sqlite3_errmsg(db));
    return 1;
  }
  printf("closed\n");
  return 0;
}
