"""sessionsearch: the SQLite extension that searches AI agents' transcripts
in every language, for Python's sqlite3 module (docs/install.md P4).

    import sqlite3
    import sessionsearch

    db = sqlite3.connect("sessions.db")
    db.enable_load_extension(True)
    sessionsearch.load(db)
    db.enable_load_extension(False)
    print(db.execute("SELECT sessionsearch_version()").fetchone()[0])

The connection's Python must allow loading extensions (Debian's and most
distributions' do; some builds, pyenv's by default, lack
enable_load_extension).
"""

import os
from importlib.metadata import version as _version

__version__ = _version("sessionsearch")


def loadable_path():
    """The path of the loadable extension, without its .so suffix, as
    sqlite3.Connection.load_extension and SQLite's .load take it."""
    return os.path.normpath(os.path.join(os.path.dirname(__file__), "sessionsearch"))


def load(conn):
    """Loads the extension into conn, a sqlite3.Connection on which
    enable_load_extension(True) was called."""
    conn.load_extension(loadable_path())
