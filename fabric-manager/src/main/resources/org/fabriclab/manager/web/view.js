// The fabric view: draws /api/fabric once per fabric version and recolours the links from
// /api/load every POLL_MS. Plain JavaScript, no library, nothing fetched from elsewhere.
// Each link is two half-lines, one per direction: the half at end A is A's output to B.
'use strict';

const POLL_MS = 1500;
const SVG = 'http://www.w3.org/2000/svg';
const W = 1600, H = 900, PAD = 24;

const view = {
  fabric: null,      // the last /api/fabric answer
  hosts: null,       // null: the server's default; else '1' or '0'
  halves: [],        // per link direction (2l + d): its <line>
  switchShapes: [],  // per drawn switch: its <rect>
  lastU: null,
  selected: null,    // the selected element, outlined
  refresh: null,     // what redraws the details panel with fresh counters at each poll
  busy: false,       // a poll is under way
};

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function status(text) {
  document.getElementById('status').textContent = text;
}

async function getJson(path) {
  const r = await fetch(path, {cache: 'no-store'});
  if (!r.ok) throw new Error(path + ': ' + r.status + ' ' + (await r.text()).trim());
  return r.json();
}

function hostsQuery() {
  return view.hosts === null ? '' : '?hosts=' + view.hosts;
}

// Utilisation (parts per million, -1 not polled) to a colour: grey idle, then blue to red on a
// log scale from 0.01% to 100%, so that a lab's 0.2% shows as well as a saturated link.
function colour(ppm) {
  if (ppm < 0) return '#d4d4d4';
  if (ppm === 0) return '#8a96a3';
  const t = Math.max(0, Math.min(1, (Math.log10(ppm / 1e6) + 4) / 4));
  return 'hsl(' + Math.round(220 * (1 - t)) + ',85%,45%)';
}

function percent(u) {
  if (u === null || u === undefined) return '-';
  if (u === 0) return '0%';
  return (u * 100).toPrecision(3) + '%';
}

function px(f, i) {
  return [PAD + f.x[i] * (W - 2 * PAD), PAD + f.y[i] * (H - 2 * PAD)];
}

function draw(f) {
  view.fabric = f;
  view.lastU = null;
  view.refresh = null;
  view.selected = null;
  const links = document.getElementById('links');
  const nodes = document.getElementById('nodes');
  links.replaceChildren();
  nodes.replaceChildren();
  view.halves = new Array(2 * f.linkKind.length);
  const n = f.names.length;
  const r = Math.max(1.5, Math.min(8, Math.sqrt(W * H / Math.max(1, n)) * 0.12));
  const width = Math.max(0.5, Math.min(3, 4000 / Math.max(1, f.linkKind.length)));
  const lf = document.createDocumentFragment();
  // on a torus, the wrap-around links and those between planes would lie on top of the grid's:
  // they bend (their halves meet beside the straight line's middle)
  let shortest = Infinity;
  if (f.layout === 'torus') {
    for (let l = 0; l < f.linkKind.length; l++) {
      const [ax, ay] = px(f, f.links[4 * l]), [bx, by] = px(f, f.links[4 * l + 2]);
      if (f.links[4 * l] < f.switchCount && f.links[4 * l + 2] < f.switchCount) shortest = Math.min(shortest, Math.hypot(bx - ax, by - ay));
    }
  }
  for (let l = 0; l < f.linkKind.length; l++) {
    const a = f.links[4 * l], b = f.links[4 * l + 2];
    const [ax, ay] = px(f, a), [bx, by] = px(f, b);
    const length = Math.hypot(bx - ax, by - ay);
    const bend = length > 1.5 * shortest ? 0.08 + 10 / length : 0;
    const mx = (ax + bx) / 2 - bend * (by - ay), my = (ay + by) / 2 + bend * (bx - ax);
    for (let d = 0; d < 2; d++) {
      const [x1, y1] = d === 0 ? [ax, ay] : [bx, by];
      const line = el('line', {x1: x1.toFixed(1), y1: y1.toFixed(1), x2: mx.toFixed(1), y2: my.toFixed(1),
        class: 'link', 'data-link': l, 'data-dir': d, 'data-u': -1, stroke: colour(-1), 'stroke-width': width}, lf);
      view.halves[2 * l + d] = line;
    }
  }
  links.appendChild(lf);
  const nf = document.createDocumentFragment();
  view.switchShapes = [];
  for (let i = 0; i < n; i++) {
    const [x, y] = px(f, i);
    let shape;
    if (i < f.switchCount) {
      shape = el('rect', {x: (x - r).toFixed(1), y: (y - r).toFixed(1), width: (2 * r).toFixed(1), height: (2 * r).toFixed(1),
        rx: 1.5, class: 'switch', fill: '#ffffff', 'data-node': i}, nf);
      view.switchShapes.push(shape);
      if (n <= 80) el('text', {x: (x + r + 2).toFixed(1), y: (y - r).toFixed(1), class: 'label'}, nf).textContent = f.names[i];
    } else {
      shape = el('circle', {cx: x.toFixed(1), cy: y.toFixed(1), r: (r * 0.6).toFixed(1), class: 'host', 'data-node': i}, nf);
    }
    const hosts = i < f.switchCount && !f.hostsShown ? ' (' + f.hosts[i] + ' hosts)' : '';
    el('title', {}, shape).textContent = f.names[i] + hosts;
  }
  nodes.appendChild(nf);
  const s = document.getElementById('summary');
  s.dataset.switches = f.switchCount;
  s.dataset.links = f.linkKind.length;
  s.dataset.hosts = f.hostCount;
  s.dataset.state = f.state;
  s.textContent = f.switchCount + ' switches, ' + f.hostCount + ' hosts' + (f.hostsShown ? '' : ' (collapsed)') + ', '
    + f.linkKind.length + ' links drawn; ' + f.layout + ' layout; ' + (f.engine || 'not routed') + '; ' + f.state;
  document.getElementById('hosts').checked = f.hostsShown;
  document.getElementById('hosts').disabled = !f.hostsDrawable;
}

function paint(load) {
  const f = view.fabric;
  const congested = new Set(load.congested);
  for (let k = 0; k < load.u.length; k++) {
    const line = view.halves[k], hot = congested.has(k);
    if (view.lastU && view.lastU[k] === load.u[k] && line.classList.contains('congested') === hot) continue;
    line.setAttribute('stroke', colour(load.u[k]));
    line.setAttribute('data-u', load.u[k]);
    line.classList.toggle('congested', hot);
  }
  view.lastU = load.u;
  if (load.hostU) {
    for (let i = 0; i < f.switchCount; i++) {
      view.switchShapes[i].setAttribute('fill', load.hostU[i] < 0 ? '#ffffff' : colour(load.hostU[i]));
    }
  }
  const s = document.getElementById('summary');
  s.dataset.polled = load.polled;
  s.dataset.state = load.state;
  const list = document.getElementById('congested');
  list.replaceChildren();
  for (const c of load.top) {
    const li = document.createElement('li');
    const shares = c.shares.map(x => 'in ' + x[0] + ': ' + percent(x[1])).join(', ');
    li.textContent = c.node + ' port ' + c.port + (c.peer ? ' \u2192 ' + c.peer : '') + ': ' + percent(c.u)
      + (c.fairness === null ? '' : ', Jain ' + c.fairness.toFixed(2)) + (shares ? '; ' + shares : '');
    li.onclick = () => showNode(c.node, c.port);
    list.appendChild(li);
  }
  if (load.top.length === 0) list.innerHTML = '<li class="hint">none in the last interval</li>';
}

// One poll: the load, the structure again if the fabric changed, the details panel. A poll
// still under way when the next is due (a large fabric on a slow link) makes that one skip.
async function tick() {
  if (view.busy) return;
  view.busy = true;
  try {
    const load = await getJson('api/load' + hostsQuery());
    const fits = () => view.fabric && load.version === view.fabric.version && load.u.length === 2 * view.fabric.linkKind.length;
    if (!fits()) {
      draw(await getJson('api/fabric' + hostsQuery()));
    }
    if (fits()) {
      paint(load);
      status('');
      if (view.refresh) await view.refresh();
    } // else the fabric changed in between: the next tick paints it
  } catch (e) {
    status(e.message);
  } finally {
    view.busy = false;
  }
}

function select(shape) {
  if (view.selected) view.selected.classList.remove('selected');
  view.selected = shape;
  if (shape) shape.classList.add('selected');
}

function cell(tr, text) {
  const td = document.createElement('td');
  td.textContent = text;
  tr.appendChild(td);
}

function portTable(node, only) {
  const t = document.createElement('table');
  t.innerHTML = '<tr><th>port</th><th>to</th><th>util</th><th>bytes</th><th>wait (s)</th><th>disc</th><th>rcv err</th><th>routes</th></tr>';
  for (const p of node.ports) {
    if (only && p.port !== only) continue;
    const tr = document.createElement('tr');
    tr.className = 'port';
    cell(tr, p.port + (p.congested ? ' !' : ''));
    cell(tr, p.peer + ':' + p.peerPort);
    cell(tr, percent(p.u));
    cell(tr, p.xmitBytes === undefined ? '-' : p.xmitBytes.toLocaleString('en'));
    cell(tr, p.xmitWaitNs === undefined ? '-' : (p.xmitWaitNs / 1e9).toPrecision(3));
    cell(tr, p.discards === undefined ? '-' : p.discards);
    cell(tr, p.rcvErrors === undefined ? '-' : p.rcvErrors);
    cell(tr, p.routes === undefined ? '-' : p.routes);
    tr.onclick = () => showNode(node.name, p.port);
    t.appendChild(tr);
    if (p.congested && p.shares.length) {
      const sr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 8;
      td.textContent = 'congested; inputs: ' + p.shares.map(x => x[0] + ' ' + percent(x[1])).join(', ')
        + (p.fairness === null ? '' : '; Jain ' + p.fairness.toFixed(2));
      sr.appendChild(td);
      t.appendChild(sr);
    }
  }
  return t;
}

function routesBlock(node) {
  const div = document.createElement('div');
  if (!node.routes) return div;
  const r = node.routes;
  const h = document.createElement('p');
  h.textContent = r.count + ' destination' + (r.count === 1 ? '' : 's') + ' routed out of port ' + r.port
    + (r.truncated ? ' (first ' + r.destinations.length + ')' : '') + ':';
  const d = document.createElement('p');
  d.className = 'dests';
  d.textContent = r.destinations.join(' ');
  div.append(h, d);
  return div;
}

function heading(node) {
  const h = document.createElement('h3');
  const where = [];
  if (node.level >= 0) where.push('level ' + node.level);
  if (node.group >= 0) where.push('group ' + node.group);
  if (node.coordinates) where.push('(' + node.coordinates.join(',') + ')');
  if (node.lid) where.push('LID ' + node.lid);
  h.textContent = node.type + ' ' + node.name + (where.length ? ' \u2014 ' + where.join(', ') : '');
  return h;
}

// Fills the details panel at once (so that the refresh at each poll does not flicker), marked
// with what it shows (data-node or data-link).
function showDetails(mark, parts) {
  const box = document.getElementById('details');
  const h = document.createElement('h2');
  h.textContent = 'details';
  box.replaceChildren(h, ...parts);
  delete box.dataset.node;
  delete box.dataset.link;
  Object.assign(box.dataset, mark);
}

async function showNode(name, port) {
  view.refresh = () => showNode(name, port);
  try {
    const node = await getJson('api/node?name=' + encodeURIComponent(name) + (port ? '&port=' + port : ''));
    showDetails({node: name}, [heading(node), portTable(node, 0), routesBlock(node)]);
    const i = view.fabric ? view.fabric.names.indexOf(name) : -1;
    select(i >= 0 ? document.querySelector('[data-node="' + i + '"]') : null);
  } catch (e) {
    status(e.message);
  }
}

async function showLink(l) {
  view.refresh = () => showLink(l);
  const f = view.fabric;
  const ends = [[f.links[4 * l], f.links[4 * l + 1]], [f.links[4 * l + 2], f.links[4 * l + 3]]];
  try {
    const title = document.createElement('h3');
    title.textContent = 'link ' + f.names[ends[0][0]] + ':' + ends[0][1] + ' \u2194 ' + f.names[ends[1][0]] + ':' + ends[1][1]
      + ' (' + f.kinds[f.linkKind[l]] + ')';
    const parts = [title];
    for (const [n, p] of ends) {
      const node = await getJson('api/node?name=' + encodeURIComponent(f.names[n]) + '&port=' + p);
      const h = document.createElement('h3');
      h.textContent = f.names[n] + ' port ' + p + ' out';
      parts.push(h, portTable(node, p), routesBlock(node));
    }
    showDetails({link: l}, parts);
    select(view.halves[2 * l]);
  } catch (e) {
    status(e.message);
  }
}

// A hash selects on load: #node=NAME, #node=NAME:PORT or #link=NAME:PORT (for links to a view).
async function fromHash() {
  const m = /^#(node|link)=([^:]+)(?::(\d+))?$/.exec(decodeURIComponent(location.hash));
  if (!m || !view.fabric) return;
  if (m[1] === 'node') return showNode(m[2], m[3] ? +m[3] : 0);
  const f = view.fabric, i = f.names.indexOf(m[2]), p = +m[3];
  for (let l = 0; l < f.linkKind.length; l++) {
    if ((f.links[4 * l] === i && f.links[4 * l + 1] === p) || (f.links[4 * l + 2] === i && f.links[4 * l + 3] === p)) return showLink(l);
  }
  status('no drawn link at ' + m[2] + ':' + p);
}

document.getElementById('fabric').addEventListener('click', e => {
  const t = e.target;
  if (t.dataset.link !== undefined) showLink(+t.dataset.link);
  else if (t.dataset.node !== undefined) showNode(view.fabric.names[+t.dataset.node], 0);
});

document.getElementById('hosts').addEventListener('change', e => {
  view.hosts = e.target.checked ? '1' : '0';
  view.fabric = null;
  tick();
});

window.addEventListener('hashchange', fromHash);

tick().then(fromHash);
setInterval(tick, POLL_MS);
