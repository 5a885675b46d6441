/*
 * bridge.h: the C side of sessionsearch, shared by the cgo preamble and bridge.c.
 *
 * Why it exists: SQLite's loadable-extension API (sqlite3ext.h) is a table of
 * function pointers reached through macros, which Go cannot call. bridge.c is
 * the one file that includes sqlite3ext.h; Go calls the small ss_* functions
 * declared here, and SQLite calls back into Go through the exported
 * sessionsearch_go_* functions.
 *
 * The FTS5 API (fts5_api, fts5_tokenizer, Fts5ExtensionApi) comes from
 * sqlite3.h, which carries fts5.h. Only members present since SQLite 3.20
 * (fts5_api version 2) are used; later versions only append members, so the
 * same code runs on Debian's 3.40 and on the 3.5x that mattn/go-sqlite3 and
 * better-sqlite3 bundle.
 */
#ifndef SESSIONSEARCH_BRIDGE_H
#define SESSIONSEARCH_BRIDGE_H

#include <stdint.h>
#include <sqlite3.h>

/* The xToken callback of an FTS5 tokenizer. */
typedef int (*fts5_xtoken)(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd);

/* One token handed from Go to C: the layout of tokenizer.Token. Its text is
   at folded + folded, or at the input text + folded with SS_TOKEN_IN_SOURCE
   (tokenizer.InSource). */
#define SS_TOKEN_IN_SOURCE 0x100
typedef struct ss_token {
  int32_t folded, len, start, end, flags;
} ss_token;

/* One argument of an SQL function as the C side read it before calling Go,
   so that Go reads its arguments without a crossing each: its type and, by
   type, its integer, real or text (UTF-8, n bytes). Blobs and arguments past
   SS_ARGS are read by Go itself. */
#define SS_ARGS 16
typedef struct ss_arg {
  int type, n;
  sqlite3_int64 i;
  double d;
  const unsigned char *p;
} ss_arg;

/* The tokens of one text, in buffers that C owns: Go fills them in the one
   call per text (sessionsearch_go_tokenize), and C hands them to FTS5 after
   that call returned, so no call goes back into C per text. */
typedef struct ss_tokens {
  ss_token *tokens;
  int n, cap;        /* tokens used, tokens allocated */
  char *folded;
  int foldedCap;     /* bytes allocated */
} ss_tokens;

/* Entry into the extension for one connection; returns SQLITE_OK. */
int sessionsearch_init_db(sqlite3 *db, char **pzErrMsg, const void *pApi);

/* Called from Go. */
/* Grows b to hold at least nTokens tokens and nFolded bytes of folded
   text; returns SQLITE_OK or SQLITE_NOMEM. */
int ss_tokens_reserve(ss_tokens *b, int nTokens, int nFolded);

const char *ss_libversion(void);
void ss_log(const char *msg);
sqlite3 *ss_context_db(sqlite3_context *ctx);
/* The SQL of up to max statements of db that are running (sqlite3_stmt_busy);
   returns how many. */
int ss_busy_sql(sqlite3 *db, const char **out, int max);
void ss_result_text(sqlite3_context *ctx, const char *p, int n);
void ss_result_blob(sqlite3_context *ctx, const void *p, int n);
void ss_result_int64(sqlite3_context *ctx, sqlite3_int64 v);
void ss_result_null(sqlite3_context *ctx);
void ss_result_error(sqlite3_context *ctx, const char *p, int n, int code);
void ss_result_value(sqlite3_context *ctx, sqlite3_value *v);
int ss_value_type(sqlite3_value *v);
const unsigned char *ss_value_text(sqlite3_value *v, int *n);
sqlite3_int64 ss_value_int64(sqlite3_value *v);
double ss_value_double(sqlite3_value *v);
void *ss_get_auxdata(sqlite3_context *ctx, int i);
void ss_set_auxdata(sqlite3_context *ctx, int i, uintptr_t handle);
/* A Go handle bound as an SQL pointer value of type "sessionsearch_visible"
   (sqlite3_bind_pointer): SQL sees NULL, only session_visible reads it. */
int ss_bind_visible(sqlite3_stmt *s, int i, uintptr_t handle);
uintptr_t ss_value_visible(sqlite3_value *v);

int ss_prepare(sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt, const char **errmsg);
int ss_bind_text(sqlite3_stmt *s, int i, const char *p, int n);
int ss_bind_blob(sqlite3_stmt *s, int i, const void *p, int n);
int ss_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v);
int ss_bind_double(sqlite3_stmt *s, int i, double v);
int ss_bind_null(sqlite3_stmt *s, int i);
int ss_bind_parameter_index(sqlite3_stmt *s, const char *name);
/* One argument of ss_run: its type (SQLITE_INTEGER, SQLITE_FLOAT,
   SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL), and its value: i, d, or n bytes
   at offset off of the run's buffer. */
typedef struct ss_runarg {
  int type;
  int n;
  sqlite3_int64 i;
  double d;
} ss_runarg;
/* Binds args to ?1..?nArgs (text and blobs in place, from base), runs s to
   completion, resets it and clears its bindings: a statement run in one
   call from Go. Returns SQLITE_OK or the error of the step. */
int ss_run(sqlite3_stmt *s, int nArgs, const ss_runarg *args, const char *base);
int ss_step(sqlite3_stmt *s);
int ss_reset(sqlite3_stmt *s);
int ss_finalize(sqlite3_stmt *s);
int ss_clear_bindings(sqlite3_stmt *s);
/* Finalizes s if it is still one of db's statements. */
int ss_finalize_own(sqlite3 *db, sqlite3_stmt *s);
int ss_column_type(sqlite3_stmt *s, int i);
const unsigned char *ss_column_text(sqlite3_stmt *s, int i, int *n);
sqlite3_int64 ss_column_int64(sqlite3_stmt *s, int i);
double ss_column_double(sqlite3_stmt *s, int i);
const char *ss_errmsg(sqlite3 *db);
unsigned int ss_data_version(sqlite3 *db);
int ss_total_changes(sqlite3 *db);

#endif
