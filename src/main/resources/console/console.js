// The outbox console's page: only the console's API (/outbox/api/...), no library. URLs are built on location.origin
// so that a page opened as http://user:password@host/outbox/ still fetches (a URL with credentials cannot be fetched).
'use strict';
const api = location.origin + '/outbox/api/';
const $ = id => document.getElementById(id);
let filter = { status: 'FAILED' };
let nextCursor = null;
let pendingReplay = null;

async function call(path, options) {
  const response = await fetch(api + path, Object.assign({ credentials: 'same-origin' }, options));
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(body.message || response.status + ' ' + response.statusText);
  }
  return body;
}

function post(path, body) {
  // the header proves the request comes from this page (a cross-site form cannot send it)
  return call(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Outbox-Console': '1' },
    body: JSON.stringify(body) });
}

function show(message, isError) {
  $('message').textContent = message;
  $('message').className = isError ? 'error' : '';
}

function age(seconds) {
  if (seconds < 1) return '0 s';
  if (seconds < 120) return Math.round(seconds) + ' s';
  if (seconds < 7200) return Math.round(seconds / 60) + ' min';
  return Math.round(seconds / 3600) + ' h';
}

function cells(row, values) {
  for (const value of values) {
    const td = row.insertCell();
    td.textContent = value === null || value === undefined ? '' : value;
  }
  return row;
}

async function refreshSummary() {
  try {
    const s = await call('summary');
    $('pending').textContent = s.pending;
    $('oldest').textContent = age(s.oldestPendingAgeSeconds);
    $('failed').textContent = s.failed;
    $('failed').className = s.failed > 0 ? 'value bad' : 'value';
    $('held').textContent = s.heldKeys;
    $('published').textContent = s.publishedLastMinute;
    const destinations = $('destinations').tBodies[0];
    destinations.replaceChildren();
    for (const d of s.destinations) {
      cells(destinations.insertRow(), [d.aggregateType, d.pending, age(d.oldestPendingAgeSeconds), d.failed,
        d.heldKeys]);
    }
    const instances = $('instances').tBodies[0];
    instances.replaceChildren();
    for (const i of s.instances) {
      cells(instances.insertRow(), [i.instanceId, age(i.heartbeatAgeSeconds) + ' ago', i.inFlight,
        i.partitions.length]);
    }
    const free = s.partitions.filter(p => !p.owner).length;
    $('partitions').textContent = s.partitions.length + ' partitions, ' + free + ' without an owner';
    $('updated').textContent = 'as of ' + new Date(s.computedAt).toLocaleTimeString();
  } catch (e) {
    $('updated').textContent = 'summary failed: ' + e.message;
  }
}

async function refreshAudit() {
  const audit = await call('audit');
  const body = $('audit').tBodies[0];
  body.replaceChildren();
  for (const a of audit.entries) {
    cells(body.insertRow(), [new Date(a.at).toLocaleString(), a.who, a.action, a.selection, a.count, a.outcome]);
  }
}

async function loadEvents(append) {
  const query = new URLSearchParams(filter);
  if (append && nextCursor) query.set('after', nextCursor);
  try {
    const page = await call('events?' + query);
    const body = $('events').tBodies[0];
    if (!append) body.replaceChildren();
    for (const e of page.events) {
      const row = cells(body.insertRow(), [e.seq, e.aggregateType + '/' + e.aggregateId, e.eventType, e.status,
        e.attempts, new Date(e.createdAt).toLocaleString(), e.lastError]);
      row.dataset.id = e.id;
      row.cells[6].className = 'error';
      row.addEventListener('click', () => openEvent(e.id));
    }
    nextCursor = page.next;
    $('next-page').hidden = !page.next;
  } catch (e) {
    show(e.message, true);
  }
}

async function openEvent(id) {
  try {
    const e = await call('events/' + encodeURIComponent(id));
    $('detail').hidden = false;
    $('detail-id').textContent = e.id;
    const fields = $('detail-fields');
    fields.replaceChildren();
    for (const [name, value] of [['key', e.aggregateType + '/' + e.aggregateId], ['event type', e.eventType],
      ['status', e.status], ['attempts', e.attempts], ['created', e.createdAt], ['next attempt', e.nextAttemptAt],
      ['published', e.publishedAt], ['holds its key back', e.holdsKey ? 'yes' : 'no']]) {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = value === null ? '–' : value;
      fields.append(dt, dd);
    }
    $('detail-payload').textContent = JSON.stringify(e.payload, null, 2);
    $('detail-headers').textContent = e.headers ? JSON.stringify(e.headers, null, 2) : '(none)';
    $('detail-error').textContent = e.lastError || '(none)';
    $('replay-one').hidden = e.status !== 'FAILED';
    $('replay-one').onclick = () => askReplay({ ids: [e.id] });
  } catch (err) {
    show(err.message, true);
  }
}

async function askReplay(selection) {
  try {
    const answer = await post('replay', selection);
    pendingReplay = Object.assign({}, selection, { token: answer.token });
    $('replay-question').textContent = 'Replay ' + answer.count + ' FAILED event' + (answer.count === 1 ? '' : 's')
      + '?';
    $('replay-box').hidden = false;
  } catch (e) {
    show(e.message, true);
  }
}

async function confirmReplay() {
  $('replay-box').hidden = true;
  try {
    const answer = await post('replay', pendingReplay);
    show('Replayed ' + answer.replayed + ' event' + (answer.replayed === 1 ? '' : 's') + '.');
  } catch (e) {
    show(e.message, true);
  }
  pendingReplay = null;
  await Promise.all([refreshSummary(), refreshAudit(), loadEvents(false)]);
}

$('filter').addEventListener('submit', event => {
  event.preventDefault();
  filter = {};
  for (const [name, value] of new FormData($('filter'))) {
    if (value) filter[name] = value;
  }
  show('');
  loadEvents(false);
});
$('replay-filtered').addEventListener('click', () => {
  const selection = Object.assign({}, filter);
  if (selection.status !== 'FAILED') {
    show('Only FAILED events are replayed: filter on status FAILED first.', true);
    return;
  }
  askReplay(selection);
});
$('replay-confirm').addEventListener('click', confirmReplay);
$('replay-cancel').addEventListener('click', () => { $('replay-box').hidden = true; pendingReplay = null; });
$('next-page').addEventListener('click', () => loadEvents(true));

refreshSummary();
refreshAudit();
loadEvents(false);
setInterval(refreshSummary, 3000);
