package importer

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ColdArchiveEvent reads one line of an OpenClaw cold archive
// (sessions/cold/<sha256>.jsonl.zst, or its blob in the database) and
// returns the event it holds, ok false for a line that holds none
// (docs/sync.md Y7). Two line formats are read:
//
//   - The record envelope OpenClaw writes (src/config/sessions/
//     session-cold-storage-worker.ts @9e1d904f, "sqlite-transcript-archive-v2"):
//     a {"kind":"header",...} line, then {"kind":"event","row":{"seq",
//     "event_json","created_at"}} lines in seq order, then the window's
//     identity, active, index and fts records, which the store derives
//     itself. The event is row.event_json.
//   - Plain event lines (a line with a "type"), as the archive's raw_bytes
//     accounting (the events joined by newlines) describes it.
//
// A line with another kind, or an event record without its event, is an
// error naming what is wrong.
func ColdArchiveEvent(line []byte) (event []byte, ok bool, err error) {
	var rec struct {
		Kind *string `json:"kind"`
		Type *string `json:"type"`
		Row  *struct {
			Seq       *int64  `json:"seq"`
			EventJSON *string `json:"event_json"`
		} `json:"row"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, false, fmt.Errorf("cold archive line is not a JSON object: %w", err)
	}
	switch {
	case rec.Kind == nil && rec.Type != nil:
		return line, true, nil
	case rec.Kind == nil:
		return nil, false, errors.New(`cold archive line has neither "kind" nor "type"`)
	}
	switch *rec.Kind {
	case "event":
		if rec.Row == nil || rec.Row.EventJSON == nil {
			return nil, false, errors.New(`cold archive event record has no row.event_json`)
		}
		return []byte(*rec.Row.EventJSON), true, nil
	case "header", "identity", "active", "index", "fts":
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("cold archive record of unknown kind %q", *rec.Kind)
}
