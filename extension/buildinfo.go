package extension

import (
	"fmt"
	"runtime"

	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// BuildInfo is what a build of sessionsearch is made of: what
// sessionsearch_debug() reports and `sessionsearch version` prints
// (docs/cli.md C26).
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"built"`
	Go        string `json:"go"`        // the Go release
	Platform  string `json:"platform"`  // GOOS/GOARCH
	SQLite    string `json:"sqlite"`    // the SQLite library the extension runs in
	Unicode   string `json:"unicode"`   // the Unicode version of the tokenizer's tables
	Tokenizer int    `json:"tokenizer"` // tokenizer.Version
	Index     string `json:"index"`     // store.IndexVersion: tokenizer, redaction and entries' layout versions of the index
	Schema    int    `json:"schema"`    // store.SchemaVersion
}

// Build describes this build, running in SQLite sqliteVersion.
func Build(sqliteVersion string) BuildInfo {
	return BuildInfo{
		Version: Version, Commit: Commit, BuildDate: BuildDate,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		SQLite: sqliteVersion, Unicode: tokenizer.UnicodeVersion,
		Tokenizer: tokenizer.Version, Index: store.IndexVersion, Schema: store.SchemaVersion,
	}
}

// String is sessionsearch_debug()'s answer.
func (b BuildInfo) String() string {
	return fmt.Sprintf("version=%s commit=%s built=%s go=%s sqlite=%s unicode=%s tokenizer=%d index=%s",
		b.Version, b.Commit, b.BuildDate, b.Go, b.SQLite, b.Unicode, b.Tokenizer, b.Index)
}
