package importer

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/sessionsearch/sessionsearch/jsonl"
)

// The pieces of the importer that other readers of OpenClaw's stores (the
// syncer) reuse, so that every program that copies a transcript decodes,
// migrates and keys it the same way.

// ErrLineTooLong is the error of a line or event longer than MaxLineBytes.
var ErrLineTooLong = jsonl.ErrLineTooLong

// Decoder validates and migrates the entries of one transcript, in order
// (see the package comment, "Versions").
type Decoder struct{ d entryDecoder }

// NewDecoder returns a decoder for a transcript read from its start.
func NewDecoder() *Decoder { return &Decoder{} }

// ResumeDecoder returns a decoder for entries appended to a transcript
// whose header (if any) was read before and is of the current version, so
// its entries are stored as written.
func ResumeDecoder() *Decoder {
	return &Decoder{d: entryDecoder{version: currentVersion, started: true, index: 1}}
}

// Decode checks one entry (without surrounding white space) and returns the
// event to store.
func (d *Decoder) Decode(line []byte) ([]byte, error) { return d.d.decode(line) }

// Resumable reports whether entries appended later can be decoded by
// ResumeDecoder: the transcript is of the current version.
func (d *Decoder) Resumable() bool { return !d.d.started || d.d.version >= currentVersion }

// HeaderCreatedAt is the header's time in epoch ms; 0 without one.
func (d *Decoder) HeaderCreatedAt() int64 { return d.d.header.createdAt }

// LineReader reads JSONL lines of up to MaxLineBytes with bounded memory.
type LineReader = jsonl.Reader

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader { return jsonl.NewReader(r) }

// EventCodec turns a stored agent database event into its JSON: event_json,
// or the decoded event_zstd frame, whose length must be event_utf8_bytes
// when that is recorded. A frame that fails its checksum or decodes past
// MaxLineBytes is an error.
type EventCodec struct{ zstd *zstd.Decoder }

// Event returns the event's JSON.
func (c *EventCodec) Event(text, frame []byte, size sql.NullInt64) ([]byte, error) {
	data := text
	if data == nil {
		data = frame
	}
	if data == nil {
		return nil, errors.New("event has neither event_json nor event_zstd")
	}
	if !bytes.HasPrefix(data, zstdMagic) {
		return data, nil
	}
	if c.zstd == nil {
		var err error
		c.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxLineBytes))
		if err != nil {
			return nil, err
		}
	}
	out, err := c.zstd.DecodeAll(data, nil)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if size.Valid && int64(len(out)) != size.Int64 {
		return nil, fmt.Errorf("zstd event decodes to %d bytes, event_utf8_bytes says %d", len(out), size.Int64)
	}
	return out, nil
}

// Close releases the decoder.
func (c *EventCodec) Close() {
	if c.zstd != nil {
		c.zstd.Close()
		c.zstd = nil
	}
}

// ArchiveKind is "reset", "deleted" or "bak" for a transcript archive file
// name (<file>.jsonl.<kind>.<ts>, optionally .zst), "" for other names; ts
// is the archive's time as the name writes it.
func ArchiveKind(name string) (kind, ts string) {
	if m := archiveRE.FindStringSubmatch(filepath.Base(name)); m != nil {
		return m[2], m[3]
	}
	return "", ""
}

// SessionIDOf returns the session id a transcript file name carries.
func SessionIDOf(name string) string { return sessionIDOf(filepath.Base(name)) }

// AgentOf returns the agent id of a directory agents/<agentId>/sessions or
// agents/<agentId>/agent, else DefaultAgentID.
func AgentOf(dir string) string { return agentOf(dir) }

// ZstdReader decodes a zstd stream of at most max decoded bytes; a larger
// one fails with an error when it passes the limit.
func ZstdReader(r io.Reader, max int64) (io.ReadCloser, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
	if err != nil {
		return nil, err
	}
	return &cappedReader{dec: dec, left: max, max: max}, nil
}

type cappedReader struct {
	dec       *zstd.Decoder
	left, max int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One more byte tells a stream of exactly max bytes from a longer one.
		var b [1]byte
		if n, _ := c.dec.Read(b[:]); n > 0 {
			return 0, fmt.Errorf("zstd: decodes to more than %d MiB", c.max>>20)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.dec.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("zstd: %w", err)
	}
	return n, err
}

func (c *cappedReader) Close() error { c.dec.Close(); return nil }
