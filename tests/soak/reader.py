#!/usr/bin/python3
"""A soak reader in Python's sqlite3 module, for tests/soak/soak_test.go.

Usage: /usr/bin/python3 reader.py CONFIG_JSON

Opens the soak database read-only with a busy timeout, loads the extension
and, until the configured time is up, checks searches and histories against
what the writer published in the same snapshot, exactly as reader_test.go
describes. Prints one JSON object a line: {"mismatch": ...} or
{"error": ...} as they happen, and {"summary": ...} at the end.
"""

import json
import random
import sqlite3
import sys
import time

SEARCH_LIMIT = 25


def emit(kind, value):
    sys.stdout.write(json.dumps({kind: value}, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def check_search(expected, hits, truncated, indexing):
    expected = sorted(expected)
    got = sorted(hits)
    if indexing:
        return "indexing is true"
    if len(set(got)) != len(got):
        return "a hit is repeated"
    if len(expected) <= SEARCH_LIMIT:
        if expected != got:
            return "the hits are not the expected set"
        if truncated:
            return "truncated with every hit returned"
        return ""
    if len(got) != SEARCH_LIMIT:
        return "%d hits, expected the limit %d" % (len(got), SEARCH_LIMIT)
    if not truncated:
        return "more hits than the limit, but not truncated"
    wanted = set(expected)
    for h in hits:
        if h not in wanted:
            return "hit %s is not expected" % h
    return ""


def search(con, cfg, query, sess, commit, summary):
    opts = {"caller": cfg["caller"], "limit": SEARCH_LIMIT}
    if sess:
        opts["sessionKey"] = sess
    opts_json = json.dumps(opts, separators=(",", ":"))
    desc = "sessions_search(%s, %s)" % (json.dumps(query, ensure_ascii=False), opts_json)
    start = time.perf_counter()
    got, err = None, None
    try:
        got = con.execute("SELECT sessions_search(?, ?)", (query, opts_json)).fetchone()[0]
    except sqlite3.Error as e:
        err = str(e)
    summary["searchUs"].append(int((time.perf_counter() - start) * 1e6))
    if sess and con.execute("SELECT 1 FROM soak_history WHERE session_key = ?", (sess,)).fetchone() is None:
        if err is None or "sessions_search" not in err:
            emit("mismatch", {"commit": commit, "query": desc,
                              "expected": "an error naming sessions_search (the session is deleted)",
                              "got": got if err is None else err})
        return
    if err is not None:
        emit("error", {"commit": commit, "query": desc, "message": err})
        return
    expected = []
    for key, ids in con.execute(
        "SELECT session_key, ids FROM soak_expected WHERE word = ?1 AND (?2 = '' OR session_key = ?2)",
        (query, sess),
    ):
        expected.extend(key + "/" + i for i in json.loads(ids))
    res = json.loads(got)
    hits = [h["sessionKey"] + "/" + h["messageId"] for h in res["results"]]
    summary["hits"] += len(hits)
    problem = check_search(expected, hits, res["truncated"], res["indexing"])
    if problem:
        emit("mismatch", {"commit": commit, "query": desc + ": " + problem, "expected": sorted(expected), "got": got})


def history(con, cfg, sess, commit, summary):
    opts_json = json.dumps({"caller": cfg["caller"], "limit": 1000, "maxBytes": 4194304}, separators=(",", ":"))
    desc = "sessions_history(%s, %s)" % (json.dumps(sess), opts_json)
    start = time.perf_counter()
    got, err = None, None
    try:
        got = con.execute("SELECT sessions_history(?, ?)", (sess, opts_json)).fetchone()[0]
    except sqlite3.Error as e:
        err = str(e)
    summary["historyUs"].append(int((time.perf_counter() - start) * 1e6))
    row = con.execute("SELECT ids FROM soak_history WHERE session_key = ?", (sess,)).fetchone()
    if row is None:
        if err is None or "sessions_history" not in err:
            emit("mismatch", {"commit": commit, "query": desc,
                              "expected": "an error naming sessions_history (the session is deleted)",
                              "got": got if err is None else err})
        return
    if err is not None:
        emit("error", {"commit": commit, "query": desc, "message": err})
        return
    expected = json.loads(row[0])
    res = json.loads(got)
    ids = [m["id"] for m in res["messages"]]
    summary["hits"] += len(ids)
    if ids != expected or res["truncated"] or res["hasMore"]:
        emit("mismatch", {"commit": commit, "query": desc, "expected": expected, "got": got})


def main():
    cfg = json.loads(sys.argv[1])
    con = sqlite3.connect("file:%s?mode=ro" % cfg["db"], uri=True, timeout=10, isolation_level=None)
    con.enable_load_extension(True)
    con.load_extension(cfg["extension"])
    con.enable_load_extension(False)
    rng = random.Random(cfg["seed"])
    summary = {"name": cfg["name"], "queries": 0, "hits": 0, "firstCommit": -1, "lastCommit": 0,
               "searchUs": [], "historyUs": []}
    deadline = time.monotonic() + cfg["seconds"]
    while time.monotonic() < deadline:
        commit = -1
        try:
            con.execute("BEGIN")
            commit = con.execute("SELECT max(seq) FROM soak_commits").fetchone()[0]
            if commit < summary["lastCommit"]:
                emit("mismatch", {"commit": commit, "query": "newest commit",
                                  "expected": ">= %d (seen before)" % summary["lastCommit"], "got": commit})
            if summary["firstCommit"] < 0:
                summary["firstCommit"] = commit
            summary["lastCommit"] = commit
            sess = rng.choice(cfg["sessions"])
            summary["queries"] += 1
            if rng.randrange(4) == 0:
                history(con, cfg, sess, commit, summary)
            else:
                if rng.randrange(3) == 0:
                    sess = ""
                search(con, cfg, rng.choice(cfg["words"]), sess, commit, summary)
            con.execute("COMMIT")
        except sqlite3.Error as e:
            emit("error", {"commit": commit, "query": "transaction", "message": str(e)})
            if con.in_transaction:
                con.execute("ROLLBACK")
    con.close()
    emit("summary", summary)


if __name__ == "__main__":
    main()
