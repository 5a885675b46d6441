package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/sessionsearch/sessionsearch/importer"
)

// progress shows an import as it goes: on a terminal that takes control
// sequences (useStyle), a bar redrawn in place (files, events, MB/s);
// otherwise a plain line after a transcript is
// committed, at most once a second.
type progress struct {
	w          io.Writer
	tty        bool
	width      int
	totalFiles int
	totalBytes int64
	files      int // the file being imported, from 1
	stats      importer.Stats
	start      time.Time
	last       time.Time // of the last line or redraw
	lastCommit int       // transcripts committed at the last plain line
	drawn      bool      // a bar is on the terminal line
}

func newProgress(e *env, w io.Writer, plan importer.Plan) *progress {
	p := &progress{w: w, totalFiles: len(plan.Sources), totalBytes: plan.Bytes(), start: time.Now()}
	if f, ok := w.(*os.File); ok && useStyle(e, w) {
		p.tty = true
		p.width = 80
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			p.width = width
		}
	}
	return p
}

// update takes the importer's counts (Importer.Progress).
func (p *progress) update(s importer.Stats) {
	p.stats = s
	now := time.Now()
	switch {
	case p.tty:
		if now.Sub(p.last) >= 100*time.Millisecond {
			p.draw(now)
		}
	case s.Transcripts > p.lastCommit && (p.lastCommit == 0 || now.Sub(p.last) >= time.Second):
		p.lastCommit = s.Transcripts
		p.last = now
		fmt.Fprintf(p.w, "import: %s\n", p.counts(now))
	}
}

// nextFile counts the source about to be imported.
func (p *progress) nextFile() {
	p.files++
	if p.tty {
		p.draw(time.Now())
	}
}

func (p *progress) counts(now time.Time) string {
	mb := float64(p.stats.Bytes) / 1e6
	rate := mb / max(now.Sub(p.start).Seconds(), 1e-3)
	return fmt.Sprintf("file %d/%d, %d events, %.1f/%.1f MB, %.1f MB/s",
		p.files, p.totalFiles, p.stats.Events, mb, float64(p.totalBytes)/1e6, rate)
}

func (p *progress) draw(now time.Time) {
	p.last = now
	counts := p.counts(now)
	const barWidth = 24
	line := counts
	if p.width >= len(counts)+barWidth+8 { // "[", "] ", "100% ", a margin
		frac := 1.0
		if p.totalBytes > 0 {
			frac = min(float64(p.stats.Bytes)/float64(p.totalBytes), 1)
		}
		done := int(frac * float64(barWidth))
		line = fmt.Sprintf("[%s%s] %3.0f%% %s", strings.Repeat("=", done), strings.Repeat(" ", barWidth-done), frac*100, counts)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.drawn = true
}

// clear removes the bar before a message is printed under it.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// status shows one line of another phase (indexing): in place on a
// terminal, else at most once a second.
func (p *progress) status(format string, args ...any) {
	now := time.Now()
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K"+format, args...)
		p.drawn = true
		return
	}
	if now.Sub(p.last) >= time.Second {
		p.last = now
		fmt.Fprintf(p.w, format+"\n", args...)
	}
}
