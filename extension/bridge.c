/*
 * bridge.c: sessionsearch's thin C bridge over SQLite's extension API.
 *
 * Why: Go cannot call the sqlite3ext.h macros, and a cgo crossing costs about
 * as much as tokenizing a word, so this file keeps every crossing coarse: one
 * call into Go per document tokenized (tokens come back in one batch and a C
 * loop hands them to FTS5 once Go has returned), one per SQL function call.
 * What: the FTS5 tokenizer `sessionsearch`, the FTS5 auxiliary functions
 * `sessionsearch_snippet` and `sessionsearch_coverage`, the aggregate
 * `sessionsearch_runs`, and the SQL functions of the registration table in
 * extension.go, each a trampoline into Go.
 * Build: compiled by cgo into the loadable extension (extension/loadable,
 * -buildmode=c-shared) and into the Go driver (static, auto-extension).
 * Load: sqlite3_sessionsearch_init / sqlite3_extension_init (loadable), or
 * sqlite3_auto_extension (driver); both call sessionsearch_init_db.
 */
#define sqlite3_api sessionsearch_sqlite3_api
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "_cgo_export.h"

/* ---- FTS5 tokenizer ---------------------------------------------------- */

/* One instance per FTS5 table and connection, so one thread at a time. */
typedef struct ss_tokenizer {
  int options;    /* tokenizer options, encoded by Go */
  int slot;       /* the instance's Go tokenizer state (sessionsearch_go_tokenizer_open) */
  int busy;       /* buf and slot are in use: a tokenize call inside an xToken callback takes its own */
  ss_tokens buf;  /* reused for every text, grown to the largest */
} ss_tokenizer;

/* Buffers larger than this (a huge document's) are not kept for the next
   text: they would stay allocated for as long as the table is open. */
#define SS_KEEP_BYTES (1 << 20)

static void ss_tokens_free(ss_tokens *b) {
  sqlite3_free(b->tokens);
  sqlite3_free(b->folded);
  memset(b, 0, sizeof(*b));
}

int ss_tokens_reserve(ss_tokens *b, int nTokens, int nFolded) {
  if (nTokens > b->cap) {
    ss_token *t = sqlite3_realloc64(b->tokens, (sqlite3_uint64)nTokens * sizeof(ss_token));
    if (!t) return SQLITE_NOMEM;
    b->tokens = t;
    b->cap = nTokens;
  }
  if (nFolded > b->foldedCap) {
    char *f = sqlite3_realloc64(b->folded, (sqlite3_uint64)nFolded);
    if (!f) return SQLITE_NOMEM;
    b->folded = f;
    b->foldedCap = nFolded;
  }
  return SQLITE_OK;
}

static int ss_tok_create(void *pUserData, const char **azArg, int nArg, Fts5Tokenizer **ppOut) {
  (void)pUserData;
  int options = sessionsearch_go_tokenizer_options((char **)azArg, nArg);
  if (options < 0) return SQLITE_ERROR; /* FTS5 says "error in tokenizer constructor" */
  ss_tokenizer *t = sqlite3_malloc(sizeof(*t));
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof(*t));
  t->options = options;
  t->slot = sessionsearch_go_tokenizer_open();
  if (t->slot < 0) {
    sqlite3_free(t);
    return SQLITE_ERROR;
  }
  *ppOut = (Fts5Tokenizer *)t;
  return SQLITE_OK;
}

static void ss_tok_delete(Fts5Tokenizer *p) {
  ss_tokenizer *t = (ss_tokenizer *)p;
  sessionsearch_go_tokenizer_close(t->slot);
  ss_tokens_free(&t->buf);
  sqlite3_free(t);
}

static int ss_tok_tokenize(Fts5Tokenizer *p, void *pCtx, int flags, const char *pText, int nText,
                           fts5_xtoken xToken) {
  ss_tokenizer *t = (ss_tokenizer *)p;
  if (nText <= 0) return SQLITE_OK;
  ss_tokens own = {0};
  ss_tokens *b = t->busy ? &own : &t->buf;
  t->busy++;
  int rc = sessionsearch_go_tokenize(t->options, b == &own ? -1 : t->slot, flags, (char *)pText, nText, b);
  /* A token's text is in the folded text or in the input. Locals, so that
     the compiler picks between them without a branch (which mispredicts
     on most words) and without reloading b after each xToken. */
  const char *folded = b->folded;
  const ss_token *k = b->tokens, *end = b->tokens + (rc == SQLITE_OK ? b->n : 0);
  for (; rc == SQLITE_OK && k < end; k++) {
    const char *base = (k->flags & SS_TOKEN_IN_SOURCE) ? pText : folded;
    rc = xToken(pCtx, k->flags & FTS5_TOKEN_COLOCATED, base + k->folded, k->len, k->start, k->end);
  }
  t->busy--;
  b->n = 0;
  if (b == &own || (sqlite3_uint64)b->cap * sizeof(ss_token) > SS_KEEP_BYTES || b->foldedCap > SS_KEEP_BYTES) {
    ss_tokens_free(b);
  }
  return rc;
}

/* ---- FTS5 auxiliary function: sessionsearch_snippet(tbl, maxChars [, col]) */

typedef struct ss_offsets {
  int *start, *end; /* byte offsets of each token position */
  int n, cap;
} ss_offsets;

static int ss_collect_token(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
  (void)pToken;
  (void)nToken;
  ss_offsets *o = pCtx;
  if (tflags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
  if (o->n == o->cap) {
    int cap = o->cap ? o->cap * 2 : 256;
    int *s = sqlite3_realloc(o->start, cap * (int)sizeof(int));
    if (!s) return SQLITE_NOMEM;
    o->start = s;
    int *e = sqlite3_realloc(o->end, cap * (int)sizeof(int));
    if (!e) return SQLITE_NOMEM;
    o->end = e;
    o->cap = cap;
  }
  o->start[o->n] = iStart;
  o->end[o->n] = iEnd;
  o->n++;
  return SQLITE_OK;
}

static void ss_snippet(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                       sqlite3_value **apVal) {
  if (nVal < 1 || nVal > 2) {
    sqlite3_result_error(ctx, "sessionsearch_snippet: expected (table, max_chars [, column])", -1);
    return;
  }
  int maxChars = sqlite3_value_int(apVal[0]);
  int col = nVal > 1 ? sqlite3_value_int(apVal[1]) : 0;
  const char *text = 0;
  int nText = 0;
  int rc = api->xColumnText(fts, col, &text, &nText);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  if (!text) {
    sqlite3_result_null(ctx);
    return;
  }
  ss_offsets offs = {0};
  rc = api->xTokenize(fts, text, nText, &offs, ss_collect_token);
  int nInst = 0;
  if (rc == SQLITE_OK) rc = api->xInstCount(fts, &nInst);
  int *ranges = 0, nRanges = 0;
  if (rc == SQLITE_OK && nInst > 0) {
    ranges = sqlite3_malloc(2 * nInst * (int)sizeof(int));
    if (!ranges) rc = SQLITE_NOMEM;
  }
  for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int phrase, icol, off;
    rc = api->xInst(fts, i, &phrase, &icol, &off);
    if (rc != SQLITE_OK || icol != col) continue;
    int last = off + api->xPhraseSize(fts, phrase) - 1;
    if (off < 0 || off >= offs.n) continue;
    if (last >= offs.n) last = offs.n - 1;
    if (last < off) last = off;
    ranges[2 * nRanges] = offs.start[off];
    ranges[2 * nRanges + 1] = offs.end[last];
    nRanges++;
  }
  if (rc == SQLITE_OK) {
    sessionsearch_go_snippet(ctx, (char *)text, nText, ranges, nRanges, maxChars);
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(ranges);
  sqlite3_free(offs.start);
  sqlite3_free(offs.end);
}

/* ---- FTS5 auxiliary function: sessionsearch_coverage(tbl, groups) -------
 *
 * Which words of a relaxed search a row holds (docs/search.md Q26). groups
 * is a blob with one byte per phrase of the MATCH expression, in FTS5's
 * order: the index of the word the phrase spells (0..63), with 0x80 set when
 * the phrase is another form of the word rather than the word itself, or
 * 0xff for a phrase that counts for nothing. The result packs, from the high
 * bits: 6 bits, how many words the row holds in any form; 6 bits, how many
 * it holds as written; 24 bits, the mask of words held in any form; 24 bits,
 * the mask of words held as written (words past the 24th count but have no
 * bit). Package ranking reads it (ranking.Coverage); ORDER BY cov >> 48 DESC
 * puts the rows that hold more words first. */
static void ss_coverage(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                        sqlite3_value **apVal) {
  if (nVal != 1) {
    sqlite3_result_error(ctx, "sessionsearch_coverage: expected (table, groups)", -1);
    return;
  }
  const unsigned char *groups = sqlite3_value_blob(apVal[0]);
  int nGroups = sqlite3_value_bytes(apVal[0]);
  int nPhrase = api->xPhraseCount(fts);
  sqlite3_uint64 any = 0, exact = 0;
  for (int p = 0; p < nPhrase && p < nGroups; p++) {
    int g = groups[p];
    if (g == 0xff) continue;
    int word = g & 0x3f;
    sqlite3_uint64 bit = (sqlite3_uint64)1 << word;
    if ((any & bit) && (exact & bit || (g & 0x80))) continue; /* nothing to learn */
    Fts5PhraseIter it;
    int iCol = -1, iOff = -1;
    int rc = api->xPhraseFirst(fts, p, &it, &iCol, &iOff);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    if (iCol < 0) continue;
    any |= bit;
    if (!(g & 0x80)) exact |= bit;
  }
  sqlite3_int64 nAny = __builtin_popcountll(any), nExact = __builtin_popcountll(exact);
  sqlite3_result_int64(ctx, (nAny << 54) | (nExact << 48) | ((any & 0xffffff) << 24) | (exact & 0xffffff));
}

/* ---- SQL aggregate: sessionsearch_runs(x) ------------------------------
 *
 * How many runs of equal values the non-NULL x take in the order the rows
 * come: the distinct values of a column the rows are sorted by, without
 * the temporary index that count(DISTINCT x) builds and fills row by row.
 * store.WordStatsSQL counts a word's sessions with it (docs/search.md Q29):
 * FTS5 returns matches in rowid order, and a rowid's high bits are its
 * session. x must be an integer (or NULL): read as one, 'a' and 'b', or
 * 1.2 and 1.7, would be one run, so any other value is an error. */
typedef struct ss_runs {
  sqlite3_int64 last, n;
} ss_runs;

static void ss_runs_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_INTEGER) {
    char *msg = type == SQLITE_BLOB
                    ? sqlite3_mprintf("sessionsearch_runs: x must be an integer or NULL, got a blob of %d bytes",
                                      sqlite3_value_bytes(argv[0]))
                    : sqlite3_mprintf("sessionsearch_runs: x must be an integer or NULL, got %s %.40Q",
                                      type == SQLITE_FLOAT ? "real" : "text", (const char *)sqlite3_value_text(argv[0]));
    if (!msg) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return;
  }
  ss_runs *r = sqlite3_aggregate_context(ctx, sizeof(ss_runs));
  if (!r) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_int64 v = sqlite3_value_int64(argv[0]);
  if (r->n == 0 || v != r->last) r->n++;
  r->last = v;
}

static void ss_runs_final(sqlite3_context *ctx) {
  ss_runs *r = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, r ? r->n : 0);
}

/* ---- SQL functions ----------------------------------------------------- */

/* Each registered function carries its index in Go's registration table and
   the Go state of its connection; the first one owns that state and releases
   it when SQLite drops the functions as the connection closes. */
typedef struct ss_fn {
  int id;
  int owner;
  uintptr_t conn;
} ss_fn;

static void ss_fn_destroy(void *p) {
  ss_fn *f = p;
  if (f->owner) sessionsearch_go_release(f->conn);
  free(f);
}

static void ss_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ss_fn *f = sqlite3_user_data(ctx);
  ss_arg args[SS_ARGS];
  int n = argc < SS_ARGS ? argc : SS_ARGS;
  for (int i = 0; i < n; i++) {
    ss_arg *a = &args[i];
    a->type = sqlite3_value_type(argv[i]);
    a->n = 0;
    a->i = 0;
    a->d = 0;
    a->p = 0;
    switch (a->type) {
    case SQLITE_INTEGER:
      a->i = sqlite3_value_int64(argv[i]);
      break;
    case SQLITE_FLOAT:
      a->d = sqlite3_value_double(argv[i]);
      break;
    case SQLITE_TEXT:
      a->p = sqlite3_value_text(argv[i]);
      a->n = sqlite3_value_bytes(argv[i]);
      break;
    }
  }
  sessionsearch_go_function(ctx, f->id, f->conn, argc, argv, args, n);
}

// ss_fts5_api finds FTS5. Preparing the statement reads the schema, so a
// file that is not a database, a damaged or a locked one fails here: *rc
// then says which, rather than blaming FTS5.
static fts5_api *ss_fts5_api(sqlite3 *db, int *rc) {
  fts5_api *api = 0;
  sqlite3_stmt *stmt = 0;
  *rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0);
  if (*rc != SQLITE_OK) return 0;
  sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return api;
}

static fts5_tokenizer ss_tokenizer_methods = {ss_tok_create, ss_tok_delete, ss_tok_tokenize};

/* ---- Close hook --------------------------------------------------------- */

/* SQLite has no close callback, and sqlite3_close refuses to close a
   connection with unfinalized statements. But it disconnects every virtual
   table first, so that a table can finalize the statements it keeps: the
   eponymous table sessionsearch_connection, connected once at load, is the
   hook that lets Go keep prepared statements for the connection's life. It
   has no rows. Its module owns its own handle to the connection's Go state,
   released when the module goes. */
typedef struct ss_hook_vtab {
  sqlite3_vtab base;
  uintptr_t conn;
} ss_hook_vtab;

static int ss_hook_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                           char **err) {
  (void)argc;
  (void)argv;
  (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(closing)");
  if (rc != SQLITE_OK) return rc;
  ss_hook_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->conn = *(uintptr_t *)aux;
  *out = &v->base;
  sessionsearch_go_conn_hooked(v->conn, 1);
  return SQLITE_OK;
}
static int ss_hook_disconnect(sqlite3_vtab *p) {
  ss_hook_vtab *v = (ss_hook_vtab *)p;
  sessionsearch_go_conn_hooked(v->conn, 0);
  sqlite3_free(v);
  return SQLITE_OK;
}
static int ss_hook_best_index(sqlite3_vtab *p, sqlite3_index_info *info) {
  (void)p;
  info->estimatedCost = 1;
  return SQLITE_OK;
}
static int ss_hook_open(sqlite3_vtab *p, sqlite3_vtab_cursor **c) {
  (void)p;
  *c = sqlite3_malloc(sizeof **c);
  if (!*c) return SQLITE_NOMEM;
  memset(*c, 0, sizeof **c);
  return SQLITE_OK;
}
static int ss_hook_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}
static int ss_hook_filter(sqlite3_vtab_cursor *c, int idx, const char *idxStr, int argc, sqlite3_value **argv) {
  (void)c;
  (void)idx;
  (void)idxStr;
  (void)argc;
  (void)argv;
  return SQLITE_OK;
}
static int ss_hook_next(sqlite3_vtab_cursor *c) {
  (void)c;
  return SQLITE_OK;
}
static int ss_hook_eof(sqlite3_vtab_cursor *c) {
  (void)c;
  return 1;
}
static int ss_hook_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) {
  (void)c;
  (void)i;
  sqlite3_result_null(ctx);
  return SQLITE_OK;
}
static int ss_hook_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid) {
  (void)c;
  *rowid = 0;
  return SQLITE_OK;
}
static void ss_hook_free(void *aux) {
  sessionsearch_go_release(*(uintptr_t *)aux);
  free(aux);
}

/* Eponymous-only (no xCreate): CREATE VIRTUAL TABLE cannot use it. */
static sqlite3_module ss_hook_module = {
    0,                  /* iVersion */
    0,                  /* xCreate */
    ss_hook_connect,    /* xConnect */
    ss_hook_best_index, /* xBestIndex */
    ss_hook_disconnect, /* xDisconnect */
    0,                  /* xDestroy */
    ss_hook_open,       /* xOpen */
    ss_hook_close,      /* xClose */
    ss_hook_filter,     /* xFilter */
    ss_hook_next,       /* xNext */
    ss_hook_eof,        /* xEof */
    ss_hook_column,     /* xColumn */
    ss_hook_rowid,      /* xRowid; the rest 0: read-only, no transactions */
};

/* ss_install_hook registers the module and connects its table; without it
   (a table of the database has the name) Go keeps no statements. */
static void ss_install_hook(sqlite3 *db, uintptr_t conn) {
  uintptr_t *aux = malloc(sizeof *aux);
  if (!aux) return;
  *aux = sessionsearch_go_conn_share(conn);
  if (sqlite3_create_module_v2(db, "sessionsearch_connection", &ss_hook_module, aux, ss_hook_free) != SQLITE_OK)
    return; /* SQLite has called ss_hook_free */
  sqlite3_stmt *stmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT closing FROM sessionsearch_connection", -1, &stmt, 0) == SQLITE_OK)
    sqlite3_finalize(stmt);
}

int sessionsearch_init_db(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  SQLITE_EXTENSION_INIT2((const sqlite3_api_routines *)pApi);
  int prepared = SQLITE_OK;
  fts5_api *fts = ss_fts5_api(db, &prepared);
  if ((prepared & 0xff) != SQLITE_OK && (prepared & 0xff) != SQLITE_ERROR) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("sessionsearch: cannot read the database: %s", sqlite3_errmsg(db));
    return prepared;
  }
  if (!fts || fts->iVersion < 2) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("sessionsearch: this SQLite has no FTS5 (version 2 or later)");
    return SQLITE_ERROR;
  }
  int rc = fts->xCreateTokenizer(fts, "sessionsearch", 0, &ss_tokenizer_methods, 0);
  if (rc == SQLITE_OK) rc = fts->xCreateFunction(fts, "sessionsearch_snippet", 0, ss_snippet, 0);
  if (rc == SQLITE_OK) rc = fts->xCreateFunction(fts, "sessionsearch_coverage", 0, ss_coverage, 0);
  if (rc != SQLITE_OK) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("sessionsearch: cannot register with FTS5: %s", sqlite3_errstr(rc));
    return rc;
  }
  rc = sqlite3_create_function_v2(db, "sessionsearch_runs", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, 0,
                                  ss_runs_step, ss_runs_final, 0);
  if (rc != SQLITE_OK) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("sessionsearch: cannot register sessionsearch_runs(): %s", sqlite3_errmsg(db));
    return rc;
  }
  uintptr_t conn = sessionsearch_go_conn_open();
  ss_install_hook(db, conn);
  int n = sessionsearch_go_function_count();
  for (int i = 0; i < n; i++) {
    char *name = 0;
    int nArg = 0, flags = 0;
    sessionsearch_go_function_info(i, &name, &nArg, &flags);
    ss_fn *f = malloc(sizeof(ss_fn));
    if (!f) {
      free(name);
      if (i == 0) sessionsearch_go_release(conn);
      return SQLITE_NOMEM;
    }
    f->id = i;
    f->owner = i == 0;
    f->conn = conn;
    /* On failure SQLite calls ss_fn_destroy itself. */
    rc = sqlite3_create_function_v2(db, name, nArg, SQLITE_UTF8 | flags, f, ss_function, 0, 0, ss_fn_destroy);
    if (rc != SQLITE_OK) {
      if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("sessionsearch: cannot register %s(): %s", name, sqlite3_errmsg(db));
      free(name);
      return rc;
    }
    free(name);
  }
  return SQLITE_OK;
}

/* ---- Helpers for Go ----------------------------------------------------- */

const char *ss_libversion(void) { return sqlite3_libversion(); }
void ss_log(const char *msg) { sqlite3_log(SQLITE_ERROR, "%s", msg); }
sqlite3 *ss_context_db(sqlite3_context *ctx) { return sqlite3_context_db_handle(ctx); }
int ss_busy_sql(sqlite3 *db, const char **out, int max) {
  int n = 0;
  sqlite3_stmt *s;
  for (s = sqlite3_next_stmt(db, 0); s && n < max; s = sqlite3_next_stmt(db, s)) {
    if (sqlite3_stmt_busy(s)) {
      const char *q = sqlite3_sql(s);
      if (q) out[n++] = q;
    }
  }
  return n;
}
void ss_result_text(sqlite3_context *ctx, const char *p, int n) { sqlite3_result_text(ctx, p, n, SQLITE_TRANSIENT); }
void ss_result_blob(sqlite3_context *ctx, const void *p, int n) { sqlite3_result_blob(ctx, p ? p : "", n, SQLITE_TRANSIENT); }
void ss_result_int64(sqlite3_context *ctx, sqlite3_int64 v) { sqlite3_result_int64(ctx, v); }
void ss_result_null(sqlite3_context *ctx) { sqlite3_result_null(ctx); }
void ss_result_error(sqlite3_context *ctx, const char *p, int n, int code) {
  sqlite3_result_error(ctx, p, n);
  if (code != SQLITE_ERROR) sqlite3_result_error_code(ctx, code);
}
void ss_result_value(sqlite3_context *ctx, sqlite3_value *v) { sqlite3_result_value(ctx, v); }
int ss_value_type(sqlite3_value *v) { return sqlite3_value_type(v); }
const unsigned char *ss_value_text(sqlite3_value *v, int *n) {
  const unsigned char *p = sqlite3_value_text(v);
  *n = sqlite3_value_bytes(v);
  return p;
}
sqlite3_int64 ss_value_int64(sqlite3_value *v) { return sqlite3_value_int64(v); }
double ss_value_double(sqlite3_value *v) { return sqlite3_value_double(v); }

static void ss_aux_free(void *p) {
  sessionsearch_go_release(*(uintptr_t *)p);
  free(p);
}
void *ss_get_auxdata(sqlite3_context *ctx, int i) { return sqlite3_get_auxdata(ctx, i); }
void ss_set_auxdata(sqlite3_context *ctx, int i, uintptr_t handle) {
  uintptr_t *box = malloc(sizeof(uintptr_t));
  if (!box) {
    sessionsearch_go_release(handle);
    return;
  }
  *box = handle;
  sqlite3_set_auxdata(ctx, i, box, ss_aux_free);
}

static const char ss_visible_type[] = "sessionsearch_visible";
int ss_bind_visible(sqlite3_stmt *s, int i, uintptr_t handle) {
  return sqlite3_bind_pointer(s, i, (void *)handle, ss_visible_type, 0);
}
uintptr_t ss_value_visible(sqlite3_value *v) { return (uintptr_t)sqlite3_value_pointer(v, ss_visible_type); }

int ss_prepare(sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt, const char **errmsg) {
  int rc = sqlite3_prepare_v2(db, sql, n, stmt, 0);
  if (rc != SQLITE_OK) *errmsg = sqlite3_errmsg(db);
  return rc;
}
int ss_bind_text(sqlite3_stmt *s, int i, const char *p, int n) {
  return sqlite3_bind_text(s, i, p ? p : "", n, SQLITE_TRANSIENT);
}
int ss_bind_blob(sqlite3_stmt *s, int i, const void *p, int n) {
  return sqlite3_bind_blob(s, i, p ? p : "", n, SQLITE_TRANSIENT);
}
int ss_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v) { return sqlite3_bind_int64(s, i, v); }
int ss_bind_double(sqlite3_stmt *s, int i, double v) { return sqlite3_bind_double(s, i, v); }
int ss_bind_null(sqlite3_stmt *s, int i) { return sqlite3_bind_null(s, i); }
int ss_bind_parameter_index(sqlite3_stmt *s, const char *name) { return sqlite3_bind_parameter_index(s, name); }
int ss_run(sqlite3_stmt *s, int nArgs, const ss_runarg *args, const char *base) {
  int rc = SQLITE_OK;
  for (int k = 0; k < nArgs && rc == SQLITE_OK; k++) {
    const ss_runarg *a = &args[k];
    /* SQLITE_STATIC: the buffer stays as it is until this call returns,
       after the bindings are cleared. */
    const char *p = a->n > 0 ? base + a->i : "";
    switch (a->type) {
    case SQLITE_INTEGER: rc = sqlite3_bind_int64(s, k + 1, a->i); break;
    case SQLITE_FLOAT: rc = sqlite3_bind_double(s, k + 1, a->d); break;
    case SQLITE_TEXT: rc = sqlite3_bind_text(s, k + 1, p, a->n, SQLITE_STATIC); break;
    case SQLITE_BLOB: rc = sqlite3_bind_blob(s, k + 1, p, a->n, SQLITE_STATIC); break;
    default: rc = sqlite3_bind_null(s, k + 1);
    }
  }
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc;
}
int ss_step(sqlite3_stmt *s) { return sqlite3_step(s); }
int ss_reset(sqlite3_stmt *s) { return sqlite3_reset(s); }
int ss_finalize(sqlite3_stmt *s) { return sqlite3_finalize(s); }
int ss_clear_bindings(sqlite3_stmt *s) { return sqlite3_clear_bindings(s); }
int ss_finalize_own(sqlite3 *db, sqlite3_stmt *s) {
  /* Only if the statement is still the connection's (a defence: a host that
     finalizes every statement before closing would also break FTS5's own). */
  for (sqlite3_stmt *p = sqlite3_next_stmt(db, 0); p; p = sqlite3_next_stmt(db, p))
    if (p == s) return sqlite3_finalize(s);
  return SQLITE_OK;
}
int ss_column_type(sqlite3_stmt *s, int i) { return sqlite3_column_type(s, i); }
const unsigned char *ss_column_text(sqlite3_stmt *s, int i, int *n) {
  const unsigned char *p = sqlite3_column_text(s, i);
  *n = sqlite3_column_bytes(s, i);
  return p;
}
sqlite3_int64 ss_column_int64(sqlite3_stmt *s, int i) { return sqlite3_column_int64(s, i); }
double ss_column_double(sqlite3_stmt *s, int i) { return sqlite3_column_double(s, i); }
const char *ss_errmsg(sqlite3 *db) { return sqlite3_errmsg(db); }
unsigned int ss_data_version(sqlite3 *db) {
  unsigned int v = 0;
  sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &v);
  return v;
}
int ss_total_changes(sqlite3 *db) { return sqlite3_total_changes(db); }
