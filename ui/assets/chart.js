// The activity picture: messages per day (or week, or month, for long
// spans) per agent, as stacked bars in an SVG the page draws itself
// (docs/ui.md U7). Colours come from the style sheet, by agent slot, so
// both themes have their own.

import { number } from './text.js';

const NS = 'http://www.w3.org/2000/svg';
const DAY = 86400000;

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  e.append(...children);
  return e;
}

// dayNumber is the day of a YYYY-MM-DD string, counted from 1970-01-01.
function dayNumber(s) {
  return Math.round(Date.parse(s + 'T00:00:00Z') / DAY);
}

function dayString(n) {
  return new Date(n * DAY).toISOString().slice(0, 10);
}

// bucketOf says which bar a day falls in for a span of so many days.
function bucketing(span) {
  if (span > 3 * 366) {
    return { unit: 'month', of: (d) => dayString(d).slice(0, 7), label: (k) => k };
  }
  if (span > 120) {
    // Weeks start on Monday (1970-01-01 was a Thursday).
    return { unit: 'week', of: (d) => dayString(d - ((d + 3) % 7)), label: (k) => 'week of ' + k };
  }
  return { unit: 'day', of: dayString, label: (k) => k };
}

// colourSlot is an agent's colour, one of eight, from its name: the same
// agent has the same colour whatever the filters.
export function colourSlot(agent) {
  let h = 0;
  for (const c of agent) h = (h * 31 + c.codePointAt(0)) >>> 0;
  return h % 8;
}

// drawActivity draws days ([{day, agent, messages}]) into container, the
// agents stacked in the order given; it returns a sentence that says what
// the picture shows, for its caption.
export function drawActivity(container, days, agents) {
  container.replaceChildren();
  if (days.length === 0) return 'No messages for these filters.';
  const first = dayNumber(days[0].day);
  const last = dayNumber(days[days.length - 1].day);
  const b = bucketing(last - first + 1);
  // Every bucket from the first to the last, empty ones too.
  const keys = [];
  for (let d = first; d <= last; d++) {
    const k = b.of(d);
    if (keys[keys.length - 1] !== k) keys.push(k);
  }
  const totals = new Map(keys.map((k) => [k, 0]));
  const stacks = new Map(keys.map((k) => [k, new Map()]));
  let total = 0;
  for (const d of days) {
    const k = b.of(dayNumber(d.day));
    const s = stacks.get(k);
    s.set(d.agent, (s.get(d.agent) || 0) + d.messages);
    totals.set(k, totals.get(k) + d.messages);
    total += d.messages;
  }
  let peak = keys[0];
  for (const k of keys) if (totals.get(k) > totals.get(peak)) peak = k;
  const max = totals.get(peak);
  const W = 800, H = 140, top = 12, bottom = 22, left = 4;
  const width = (W - left) / keys.length;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', preserveAspectRatio: 'none' });
  const plot = H - top - bottom;
  keys.forEach((k, i) => {
    let y = H - bottom;
    const x = left + i * width;
    const stack = stacks.get(k);
    for (const agent of agents) {
      const n = stack.get(agent);
      if (!n) continue;
      const h = Math.max(1, (n / max) * plot);
      y -= h;
      const w = Math.max(1, Math.min(width * 0.8, 24));
      const bar = svg('rect', { x: x + (width - w) / 2, y, width: w, height: h, class: 'bar s' + colourSlot(agent) },
        svg('title', {}, `${b.label(k)}: ${number.format(n)} messages by ${agent}`));
      chart.append(bar);
    }
  });
  chart.append(
    svg('line', { x1: left, x2: W, y1: H - bottom + 0.5, y2: H - bottom + 0.5, class: 'axis' }),
    svg('text', { x: left, y: H - 6, class: 'tick' }, b.label(keys[0])),
    svg('text', { x: W, y: H - 6, class: 'tick', 'text-anchor': 'end' }, b.label(keys[keys.length - 1])),
    svg('text', { x: left, y: top - 2, class: 'tick' }, `${number.format(max)} messages`),
  );
  const summary = `${number.format(total)} messages ${keys.length > 1 ? `from ${b.label(keys[0])} to ${b.label(keys[keys.length - 1])}` : `on ${b.label(keys[0])}`}, by ${b.unit}; the busiest ${b.unit}: ${b.label(peak)}, ${number.format(max)}.`;
  chart.setAttribute('aria-label', 'Messages per ' + b.unit + ' and agent. ' + summary);
  container.append(chart);
  return summary;
}
