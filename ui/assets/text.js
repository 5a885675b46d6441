// Transcript text on the page. A transcript is hostile input: its text is
// only ever a DOM text node, never markup, so `<script>`, `<img onerror>`
// and `javascript:` are letters; nothing in it becomes a link. Characters
// that would change how the text around them reads are shown as what they
// are (docs/ui.md U3): control characters, and the bidirectional embeddings,
// overrides and isolates with which a text can make itself look like
// another (Trojan Source). The marks of the page's search are <mark>
// elements around the matched ranges, which the server found.

// shown: the characters drawn as a labelled box instead of themselves.
const shown = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

const names = {
  0x202a: 'LEFT-TO-RIGHT EMBEDDING', 0x202b: 'RIGHT-TO-LEFT EMBEDDING', 0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE', 0x202e: 'RIGHT-TO-LEFT OVERRIDE', 0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE', 0x2068: 'FIRST STRONG ISOLATE', 0x2069: 'POP DIRECTIONAL ISOLATE',
};

// codePoint is U+XXXX.
function codePoint(c) {
  return 'U+' + c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
}

// appendPlain appends text with its control characters shown.
function appendPlain(parent, text) {
  let at = 0;
  for (const m of text.matchAll(shown)) {
    if (m.index > at) parent.append(text.slice(at, m.index));
    const box = document.createElement('span');
    box.className = 'ctl';
    const name = names[m[0].codePointAt(0)] || 'control character';
    box.title = `${codePoint(m[0])} ${name}`;
    box.textContent = codePoint(m[0]);
    parent.append(box);
    at = m.index + m[0].length;
  }
  if (at < text.length) parent.append(text.slice(at));
}

// appendText appends text to parent, the ranges ([start, end) in UTF-16
// code units, sorted and disjoint, as POST /v1/highlight gives them)
// inside <mark>.
export function appendText(parent, text, ranges) {
  let at = 0;
  for (const [start, end] of ranges || []) {
    if (start < at || end > text.length || end <= start) continue;
    appendPlain(parent, text.slice(at, start));
    const mark = document.createElement('mark');
    appendPlain(mark, text.slice(start, end));
    parent.append(mark);
    at = end;
  }
  appendPlain(parent, text.slice(at));
}

// el makes an element with a class and children (strings are text).
export function el(tag, className, ...children) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c);
  }
  return e;
}

// isolated is text in a <bdi>: a key or id whose direction must not leak
// into what is around it.
export function isolated(text, className) {
  const b = el('bdi', className);
  appendPlain(b, text);
  return b;
}

// copyButton copies text to the clipboard when pressed, and says so.
export function copyButton(text, label) {
  const b = el('button', 'copy', 'Copy');
  b.type = 'button';
  b.setAttribute('aria-label', label);
  b.addEventListener('click', async () => {
    const ok = await copy(text);
    b.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  });
  return b;
}

// copy writes text to the clipboard; a page served over plain HTTP from
// another machine has no Clipboard API, so a selected text area and the
// copy command are the fallback.
export async function copy(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through
  }
  const area = el('textarea', 'offscreen');
  area.value = text;
  area.setAttribute('readonly', '');
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

// when is a <time> of epoch milliseconds, in local time.
export function when(ms, withTime = true) {
  const t = el('time');
  if (!ms) {
    t.textContent = 'no time';
    return t;
  }
  const d = new Date(ms);
  t.dateTime = d.toISOString();
  t.textContent = (withTime ? dateTime : dateOnly).format(d);
  return t;
}

export const number = new Intl.NumberFormat();
