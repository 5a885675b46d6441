package sqlfuncs

import (
	"time"

	"github.com/sessionsearch/sessionsearch/query"
)

// Bounded returns the options of a search whose query had a time phrase
// (docs/search.md Q41) bounded to the period the phrase names at the
// options' now, or at clock when they have none, and what the answer says
// of it. The period and the options' after and before intersect: each
// bound is the tighter of the two, so a phrase never widens what the
// options ask for (and a period outside them finds nothing).
func (o SearchOptions) Bounded(p query.TimePhrase, clock time.Time) (SearchOptions, *TimeRange) {
	now := o.Now
	if now.IsZero() {
		now = clock
	}
	start, end := p.Period(now)
	// after and before are exclusive; the period holds its start.
	if after := start.Add(-time.Millisecond); o.After.IsZero() || after.After(o.After) {
		o.After = after
	}
	if o.Before.IsZero() || end.Before(o.Before) {
		o.Before = end
	}
	return o, &TimeRange{Phrase: p.Text, After: o.SQLAfter().(int64), Before: o.SQLBefore().(int64)}
}
