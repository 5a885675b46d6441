// A soak reader in Node's better-sqlite3, for tests/soak/soak_test.go.
//
// Usage: node reader.js CONFIG_JSON
//
// Opens the soak database read-only with a busy timeout, loads the extension
// and, until the configured time is up, checks searches and histories against
// what the writer published in the same snapshot, exactly as reader_test.go
// describes. Prints one JSON object a line: {"mismatch": ...} or
// {"error": ...} as they happen, and {"summary": ...} at the end.
// better-sqlite3 is the one installed in tests/node.
'use strict';

const path = require('path');
const { createRequire } = require('module');
const Database = createRequire(path.join(__dirname, '..', 'node', 'package.json'))('better-sqlite3');

const SEARCH_LIMIT = 25;

function emit(kind, value) {
  process.stdout.write(JSON.stringify({ [kind]: value }) + '\n');
}

function checkSearch(expected, hits, truncated, indexing) {
  expected = [...expected].sort();
  const got = [...hits].sort();
  if (indexing) return 'indexing is true';
  if (new Set(got).size !== got.length) return 'a hit is repeated';
  if (expected.length <= SEARCH_LIMIT) {
    if (expected.length !== got.length || expected.some((e, i) => e !== got[i])) return 'the hits are not the expected set';
    if (truncated) return 'truncated with every hit returned';
    return '';
  }
  if (got.length !== SEARCH_LIMIT) return `${got.length} hits, expected the limit ${SEARCH_LIMIT}`;
  if (!truncated) return 'more hits than the limit, but not truncated';
  const wanted = new Set(expected);
  for (const h of hits) if (!wanted.has(h)) return `hit ${h} is not expected`;
  return '';
}

function usSince(start) {
  return Number((process.hrtime.bigint() - start) / 1000n);
}

function main() {
  const cfg = JSON.parse(process.argv[2]);
  const db = new Database(cfg.db, { readonly: true, fileMustExist: true, timeout: 10000 });
  db.loadExtension(cfg.extension + '.so');
  const q = {
    begin: db.prepare('BEGIN'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    newest: db.prepare('SELECT max(seq) AS c FROM soak_commits').pluck(),
    search: db.prepare('SELECT sessions_search(?, ?)').pluck(),
    history: db.prepare('SELECT sessions_history(?, ?)').pluck(),
    expected: db.prepare("SELECT session_key, ids FROM soak_expected WHERE word = @word AND (@sess = '' OR session_key = @sess)"),
    historyIDs: db.prepare('SELECT ids FROM soak_history WHERE session_key = ?').pluck(),
  };
  // A small seeded generator (mulberry32), so a run can be repeated.
  let state = cfg.seed >>> 0;
  const rand = (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
  const summary = { name: cfg.name, queries: 0, hits: 0, firstCommit: -1, lastCommit: 0, searchUs: [], historyUs: [] };

  function search(query, sess, commit) {
    const opts = { caller: cfg.caller, limit: SEARCH_LIMIT };
    if (sess) opts.sessionKey = sess;
    const optsJSON = JSON.stringify(opts);
    const desc = `sessions_search(${JSON.stringify(query)}, ${optsJSON})`;
    const start = process.hrtime.bigint();
    let got = null;
    let err = null;
    try {
      got = q.search.get(query, optsJSON);
    } catch (e) {
      err = e.message;
    }
    summary.searchUs.push(usSince(start));
    if (sess && q.historyIDs.get(sess) === undefined) {
      if (err === null || !err.includes('sessions_search')) {
        emit('mismatch', { commit, query: desc, expected: 'an error naming sessions_search (the session is deleted)', got: err === null ? got : err });
      }
      return;
    }
    if (err !== null) {
      emit('error', { commit, query: desc, message: err });
      return;
    }
    const expected = [];
    for (const row of q.expected.all({ word: query, sess })) for (const id of JSON.parse(row.ids)) expected.push(`${row.session_key}/${id}`);
    const res = JSON.parse(got);
    const hits = res.results.map((h) => `${h.sessionKey}/${h.messageId}`);
    summary.hits += hits.length;
    const problem = checkSearch(expected, hits, res.truncated, res.indexing);
    if (problem) emit('mismatch', { commit, query: `${desc}: ${problem}`, expected: expected.sort(), got });
  }

  function history(sess, commit) {
    const optsJSON = JSON.stringify({ caller: cfg.caller, limit: 1000, maxBytes: 4194304 });
    const desc = `sessions_history(${JSON.stringify(sess)}, ${optsJSON})`;
    const start = process.hrtime.bigint();
    let got = null;
    let err = null;
    try {
      got = q.history.get(sess, optsJSON);
    } catch (e) {
      err = e.message;
    }
    summary.historyUs.push(usSince(start));
    const ids = q.historyIDs.get(sess);
    if (ids === undefined) {
      if (err === null || !err.includes('sessions_history')) {
        emit('mismatch', { commit, query: desc, expected: 'an error naming sessions_history (the session is deleted)', got: err === null ? got : err });
      }
      return;
    }
    if (err !== null) {
      emit('error', { commit, query: desc, message: err });
      return;
    }
    const expected = JSON.parse(ids);
    const res = JSON.parse(got);
    const gotIDs = res.messages.map((m) => m.id);
    summary.hits += gotIDs.length;
    const same = expected.length === gotIDs.length && expected.every((e, i) => e === gotIDs[i]);
    if (!same || res.truncated || res.hasMore) emit('mismatch', { commit, query: desc, expected, got });
  }

  const deadline = Date.now() + cfg.seconds * 1000;
  while (Date.now() < deadline) {
    let commit = -1;
    try {
      q.begin.run();
      commit = q.newest.get();
      if (commit < summary.lastCommit) {
        emit('mismatch', { commit, query: 'newest commit', expected: `>= ${summary.lastCommit} (seen before)`, got: commit });
      }
      if (summary.firstCommit < 0) summary.firstCommit = commit;
      summary.lastCommit = commit;
      let sess = cfg.sessions[rand(cfg.sessions.length)];
      summary.queries++;
      if (rand(4) === 0) {
        history(sess, commit);
      } else {
        if (rand(3) === 0) sess = '';
        search(cfg.words[rand(cfg.words.length)], sess, commit);
      }
      q.commit.run();
    } catch (e) {
      emit('error', { commit, query: 'transaction', message: e.message });
      if (db.inTransaction) q.rollback.run();
    }
  }
  db.close();
  emit('summary', summary);
}

main();
