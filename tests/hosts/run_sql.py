#!/usr/bin/python3
"""Runs SQL in Python's sqlite3 module, for tests/hosts_test.go.

Usage: /usr/bin/python3 run_sql.py EXTENSION [--db PATH] [--keep-going] < file.sql

Loads EXTENSION (a path without its suffix; "" loads nothing) into an
in-memory database, or the database file PATH, and runs the SQL on stdin one
statement per line, skipping blank lines and `--` comments, as the sqlite3
shell would. Each result row is printed with its values joined by `|`: NULL
as nothing, integers in decimal, text as is (the shell's list mode). A
failing statement prints `Error: near line N: message` to stderr and stops
the run, or with --keep-going, moves on to the next line. The line `.open`
closes the database and opens a fresh one without the extension, in the same
process, like the shell's `.open`. Debian's /usr/bin/python3 is needed: its
sqlite3 module is built with extension loading.
"""

import sqlite3
import sys


class Text(bytes):
    """Text values, kept as bytes: text need not be valid UTF-8."""


def value(v):
    if v is None:
        return b""
    if isinstance(v, Text):
        return bytes(v)
    if isinstance(v, int):
        return str(v).encode()
    raise TypeError(
        "golden SQL prints only integers, text and NULL, got %s %r" % (type(v).__name__, v)
    )


def connect(extension, db=":memory:"):
    con = sqlite3.connect(db, isolation_level=None)
    con.text_factory = Text
    if extension:
        con.enable_load_extension(True)
        con.load_extension(extension)
        con.enable_load_extension(False)
    return con


def main():
    extension = sys.argv[1]
    keep_going = "--keep-going" in sys.argv[2:]
    db = ":memory:"
    if "--db" in sys.argv[2:]:
        db = sys.argv[sys.argv.index("--db") + 1]
    con = connect(extension, db)
    out = sys.stdout.buffer
    failed = False
    for n, line in enumerate(sys.stdin.buffer.read().decode("utf-8").split("\n"), 1):
        stmt = line.strip()
        if not stmt or stmt.startswith("--"):
            continue
        if stmt == ".open":
            con.close()
            con = connect("")
            continue
        try:
            for row in con.execute(stmt):
                out.write(b"|".join(value(v) for v in row) + b"\n")
        except (sqlite3.Error, TypeError) as e:
            failed = True
            out.flush()
            sys.stderr.write("Error: near line %d: %s\n" % (n, e))
            sys.stderr.flush()
            if not keep_going:
                break
    out.flush()
    sys.exit(1 if failed else 0)


main()
