// The page (docs/ui.md): search as you type, filters, results by message or
// by session, a session's messages, and the activity picture. The address
// holds the query, the filters and the open session, so every view is a
// link; the page reads only the HTTP API (api.js).

import { api, APIError, takeTokenFromFragment, signIn, signOut, hasCredentials } from './api.js';
import { appendText, el, isolated, copyButton, when, number } from './text.js';
import { drawActivity, colourSlot } from './chart.js';

const $ = (id) => document.getElementById(id);
const DAY = 86400000;

// The search options this server's search takes (GET /v1/options): the
// page offers a filter only where the search has it.
let searchOptions = new Set();

// state is what the address says: the query, the filters, the session.
function readState() {
  const p = new URLSearchParams(location.search);
  return {
    q: p.get('q') || '',
    agent: p.get('agent') || '',
    project: p.get('project') || '',
    time: p.get('time') || '',
    from: p.get('from') || '',
    to: p.get('to') || '',
    role: p.get('role') || '',
    order: p.get('order') || '',
    scope: p.get('scope') || '',
    group: p.get('group') === 'session',
    session: p.get('session') || '',
    m: p.get('m') || '',
    tools: p.get('tools') === '1',
  };
}

function stateURL(s) {
  const p = new URLSearchParams();
  for (const k of ['q', 'agent', 'project', 'time', 'from', 'to', 'role', 'order', 'scope', 'session', 'm']) {
    if (s[k] && (k !== 'from' && k !== 'to' || s.time === 'range')) p.set(k, s[k]);
  }
  if (s.group) p.set('group', 'session');
  if (s.tools && s.session) p.set('tools', '1');
  const qs = p.toString();
  return location.pathname + (qs ? '?' + qs : '');
}

// The form shows the state, and the state is read back from the form.
function showState(s) {
  if ($('q').value !== s.q) $('q').value = s.q;
  ensureOption($('agent'), s.agent);
  $('agent').value = s.agent;
  ensureOption($('project'), s.project);
  $('project').value = s.project;
  $('time').value = s.time;
  $('from').value = s.from;
  $('to').value = s.to;
  $('range').hidden = s.time !== 'range';
  $('role').value = s.role;
  $('order').value = s.order;
  $('scope').value = scopes[s.scope] ? s.scope : '';
  $('group').checked = s.group;
  $('tools').checked = s.tools;
}

function formState() {
  return {
    ...readState(),
    q: $('q').value,
    agent: $('agent').value,
    project: $('project').value,
    time: $('time').value,
    from: $('from').value,
    to: $('to').value,
    role: $('role').value,
    order: $('order').value,
    scope: $('scope').value,
    group: $('group').checked,
    session: '',
    m: '',
  };
}

function ensureOption(select, value) {
  if (!value || [...select.options].some((o) => o.value === value)) return;
  select.append(new Option(value, value));
}

// localDay is the epoch milliseconds of a YYYY-MM-DD's local midnight.
function localDay(s) {
  const [y, m, d] = s.split('-').map(Number);
  return new Date(y, m - 1, d).getTime();
}

// filters are the options the search and the activity share: the picture
// counts what the search reads. Agent and role are sent only where the
// search takes them.
function filters(s) {
  const f = {};
  const preset = { '1d': 1, '7d': 7, '30d': 30, '365d': 365 }[s.time];
  if (preset) f.after = Date.now() - preset * DAY;
  if (s.time === 'range') {
    if (s.from) f.after = localDay(s.from) - 1; // after is exclusive
    if (s.to) f.before = localDay(s.to) + DAY;
  }
  if (s.project) f.project = s.project;
  if (s.agent && searchOptions.has('agent')) f.agent = s.agent;
  if (s.role && searchOptions.has('role')) f.role = s.role;
  return f;
}

// prefix: while a word is being typed it matches as a prefix, once it has
// two characters (one, in the scripts written without spaces, whose
// characters are words of their own); a space after it ends it. A prefix
// of one Latin letter names most of a language's words, and costs a
// search of a million messages half a second (docs/ui.md U4).
const oneCharWords = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;

function queryOf(s) {
  const query = s.q.trim();
  const words = query.split(/\s+/);
  const last = [...(words[words.length - 1] || '')];
  const typing = query !== '' && !/\s$/.test(s.q);
  return { query, prefix: typing && (last.length >= 2 || oneCharWords.test(last.join(''))) };
}

function setStatus(text) {
  $('status').textContent = text;
}

function showError(e) {
  if (e && e.name === 'AbortError') return;
  if (e instanceof APIError && e.status === 401) {
    signOut();
    showSignIn('The server did not accept the token: ' + e.message);
    return;
  }
  $('error').textContent = e ? (e instanceof APIError ? e.message : 'The server could not be reached: ' + e.message) : '';
}

// sessionHref is the address of a session's view, at a message, keeping
// the query and filters for the way back; a tool hit's view shows the
// tools, so that its message is there.
function sessionHref(s, key, messageId, tool) {
  return stateURL({ ...s, session: key, m: messageId || '', tools: s.tools || !!tool });
}

// scopes are the choices of the scope control and the search's scope of
// each (docs/ui.md U13); messages alone is the search's default.
const scopes = { toolCalls: ['toolCalls'], toolResults: ['toolResults'], all: ['messages', 'toolCalls', 'toolResults'] };
const kindNames = { toolCall: 'tool call', toolResult: 'tool result' };

function agentOf(key) {
  const m = /^agent:([^:]+):/i.exec(key);
  return m ? m[1].toLowerCase() : 'main';
}

// ---- Search ----------------------------------------------------------

let searchRun = { abort() {} };
let searchSeq = 0;

// search runs the state's query and draws the results; keyTime is the
// keystroke's time, for the benchmark's measure (docs/ui.md U12).
async function search(s, keyTime) {
  searchRun.abort();
  const run = new AbortController();
  searchRun = run;
  const seq = ++searchSeq;
  const { query, prefix } = queryOf(s);
  if (!query) {
    $('results').replaceChildren();
    setStatus('');
    showError(null);
    return;
  }
  const body = { query, prefix, limit: 25, snippetChars: 240, ...filters(s) };
  // The search takes a list of agents; the activity, one.
  if (body.agent) body.agent = [body.agent];
  // People ask here as at the command line (docs/search.md Q31): the query
  // language and relaxed matching, where the server's search takes them.
  if (searchOptions.has('syntax')) body.syntax = 'query';
  if (searchOptions.has('match')) body.match = 'relaxed';
  if (s.order) body.order = s.order;
  if (scopes[s.scope] && searchOptions.has('scope')) body.scope = scopes[s.scope];
  if (s.group && searchOptions.has('group')) body.group = 'session';
  try {
    const res = await api.search(body, run.signal);
    const searched = performance.now();
    const texts = res.results.map((r) => r.snippet);
    const hl = texts.length ? await api.highlight({ query, prefix, texts }, run.signal) : { matches: [] };
    if (seq !== searchSeq) return;
    const marked = performance.now();
    showError(null);
    drawResults(s, res, hl.matches);
    if (keyTime !== undefined) {
      // The benchmark's measures: key to results drawn, and its parts.
      requestAnimationFrame(() => {
        performance.measure('sessionsearch:search', { start: keyTime, end: searched });
        performance.measure('sessionsearch:highlight', { start: searched, end: marked });
        performance.measure('sessionsearch:results', { start: keyTime, end: performance.now() });
      });
    }
  } catch (e) {
    if (seq === searchSeq) showError(e);
  }
}

function hitItem(s, r, ranges) {
  const a = el('a', 'hit');
  const tool = kindNames[r.kind];
  a.href = sessionHref(s, r.sessionKey, r.messageId, tool);
  a.dataset.session = r.sessionKey;
  a.dataset.message = r.messageId;
  // A tool hit says what it is and which tool, where a message's role goes
  // (U14).
  const head = el('span', 'hit-head',
    el('span', 'agent', agentOf(r.sessionKey)), ' ',
    isolated(r.sessionKey, 'key'), ' ',
    tool ? el('span', 'role tool', tool + ' ', isolated(r.tool || '', 'tool-name')) : el('span', 'role', r.role), ' ',
    when(r.timestamp));
  if (typeof r.match === 'string') head.append(' ', el('span', 'kind', r.match));
  const snippet = el('span', 'snippet');
  snippet.dir = 'auto';
  appendText(snippet, r.snippet, ranges);
  a.append(head, snippet);
  return el('li', null, a);
}

function drawResults(s, res, matches) {
  const list = $('results');
  list.dataset.query = s.q;
  const items = res.results.map((r, i) => ({ r, item: hitItem(s, r, matches[i]) }));
  if (s.group) {
    // Results by session, in the order of each session's best hit.
    const groups = new Map();
    for (const x of items) {
      if (!groups.has(x.r.sessionKey)) groups.set(x.r.sessionKey, []);
      groups.get(x.r.sessionKey).push(x.item);
    }
    list.replaceChildren(...[...groups].map(([key, hits]) => {
      const link = el('a', null, isolated(key, 'key'));
      link.href = sessionHref(s, key, '');
      const h = el('h2', 'group-head', el('span', 'agent', agentOf(key)), ' ', link, ' ',
        el('span', 'count', `${hits.length} ${hits.length === 1 ? 'hit' : 'hits'}`));
      return el('li', 'group', h, el('ol', 'results', ...hits));
    }));
  } else {
    list.replaceChildren(...items.map((x) => x.item));
  }
  const n = res.results.length;
  let text = n === 0 ? `No results${whoText ? ' as ' + whoText : ''}.` : `${n} ${n === 1 ? 'result' : 'results'}${s.group ? ` in ${list.children.length} sessions` : ''}.`;
  if (res.truncated) text += ' There are more: narrow the query or the filters.';
  if (res.indexing) text += ' Indexing is in progress: results may be incomplete.';
  setStatus(text);
}

// ---- Activity --------------------------------------------------------

let activityRun = { abort() {} };
let activityTimer = 0;

// scheduleActivity counts the activity once the typing pauses: a count
// reads many more rows than a search, so one that is under way stops when
// the next key comes, and the search goes first.
function scheduleActivity(s) {
  clearTimeout(activityTimer);
  activityRun.abort();
  activityTimer = setTimeout(() => loadActivity(s), 600);
}

async function loadActivity(s) {
  activityRun.abort();
  const run = new AbortController();
  activityRun = run;
  const { query, prefix } = queryOf(s);
  const body = { ...filters(s), utcOffsetMinutes: -new Date().getTimezoneOffset() };
  if (query) Object.assign(body, { query, prefix });
  try {
    const act = await api.activity(body, run.signal);
    fillChoices($('agent'), act.agents.map((a) => [a.agent, a.messages]), s.agent);
    fillChoices($('project'), act.projects.map((p) => [p.project, p.messages]), s.project);
    const order = act.agents.map((a) => a.agent);
    for (const d of act.days) if (!order.includes(d.agent)) order.push(d.agent);
    const caption = drawActivity($('chart'), act.days, order);
    $('activity-caption').textContent = (query ? 'Messages that match, ' : 'Messages, ') + 'per day and agent: ' + caption;
    $('legend').replaceChildren(...order.filter((a) => act.days.some((d) => d.agent === a))
      .map((a) => el('li', null, el('span', 'swatch s' + colourSlot(a)), a)));
    $('activity').hidden = false;
  } catch (e) {
    showError(e);
  }
}

// fillChoices lists the choices of a filter, with their message counts,
// keeping the one chosen.
function fillChoices(select, choices, chosen) {
  const keep = select.options[0];
  const options = choices.map(([value, n]) => {
    const o = new Option(`${value} (${number.format(n)})`, value);
    return o;
  });
  select.replaceChildren(keep, ...options);
  ensureOption(select, chosen);
  select.value = chosen;
}

// ---- A session -------------------------------------------------------

let sessionRun = { abort() {} };
let loaded = []; // the messages shown, oldest first
let edges = { earlier: false, later: false };

const windowSize = 60;

// edgesOf says on which sides of anchor a window of the history may have
// more: the window grows one older, one newer, in turn, so a side that
// holds fewer than its half ran out (docs/search.md Q16).
function edgesOf(hist, anchor) {
  const at = hist.messages.findIndex((m) => m.id === anchor);
  if (!anchor || at < 0) return { earlier: hist.hasMore, later: false };
  const newer = hist.messages.length - 1 - at;
  return {
    earlier: hist.hasMore && at >= Math.ceil((windowSize - 1) / 2),
    later: hist.hasMore && newer >= Math.floor((windowSize - 1) / 2),
  };
}

function historyBody(s, messageId) {
  const body = { sessionKey: s.session, limit: windowSize, maxChars: 20000, maxBytes: 2 << 20 };
  if (messageId) body.messageId = messageId;
  if (s.tools) body.includeTools = true;
  return body;
}

async function openSession(s) {
  sessionRun.abort();
  const run = new AbortController();
  sessionRun = run;
  $('session-key').replaceChildren(isolated(s.session));
  $('copy-key').replaceChildren(copyButton(s.session, 'Copy the session key'));
  $('back').href = stateURL({ ...s, session: '', m: '' });
  $('session-meta').replaceChildren();
  $('messages').replaceChildren();
  document.title = `Session ${s.session} — sessionsearch`;
  try {
    const [info, hist] = await Promise.all([
      api.session({ sessionKey: s.session }, run.signal),
      api.history(historyBody(s, s.m), run.signal),
    ]);
    drawMeta(s, info);
    loaded = hist.messages;
    edges = edgesOf(hist, s.m);
    await drawMessages(s, run.signal);
    const target = s.m && document.querySelector('#messages .hit');
    const focus = target || $('session-title');
    focus.setAttribute('tabindex', '-1');
    focus.focus({ preventScroll: true });
    focus.scrollIntoView({ block: target ? 'center' : 'start' });
    setStatus(s.m && !target ? 'That message is not on the session’s active path any more.' : '');
    showError(null);
  } catch (e) {
    if (e instanceof APIError && e.status === 404) {
      setStatus('');
      showError(e);
      return;
    }
    showError(e);
  }
}

function metaRow(dl, term, ...values) {
  dl.append(el('dt', null, term), el('dd', null, ...values));
}

function sessionLink(s, key) {
  const a = el('a', 'session-link', isolated(key, 'key'));
  a.href = sessionHref({ ...s, m: '' }, key, '');
  return a;
}

function drawMeta(s, info) {
  const dl = $('session-meta');
  metaRow(dl, 'Agent', info.agent);
  if (info.project) metaRow(dl, 'Project', isolated(info.project, 'path'), ' ', copyButton(info.project, 'Copy the project directory'));
  if (info.createdAt) metaRow(dl, 'Started', when(info.createdAt));
  const span = info.firstMessage ? [' from ', when(info.firstMessage), ' to ', when(info.lastMessage)] : [];
  metaRow(dl, 'Messages', number.format(info.messages), ...span, info.pending ? ' (being indexed)' : '');
  if (info.spawnedBy) metaRow(dl, 'Spawned by', sessionLink(s, info.spawnedBy));
  if (info.parentSessionKey) metaRow(dl, 'Continues', sessionLink(s, info.parentSessionKey));
  if (info.children.length) {
    const list = el('ul', 'children', ...info.children.map((c) => el('li', null, sessionLink(s, c.sessionKey), c.link === 'spawned' ? '' : ' (continues it)')));
    metaRow(dl, 'Spawned', list, info.childrenTruncated ? 'and more' : '');
  }
  if (info.resume) {
    const code = el('code', 'resume');
    code.textContent = info.resume.shell;
    metaRow(dl, 'Resume', code, ' ', copyButton(info.resume.shell, 'Copy the command that resumes the session'));
  } else {
    metaRow(dl, 'Resume', 'no command: the session’s key or directory holds characters a command line should not.');
  }
}

const toolRoles = new Set(['toolResult', 'tool']);

function messageItem(s, m, ranges) {
  const text = el('div', 'text');
  text.dir = 'auto';
  appendText(text, m.text, ranges);
  const head = el('header', 'message-head', el('span', 'role', m.role), ' ', when(m.timestamp), ' ',
    isolated(m.id, 'id'), ' ', copyButton(m.id, 'Copy the message id'));
  const article = el('article', 'message ' + (toolRoles.has(m.role) ? 'tool' : m.role));
  if (toolRoles.has(m.role)) {
    const details = el('details', null, el('summary', null, `Tool result · ${number.format(m.text.length)} characters`), text);
    // A tool hit's result is open at once (U14).
    details.open = m.id === s.m;
    article.append(head, details);
  } else {
    article.append(head, text);
  }
  const li = el('li', null, article);
  li.id = 'm-' + m.id;
  if (m.id === s.m) {
    article.classList.add('hit');
    article.setAttribute('aria-current', 'true');
  }
  return li;
}

// marksOf asks the server where the query matches the messages' texts, a
// request of at most about 48 KB at a time.
async function marksOf(s, messages, signal) {
  const { query, prefix } = queryOf(s);
  const out = new Array(messages.length).fill(null);
  if (!query) return out;
  let batch = [];
  let size = 0;
  const flush = async () => {
    if (!batch.length) return;
    const res = await api.highlight({ query, prefix, texts: batch.map((i) => messages[i].text) }, signal);
    batch.forEach((i, j) => { out[i] = res.matches[j]; });
    batch = [];
    size = 0;
  };
  for (let i = 0; i < messages.length; i++) {
    const n = messages[i].text.length * 3;
    if (n > 48000) continue; // a long text is shown without marks
    if (size + n > 48000) await flush();
    batch.push(i);
    size += n;
  }
  await flush();
  return out;
}

async function drawMessages(s, signal) {
  const marks = await marksOf(s, loaded, signal);
  $('messages').replaceChildren(...loaded.map((m, i) => messageItem(s, m, marks[i])));
  $('earlier').hidden = !edges.earlier;
  $('later').hidden = !edges.later;
}

// more loads the window around the first or last message shown and keeps
// what is new on that side.
async function more(side) {
  const s = readState();
  const anchor = side === 'earlier' ? loaded[0] : loaded[loaded.length - 1];
  if (!anchor) return;
  try {
    const hist = await api.history(historyBody(s, anchor.id), sessionRun.signal);
    const at = hist.messages.findIndex((m) => m.id === anchor.id);
    const known = new Set(loaded.map((m) => m.id));
    const fresh = (side === 'earlier' ? hist.messages.slice(0, Math.max(at, 0)) : hist.messages.slice(at + 1)).filter((m) => !known.has(m.id));
    edges[side] = fresh.length > 0 && edgesOf(hist, anchor.id)[side];
    loaded = side === 'earlier' ? [...fresh, ...loaded] : [...loaded, ...fresh];
    const focusID = fresh.length ? (side === 'earlier' ? fresh[fresh.length - 1].id : fresh[0].id) : anchor.id;
    await drawMessages(s, sessionRun.signal);
    const li = document.getElementById('m-' + focusID);
    if (li) {
      li.setAttribute('tabindex', '-1');
      li.focus();
    }
  } catch (e) {
    showError(e);
  }
}

// ---- Views and navigation -------------------------------------------

let whoText = '';
let addressTimer = 0;

function render(keyTime) {
  const s = readState();
  showState(s);
  const inSession = s.session !== '';
  $('results-view').hidden = inSession;
  $('session-view').hidden = !inSession;
  if (inSession) {
    openSession(s);
    return;
  }
  document.title = s.q.trim() ? `${s.q.trim()} — sessionsearch` : 'sessionsearch';
  search(s, keyTime);
  scheduleActivity(s);
}

function navigate(url) {
  clearTimeout(addressTimer);
  history.pushState(null, '', url);
  render();
}

// onInput: the form changed; the address follows without a new history
// entry for every keystroke, and the search runs at once.
function onInput(e) {
  const keyTime = e && e.type === 'input' && e.target.id === 'q' ? e.timeStamp : undefined;
  const s = formState();
  if (e && e.target.id === 'time') $('range').hidden = s.time !== 'range';
  $('results-view').hidden = false;
  $('session-view').hidden = true;
  search(s, keyTime);
  scheduleActivity(s);
  // The address and the title follow once the search is on its way: each
  // is a message to the browser's own process, which a keystroke need not
  // wait for.
  clearTimeout(addressTimer);
  addressTimer = setTimeout(() => {
    history.replaceState(null, '', stateURL(s));
    document.title = s.q.trim() ? `${s.q.trim()} — sessionsearch` : 'sessionsearch';
  }, 100);
}

function hits() {
  return [...document.querySelectorAll('#results a.hit')];
}

function onKey(e) {
  const t = e.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    $('q').focus();
    $('q').select();
    return;
  }
  if (e.key === 'Escape' && !$('session-view').hidden) {
    e.preventDefault();
    navigate($('back').getAttribute('href'));
    return;
  }
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const list = hits();
  if (!list.length) return;
  if (t === $('q') && e.key === 'ArrowDown') {
    e.preventDefault();
    list[0].focus();
    return;
  }
  const i = list.indexOf(t);
  if (i < 0) return;
  e.preventDefault();
  if (e.key === 'ArrowDown') list[Math.min(i + 1, list.length - 1)].focus();
  else if (i === 0) $('q').focus();
  else list[i - 1].focus();
}

// onClick keeps links to the page's own views in the page.
function onClick(e) {
  const a = e.target.closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname !== location.pathname) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
}

// ---- Signing in ------------------------------------------------------

function showSignIn(message, askCaller) {
  $('signin').hidden = false;
  $('results-view').hidden = true;
  $('session-view').hidden = true;
  $('account').hidden = true;
  $('search').hidden = true;
  $('signin-error').textContent = message || '';
  $('caller').hidden = !askCaller;
  $('caller-label').hidden = !askCaller;
  $('token').closest('form').querySelector('label[for=token]').hidden = !!askCaller;
  $('token').hidden = !!askCaller;
  if (askCaller) {
    $('signin-why').textContent = 'This server runs without tokens (its loopback development mode): say which session you search as.';
    $('caller').focus();
  } else {
    $('token').focus();
  }
}

async function start() {
  let me;
  try {
    me = await api.me();
  } catch (e) {
    if (e instanceof APIError && e.status === 401) {
      const tried = hasCredentials();
      signOut();
      showSignIn(tried ? 'The server did not accept the token: ' + e.message : '');
      return;
    }
    showError(e);
    return;
  }
  if (!me.authenticated && !sessionStorage.getItem('sessionsearch.caller')) {
    showSignIn('', true);
    return;
  }
  const opts = await api.options();
  searchOptions = new Set(Object.keys(opts.search.properties));
  // Agent and role filter the search only where the search takes them.
  $('agent-filter').hidden = !searchOptions.has('agent');
  $('role-filter').hidden = !searchOptions.has('role');
  $('scope-filter').hidden = !searchOptions.has('scope');
  whoText = me.authenticated ? `${me.caller}, visibility ${me.visibility}` : `${sessionStorage.getItem('sessionsearch.caller')} (no token)`;
  $('who').replaceChildren('Searching as ', isolated(me.authenticated ? me.caller : sessionStorage.getItem('sessionsearch.caller'), 'key'),
    me.authenticated ? `, visibility ${me.visibility}${me.sandboxed ? ', sandboxed' : ''}` : '');
  $('signin').hidden = true;
  $('search').hidden = false;
  $('account').hidden = false;
  render();
  if ($('session-view').hidden) $('q').focus();
}

function init() {
  takeTokenFromFragment();
  $('search').addEventListener('input', onInput);
  $('search').addEventListener('submit', (e) => e.preventDefault());
  $('tools').addEventListener('change', () => {
    const s = readState();
    s.tools = $('tools').checked;
    history.replaceState(null, '', stateURL(s));
    openSession(s);
  });
  $('earlier').addEventListener('click', () => more('earlier'));
  $('later').addEventListener('click', () => more('later'));
  $('signout').addEventListener('click', () => {
    signOut();
    $('results').replaceChildren();
    $('messages').replaceChildren();
    $('session-meta').replaceChildren();
    setStatus('');
    showSignIn('Signed out.');
  });
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    signIn($('token').value.trim(), $('caller').value.trim());
    $('token').value = '';
    start();
  });
  document.addEventListener('keydown', onKey);
  document.addEventListener('click', onClick);
  window.addEventListener('popstate', () => render());
  start();
}

init();
