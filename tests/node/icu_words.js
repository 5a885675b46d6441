// Word-like segments by ICU (Intl.Segmenter), for tests/icu_test.go: an
// independent reference for sessionsearch's UAX #29 word boundaries.
//
// Reads one JSON document on stdin, [{"lang": "de", "text": "..."}, ...],
// and writes one JSON array, an entry per input text: the start and end of
// each word-like segment (isWordLike), flattened, in UTF-16 code units.
'use strict';

const fs = require('fs');

const segmenters = new Map();
function segmenter(lang) {
  let s = segmenters.get(lang);
  if (!s) {
    s = new Intl.Segmenter(lang, { granularity: 'word' });
    segmenters.set(lang, s);
  }
  return s;
}

const items = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = items.map(({ lang, text }) => {
  const bounds = [];
  for (const seg of segmenter(lang).segment(text)) {
    if (seg.isWordLike) bounds.push(seg.index, seg.index + seg.segment.length);
  }
  return bounds;
});
process.stdout.write(JSON.stringify(out));
