package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sessionsearch/sessionsearch/jsonl"
	events "github.com/sessionsearch/sessionsearch/transcript"
)

// MaxLineBytes is the longest transcript line (or database event) imported:
// jsonl.MaxLineBytes.
const MaxLineBytes = jsonl.MaxLineBytes

// currentVersion is the newest session format read as written; older
// versions are migrated to it (see the package comment).
const currentVersion = 3

// header is what the importer uses of a transcript's session header.
type header struct {
	id        string
	createdAt int64 // epoch ms, 0 when absent or unreadable
}

// entryDecoder turns the entries of one transcript, in order, into the
// events to store. It validates each entry and migrates version 1 and 2
// entries; see the package comment.
type entryDecoder struct {
	version int  // of the header; currentVersion when there is none
	index   int  // of the next entry among the transcript's entries
	started bool // an entry has been decoded
	prevID  string
	header  header
}

// probe is the part of an entry every entry is checked for.
type probe struct {
	Type    *string         `json:"type"`
	Version json.RawMessage `json:"version"`
	ID      json.RawMessage `json:"id"`
	Time    json.RawMessage `json:"timestamp"`
}

// asWritten reports whether the next entry is stored as written when it
// is valid: past the first entry of a current transcript.
func (d *entryDecoder) asWritten() bool { return d.started && d.version >= currentVersion }

// decode checks one entry and returns the event to store: the entry itself,
// or its migrated form. line is the entry without surrounding white space.
func (d *entryDecoder) decode(line []byte) ([]byte, error) {
	// Past the first entry of a current transcript, an entry the store
	// reads (transcript.ReadEntry, the rule its trigger applies) is stored
	// as it is: one fast pass instead of encoding/json's. Anything else
	// takes the full check below, for its error.
	if d.asWritten() {
		if _, err := events.ReadEntry(line); err == nil {
			d.index++
			return line, nil
		}
	}
	var p probe
	if len(line) == 0 || line[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(line, &p); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "type" {
			return nil, fmt.Errorf(`"type" must be a string, got %s`, typeErr.Value)
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if p.Type == nil || *p.Type == "" {
		return nil, errors.New(`no "type"`)
	}
	first := !d.started
	d.started = true
	index := d.index
	d.index++
	if first {
		d.version = currentVersion
		if *p.Type == "session" {
			v, err := headerVersion(p.Version)
			if err != nil {
				return nil, err
			}
			d.version = v
			d.header = header{id: jsonString(p.ID), createdAt: epochMillis(p.Time)}
			if v < currentVersion {
				return migrateHeader(line)
			}
			return line, nil
		}
	}
	if d.version >= currentVersion {
		return line, nil
	}
	return d.migrate(line, *p.Type, index)
}

// headerVersion reads the header's version: absent means 1, as in OpenClaw.
func headerVersion(raw json.RawMessage) (int, error) {
	if raw == nil || string(raw) == "null" {
		return 1, nil
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, fmt.Errorf("session header version must be a positive integer, got %s", raw)
	}
	return v, nil
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// epochMillis reads a timestamp written as epoch milliseconds or as an ISO
// 8601 string; 0 when it is neither.
func epochMillis(raw json.RawMessage) int64 {
	var ms float64
	if json.Unmarshal(raw, &ms) == nil {
		return int64(ms)
	}
	t, err := time.Parse(time.RFC3339Nano, jsonString(raw))
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

func migrateHeader(line []byte) ([]byte, error) {
	fields, err := objectFields(line)
	if err != nil {
		return nil, err
	}
	fields["version"] = json.RawMessage(strconv.Itoa(currentVersion))
	return encodeFields(fields)
}

// migrate brings a version 1 or 2 entry to version 3. A version 2 entry
// that needs no change is returned as written.
func (d *entryDecoder) migrate(line []byte, typ string, index int) ([]byte, error) {
	if d.version == 2 && typ != "message" {
		return line, nil
	}
	fields, err := objectFields(line)
	if err != nil {
		return nil, err
	}
	changed := d.version < 2
	if d.version < 2 {
		id := v1EntryID(index)
		fields["id"] = mustJSON(id)
		if d.prevID == "" {
			fields["parentId"] = json.RawMessage("null")
		} else {
			fields["parentId"] = mustJSON(d.prevID)
		}
		d.prevID = id
		if typ == "compaction" {
			if raw, ok := fields["firstKeptEntryIndex"]; ok {
				// The index counts the transcript's entries with the header
				// as 0, so a kept entry before this one has a known id.
				if k, err := strconv.Atoi(string(raw)); err == nil && k >= 1 && k < index {
					fields["firstKeptEntryId"] = mustJSON(v1EntryID(k))
				}
				delete(fields, "firstKeptEntryIndex")
			}
		}
	}
	if typ == "message" {
		renamed, err := renameHookMessage(fields)
		if err != nil {
			return nil, err
		}
		changed = changed || renamed
	}
	if !changed {
		return line, nil
	}
	return encodeFields(fields)
}

// v1EntryID is the id a version 1 entry gets: stable across imports, and
// unable to collide, as version 1 entries have no ids of their own.
func v1EntryID(index int) string { return "v1-" + strconv.Itoa(index) }

// renameHookMessage turns a version 2 "hookMessage" into a version 3
// "custom" message, reporting whether the entry was one.
func renameHookMessage(fields map[string]json.RawMessage) (bool, error) {
	raw, ok := fields["message"]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return false, nil
	}
	msg, err := objectFields(raw)
	if err != nil {
		return false, err
	}
	if jsonString(msg["role"]) != "hookMessage" {
		return false, nil
	}
	msg["role"] = mustJSON("custom")
	if jsonString(msg["customType"]) == "" {
		msg["customType"] = mustJSON("hook")
	}
	enc, err := encodeFields(msg)
	if err != nil {
		return false, err
	}
	fields["message"] = enc
	return true, nil
}

func objectFields(b []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return fields, nil
}

// encodeFields encodes an object with sorted keys and without escaping <, >
// and &, so text stays as written.
func encodeFields(fields map[string]json.RawMessage) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}
