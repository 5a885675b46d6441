// Runs SQL in Node's better-sqlite3, for tests/hosts_test.go.
//
// Usage: node run_sql.js EXTENSION [--db PATH] [--keep-going] < file.sql
//
// Loads EXTENSION (the path of the .so; "" loads nothing) into an in-memory
// database, or the database file PATH, and runs the SQL on stdin one
// statement per line, skipping blank lines and `--` comments, as the sqlite3
// shell would. Each result row is printed with its values joined by `|`:
// NULL as nothing, integers in decimal, text as is (the shell's list mode).
// A failing statement prints `Error: near line N: message` to stderr and
// stops the run, or with --keep-going, moves on to the next line. The line
// `.open` closes the database and opens a fresh one without the extension,
// in the same process, like the shell's `.open`.
'use strict';

const fs = require('fs');
const Database = require('better-sqlite3');

function value(v) {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  throw new TypeError(`golden SQL prints only integers, text and NULL, got ${typeof v} ${v}`);
}

const [extension, ...flags] = process.argv.slice(2);
const keepGoing = flags.includes('--keep-going');
const dbPath = flags.includes('--db') ? flags[flags.indexOf('--db') + 1] : ':memory:';
let db = new Database(dbPath);
if (extension) db.loadExtension(extension);

const out = [];
let failed = false;
const lines = fs.readFileSync(0, 'utf8').split('\n');
for (let i = 0; i < lines.length; i++) {
  const stmt = lines[i].trim();
  if (stmt === '' || stmt.startsWith('--')) continue;
  if (stmt === '.open') {
    db.close();
    db = new Database(':memory:');
    continue;
  }
  try {
    const s = db.prepare(stmt);
    if (s.reader) {
      s.safeIntegers(true).raw(true);
      for (const row of s.iterate()) out.push(row.map(value).join('|') + '\n');
    } else {
      s.run();
    }
  } catch (e) {
    failed = true;
    process.stdout.write(out.splice(0).join(''));
    process.stderr.write(`Error: near line ${i + 1}: ${e.message}\n`);
    if (!keepGoing) break;
  }
}
process.stdout.write(out.join(''));
process.exitCode = failed ? 1 : 0;
