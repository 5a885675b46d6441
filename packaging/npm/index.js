"use strict";
// sessionsearch for Node.js (docs/install.md P5): load(db) loads the SQLite
// extension into a better-sqlite3 Database, or into a node:sqlite
// DatabaseSync opened with { allowExtension: true }. Both take the path of
// the shared object; SQLite finds the entry point from its name.

const { join } = require("node:path");
const { existsSync } = require("node:fs");

// The builds this package holds, by process.platform-process.arch.
const builds = ["linux-x64", "linux-arm64"];

function getLoadablePath() {
  const key = `${process.platform}-${process.arch}`;
  if (!builds.includes(key)) {
    throw new Error(`sessionsearch: no build for ${key}; this package holds ${builds.join(", ")}`);
  }
  const path = join(__dirname, "lib", key, "sessionsearch.so");
  if (!existsSync(path)) {
    throw new Error(`sessionsearch: ${path} is missing from the package`);
  }
  return path;
}

function load(db) {
  if (db === null || typeof db !== "object" || typeof db.loadExtension !== "function") {
    throw new TypeError("sessionsearch.load: db must be a better-sqlite3 Database or a node:sqlite DatabaseSync, got " + (db === null ? "null" : typeof db));
  }
  db.loadExtension(getLoadablePath());
}

module.exports = { getLoadablePath, load };
