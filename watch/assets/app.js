// tabula watch: polls the server for the run's plots and recent games and
// draws them on canvases. Plain JavaScript, no outside code.
'use strict';

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const state = { refresh: 5000, games: [], game: 0, frame: 0, timer: null, gamesKey: '' };

function $(id) { return document.getElementById(id); }

async function getJSON(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(url + ': ' + r.status + ' ' + (await r.text()).trim());
  return r.json();
}

// niceTicks returns about n round numbers spanning [lo, hi].
function niceTicks(lo, hi, n) {
  const span = hi - lo || 1;
  const raw = span / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

function fmt(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.01 || a >= 1e5)) return v.toExponential(1);
  return String(+v.toPrecision(4));
}

// drawPlot draws one Plot (see watch.Plot) on a canvas and records the number
// of points drawn in its data-points attribute.
function drawPlot(canvas, plot) {
  const ctx = canvas.getContext('2d');
  const W = canvas.width, H = canvas.height;
  const m = { l: 60, r: 12, t: 10, b: 38 };
  ctx.clearRect(0, 0, W, H);
  let xmin = 0, xmax = -Infinity, ymin = Infinity, ymax = -Infinity, points = 0;
  for (const l of plot.lines) {
    l.x.forEach((x, i) => {
      if (x === null || l.y[i] === null) return;
      xmax = Math.max(xmax, x);
      ymin = Math.min(ymin, l.y[i]); ymax = Math.max(ymax, l.y[i]);
      for (const b of [l.low, l.high]) if (b && b[i] !== null) { ymin = Math.min(ymin, b[i]); ymax = Math.max(ymax, b[i]); }
    });
  }
  if (!isFinite(xmax) || !isFinite(ymin)) return;
  if (xmax <= xmin) xmax = xmin + 1;
  if (ymax <= ymin) { ymax += 0.5 * (Math.abs(ymax) || 1); ymin -= 0.5 * (Math.abs(ymin) || 1); }
  const pad = 0.05 * (ymax - ymin); ymin -= pad; ymax += pad;
  const X = (x) => m.l + (x - xmin) / (xmax - xmin) * (W - m.l - m.r);
  const Y = (y) => H - m.b - (y - ymin) / (ymax - ymin) * (H - m.t - m.b);

  ctx.font = '11px sans-serif'; ctx.strokeStyle = '#ddd'; ctx.fillStyle = '#444'; ctx.lineWidth = 1;
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (const t of niceTicks(ymin, ymax, 5)) {
    ctx.beginPath(); ctx.moveTo(m.l, Y(t)); ctx.lineTo(W - m.r, Y(t)); ctx.stroke();
    ctx.fillText(fmt(t), m.l - 4, Y(t));
  }
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (const t of niceTicks(xmin, xmax, 6)) {
    ctx.beginPath(); ctx.moveTo(X(t), m.t); ctx.lineTo(X(t), H - m.b); ctx.stroke();
    ctx.fillText(fmt(t), X(t), H - m.b + 4);
  }
  ctx.fillText('run time (minutes)', (m.l + W - m.r) / 2, H - 14);
  ctx.save(); ctx.translate(12, (m.t + H - m.b) / 2); ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'middle'; ctx.fillText(plot.ylabel, 0, 0); ctx.restore();
  ctx.strokeStyle = '#888'; ctx.strokeRect(m.l, m.t, W - m.l - m.r, H - m.t - m.b);

  plot.lines.forEach((l, k) => {
    const c = COLORS[k % COLORS.length];
    if (l.low && l.high) { // the band: a polygon along the highs and back along the lows
      const idx = l.x.map((_, i) => i).filter((i) => l.low[i] !== null && l.high[i] !== null);
      if (idx.length) {
        ctx.beginPath();
        idx.forEach((i, j) => (j ? ctx.lineTo : ctx.moveTo).call(ctx, X(l.x[i]), Y(l.high[i])));
        idx.slice().reverse().forEach((i) => ctx.lineTo(X(l.x[i]), Y(l.low[i])));
        ctx.closePath(); ctx.globalAlpha = 0.18; ctx.fillStyle = c; ctx.fill(); ctx.globalAlpha = 1;
      }
    }
    ctx.strokeStyle = c; ctx.fillStyle = c; ctx.lineWidth = 2; ctx.beginPath();
    let started = false;
    l.x.forEach((x, i) => {
      if (x === null || l.y[i] === null) return;
      (started ? ctx.lineTo : ctx.moveTo).call(ctx, X(x), Y(l.y[i])); started = true; points++;
    });
    ctx.stroke();
    l.x.forEach((x, i) => { if (x !== null && l.y[i] !== null) { ctx.beginPath(); ctx.arc(X(x), Y(l.y[i]), 2.5, 0, 7); ctx.fill(); } });
    ctx.textAlign = 'left'; ctx.textBaseline = 'top'; ctx.font = '12px sans-serif';
    ctx.fillRect(m.l + 8, m.t + 6 + 15 * k, 14, 3);
    ctx.fillStyle = '#222'; ctx.fillText(l.label, m.l + 26, m.t + 15 * k + 1);
  });
  canvas.dataset.points = String(points);
}

function renderPlots(data) {
  $('run').textContent = data.run;
  const last = data.last;
  let s = data.iterations + ' iterations';
  if (last) {
    s += ', ' + (data.run_seconds / 60).toFixed(1) + ' min, best ' + (last.best || '?');
    if (last.train) s += ', ' + last.train.total_steps + ' training steps';
  }
  if (data.updated) s += ' (metrics updated ' + data.updated + ')';
  $('status').textContent = s;
  const box = $('plots');
  for (const p of data.plots) {
    let div = document.getElementById('plot-' + p.name);
    if (!div) {
      div = document.createElement('div');
      div.className = 'plot'; div.id = 'plot-' + p.name;
      const h = document.createElement('h3'); h.textContent = p.title; div.appendChild(h);
      const c = document.createElement('canvas'); c.width = 520; c.height = 260; c.dataset.name = p.name;
      div.appendChild(c); box.appendChild(div);
    }
    drawPlot(div.querySelector('canvas'), p);
  }
  if (!data.plots.length && !document.getElementById('no-plots')) {
    const p = document.createElement('p'); p.id = 'no-plots'; p.textContent = 'No iteration has finished yet.';
    box.appendChild(p);
  }
}

// drawBoard draws frame f of game g: cells 'x' (first player, dark), 'o'
// (second player, light), '.' empty; the last move's changes are ringed.
function drawBoard(g, f, prev) {
  const c = $('board'), ctx = c.getContext('2d');
  const s = Math.floor(Math.min(360 / g.width, 320 / g.height));
  c.width = s * g.width; c.height = s * g.height;
  ctx.fillStyle = '#d9b36c'; ctx.fillRect(0, 0, c.width, c.height);
  ctx.strokeStyle = '#7a5c2e'; ctx.lineWidth = 1;
  for (let r = 0; r < g.height; r++) {
    for (let q = 0; q < g.width; q++) {
      ctx.strokeRect(q * s + 0.5, r * s + 0.5, s, s);
      const v = f.board[r * g.width + q];
      if (v === '.') continue;
      ctx.beginPath(); ctx.arc(q * s + s / 2, r * s + s / 2, s * 0.4, 0, 7);
      ctx.fillStyle = v === 'x' ? '#222' : '#f4f4f4'; ctx.fill(); ctx.strokeStyle = '#333'; ctx.stroke();
      if (prev && prev.board[r * g.width + q] === '.') {
        ctx.beginPath(); ctx.arc(q * s + s / 2, r * s + s / 2, s * 0.15, 0, 7);
        ctx.fillStyle = '#d62728'; ctx.fill();
      }
      ctx.strokeStyle = '#7a5c2e';
    }
  }
  c.dataset.board = f.board;
}

function showFrame(i) {
  const g = state.games[state.game];
  if (!g) return;
  state.frame = Math.max(0, Math.min(i, g.frames.length - 1));
  const f = g.frames[state.frame];
  drawBoard(g, f, state.frame > 0 ? g.frames[state.frame - 1] : null);
  $('board').dataset.frame = String(state.frame);
  $('slider').max = String(g.frames.length - 1); $('slider').value = String(state.frame);
  const who = f.to_move === 0 ? 'first player (dark)' : 'second player (light)';
  $('frame-text').textContent = 'move ' + state.frame + ' of ' + (g.frames.length - 1) +
    (f.move ? ' (' + f.move + ')' : ' (start)') + ', ' + who + ' to move';
  $('frame-search').textContent = f.searched
    ? 'stored position: result for the mover ' + f.z + '; search: ' + (f.top || []).map((t) => t.move + ' ' + (100 * t.p).toFixed(0) + '%').join(', ')
    : f.value !== undefined ? 'search value for the mover: ' + f.value.toFixed(3) +
      (f.visits !== undefined ? ', ' + f.visits + ' root visits' : '') : '';
  document.querySelectorAll('#moves li').forEach((li, k) => li.classList.toggle('current', k + 1 === state.frame));
}

function selectGame(k) {
  state.game = k;
  const g = state.games[k];
  const ol = $('moves'); ol.textContent = '';
  if (!g) return;
  const who = g.kind === 'gating' ? ', dark: ' + g.players[0] + ', light: ' + g.players[1] : '';
  $('game-result').textContent = g.game + ': ' + g.result + (g.resigned ? ' (resigned)' : '') + who + ' (' + g.chunk + ' #' + g.index + ')';
  g.moves.forEach((mv, i) => {
    const li = document.createElement('li'); li.textContent = mv;
    if (g.frames[i + 1].searched) li.classList.add('searched');
    li.addEventListener('click', () => showFrame(i + 1));
    ol.appendChild(li);
  });
  showFrame(0);
}

function gameKey(g) { return g.kind + ':' + g.chunk + '#' + g.index; }

function gameLabel(g, k) {
  const base = g.moves.length + ' moves, ' + g.result;
  if (g.kind === 'gating') return 'gating ' + g.chunk.replace('.jsonl', '') + ' #' + (g.index + 1) + ': ' + g.players[0] + ' (dark) vs ' + g.players[1] + ', ' + base;
  return 'self-play #' + (k + 1) + ': ' + base;
}

function renderGames(data) {
  $('games-source').textContent = data.source === 'records' ? 'self-play from records'
    : data.source === 'rebuilt' && data.games.length ? 'self-play rebuilt from replay' : '';
  const all = data.games.concat(data.gating || []);
  const key = all.map(gameKey).join(',');
  if (key === state.gamesKey) return;
  const cur = state.games[state.game];
  const curKey = cur ? gameKey(cur) : '';
  state.games = all; state.gamesKey = key;
  const sel = $('game-select'); sel.textContent = '';
  const groups = {};
  all.forEach((g, k) => {
    if (!groups[g.kind]) {
      groups[g.kind] = document.createElement('optgroup');
      groups[g.kind].label = g.kind === 'gating' ? 'gating games (newest iteration)' : 'self-play games (newest first)';
      sel.appendChild(groups[g.kind]);
    }
    const o = document.createElement('option'); o.value = String(k);
    o.textContent = gameLabel(g, k);
    groups[g.kind].appendChild(o);
  });
  let k = all.findIndex((g) => gameKey(g) === curKey);
  if (k < 0) k = 0;
  sel.value = String(k);
  if (!cur || gameKey(all[k] || {}) !== curKey) selectGame(k);
  else state.game = k;
  if (!all.length) $('game-result').textContent = 'No replay chunks yet.';
}

function togglePlay() {
  if (state.timer) { clearInterval(state.timer); state.timer = null; $('play').textContent = 'play'; return; }
  $('play').textContent = 'pause';
  state.timer = setInterval(() => {
    const g = state.games[state.game];
    if (!g || state.frame >= g.frames.length - 1) { togglePlay(); return; }
    showFrame(state.frame + 1);
  }, 600);
}

async function pollPlots() {
  try {
    const d = await getJSON('/api/plots');
    state.refresh = d.refresh_ms || state.refresh;
    renderPlots(d);
  } catch (e) { $('status').textContent = 'error: ' + e.message; }
  setTimeout(pollPlots, state.refresh);
}

async function pollGames() {
  try { renderGames(await getJSON('/api/games')); } catch (e) { $('game-result').textContent = 'error: ' + e.message; }
  setTimeout(pollGames, 3 * state.refresh);
}

$('first').addEventListener('click', () => showFrame(0));
$('prev').addEventListener('click', () => showFrame(state.frame - 1));
$('next').addEventListener('click', () => showFrame(state.frame + 1));
$('last').addEventListener('click', () => showFrame(1e9));
$('play').addEventListener('click', togglePlay);
$('slider').addEventListener('input', (e) => showFrame(+e.target.value));
$('game-select').addEventListener('change', (e) => selectGame(+e.target.value));
document.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowLeft') showFrame(state.frame - 1);
  if (e.key === 'ArrowRight') showFrame(state.frame + 1);
});
pollPlots();
pollGames();
