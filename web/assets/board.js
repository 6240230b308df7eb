// board.js draws a position on a canvas (Connect Four, Othello, Go,
// tic-tac-toe, chess, backgammon), with coordinates beside the board and the
// engine's move probabilities as a heat map, and turns clicks into actions.
// In chess a click selects a piece and a second click its destination; a
// promotion asks for the piece with four buttons.

const COLOURS = {
  connect4: { stones: ["#d62828", "#f6c90e"], board: "#1d4e89", hole: "#f4f1ea" },
  othello: { stones: ["#111111", "#f8f8f8"], board: "#2e7d32", line: "#1b4d1e" },
  go: { stones: ["#111111", "#f8f8f8"], board: "#dcb35c", line: "#3b2a14" },
  tictactoe: { stones: ["#1d4e89", "#d62828"], board: "#fffdf7", line: "#222222" },
  backgammon: { stones: ["#f8f8f8", "#222222"], board: "#c9a46a", points: ["#7a2e1d", "#efe2c4"], bar: "#6b4a2b" },
  chess: { light: "#f0d9b5", dark: "#b58863", select: "rgba(20,85,30,0.5)", last: "rgba(155,199,0,0.41)", check: "rgba(220,0,0,0.55)" },
};

// GLYPHS are the Unicode chess pieces by FEN letter (solid shapes for both
// colours, filled white or black when drawn).
const GLYPHS = { k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };

// chessSquare returns a UCI square ("e4") as the cell index (row 0 the
// eighth rank, column 0 the a-file), or -1.
function chessSquare(text) {
  const f = text.charCodeAt(0) - 97, r = text.charCodeAt(1) - 49;
  if (f < 0 || f > 7 || r < 0 || r > 7) return -1;
  return (7 - r) * 8 + f;
}

// chessMoves reads the legal moves of a chess position as {action, from,
// to, promo} with from and to as cell indices, from its UCI texts.
function chessMoves(pos) {
  return pos.legal.map((a, i) => {
    const t = pos.legalText[i];
    return { action: a, from: chessSquare(t.slice(0, 2)), to: chessSquare(t.slice(2, 4)), promo: t.slice(4) };
  });
}

// chessCells returns the from and to cells of a chess action (games/chess:
// from*64+to with a1 = 0; promotions past 4096), or null.
function chessCells(a) {
  if (a < 0) return null;
  const cell = (sq) => (7 - Math.floor(sq / 8)) * 8 + (sq % 8);
  if (a < 4096) return [cell(Math.floor(a / 64)), cell(a % 64)];
  const x = a - 4096, c = Math.floor(x / 88), pair = Math.floor((x % 88) / 4);
  // The 22 (from file, to file) pairs in order: to file from-1..from+1.
  let n = 0;
  for (let f = 0; f < 8; f++) {
    for (let t = Math.max(0, f - 1); t <= Math.min(7, f + 1); t++) {
      if (n++ === pair) {
        const [fr, tr] = c === 0 ? [6, 7] : [1, 0];
        return [cell(fr * 8 + f), cell(tr * 8 + t)];
      }
    }
  }
  return null;
}


// Backgammon geometry: 12 point columns, the bar between the halves and the
// bear-off tray at the right; each half is BG_STACK checkers tall.
const BG_STACK = 5;

// bgColumn returns the column (0..13; 6 the bar, 13 the tray) and the half
// (0 top, 1 bottom) of point k (1..24) from the person's side: 13-24 along
// the top from the left, 12-1 along the bottom, the person's home board
// (1-6) at the bottom right.
function bgColumn(k) {
  if (k >= 13) { const i = k - 13; return { col: i < 6 ? i : i + 1, half: 0 }; }
  const i = 12 - k; return { col: i < 6 ? i : i + 1, half: 1 };
}

// GO_COLUMNS are the Go column letters, without I, as GTP and SGF viewers
// show them.
const GO_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

// coordinates returns the labels of a layout's columns (left to right) and
// rows (top to bottom): Connect Four columns 1-7; Othello columns a-h and
// rows 1-8 from the top; Go columns A-T without I and rows counted from the
// bottom; tic-tac-toe cells 1-9 (row by row: the labels are per cell).
export function coordinates(l) {
  const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  switch (l.kind) {
    case "backgammon": return { top: range(12, (i) => String(13 + i)), bottom: range(12, (i) => String(12 - i)), cols: [], rows: [] };
    case "connect4": return { cols: range(l.cols, (i) => String(i + 1)), rows: [] };
    case "othello": return { cols: range(l.cols, (i) => String.fromCharCode(97 + i)), rows: range(l.rows, (i) => String(i + 1)) };
    case "go": return { cols: range(l.cols, (i) => GO_COLUMNS[i]), rows: range(l.rows, (i) => String(l.rows - i)) };
    case "tictactoe": return { cols: [], rows: [], cells: range(l.rows * l.cols, (i) => String(i + 1)) };
  }
  return { cols: [], rows: [] };
}

// heatColour maps a share in [0, 1] of the largest probability to a colour.
function heatColour(t, alpha) {
  // From pale blue (low) through orange to red (high).
  const r = Math.round(60 + 195 * t);
  const g = Math.round(140 + 60 * (1 - Math.abs(2 * t - 1)) - 100 * t);
  const b = Math.round(230 * (1 - t));
  return `rgba(${r},${Math.max(0, g)},${b},${alpha})`;
}

export class Board {
  // canvas: the element to draw on; onAction(action): called on a click that
  // names an action (legality is the caller's business).
  constructor(canvas, onAction) {
    this.canvas = canvas;
    this.onAction = onAction;
    this.pos = null;
    this.heat = null;
    this.last = -1;
    this.selected = -1; // chess: the cell of the piece picked up, or -1
    this.promo = document.createElement("div");
    this.promo.id = "promotion";
    this.promo.hidden = true;
    canvas.insertAdjacentElement("afterend", this.promo);
    canvas.addEventListener("click", (ev) => {
      const a = this.actionAt(ev.clientX, ev.clientY);
      if (a === null) return;
      if (this.pos.layout.kind === "chess") this.chessClick(a);
      else this.onAction(a);
    });
  }

  // chessClick handles a click on cell i: it picks up one of the mover's
  // pieces, or plays the picked piece to i (asking which piece for a
  // promotion); a click elsewhere drops the piece, and one on an empty
  // square with nothing picked up is passed on as a from-to action so that
  // the caller reports it as not legal.
  chessClick(i) {
    this.promo.hidden = true;
    const pos = this.pos;
    const mine = pos.cells[i] === pos.toMove + 1;
    if (this.selected < 0 || (mine && i !== this.selected)) {
      this.selected = mine ? i : -1;
      this.redraw();
      if (!mine) this.onAction(-1);
      return;
    }
    const from = this.selected;
    this.selected = -1;
    const cands = chessMoves(pos).filter((m) => m.from === from && m.to === i);
    if (cands.length === 0) {
      this.redraw();
      if (i !== from) this.onAction(-1);
      return;
    }
    if (cands.length === 1) { this.onAction(cands[0].action); return; }
    this.promo.replaceChildren();
    const white = pos.toMove === 0;
    for (const p of ["q", "r", "b", "n"]) {
      const m = cands.find((c) => c.promo === p);
      if (!m) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = GLYPHS[p];
      b.className = white ? "white" : "black";
      b.dataset.action = String(m.action);
      b.dataset.piece = p;
      b.title = "promote to " + { q: "queen", r: "rook", b: "bishop", n: "knight" }[p];
      b.addEventListener("click", () => { this.promo.hidden = true; this.onAction(m.action); });
      this.promo.appendChild(b);
    }
    this.promo.hidden = false;
    this.redraw();
  }

  redraw() { if (this.pos) this.draw(this.pos, this.heat, this.last); }


  // geometry returns the cell size, the board's top-left corner (x0, y0)
  // and the canvas size, in CSS pixels. Connect Four keeps one row above the
  // board for the column probabilities; a strip below the board holds the
  // column labels, one left of it the row labels (Othello, Go).
  geometry() {
    const l = this.pos.layout;
    if (l.kind === "backgammon") {
      // cell: a column's width; y0: the top of the board, under the labels.
      const cell = 34, y0 = 20;
      const half = BG_STACK * cell;
      return { cell, x0: 0, y0, side: 0, below: y0, half, gap: cell, w: 14 * cell, h: 2 * y0 + 2 * half + cell };
    }
    const extra = l.kind === "connect4" ? 1 : 0;
    const co = coordinates(l);
    const max = 480;
    const cell = Math.floor(Math.min(max / l.cols, max / (l.rows + extra)));
    const side = co.rows.length ? Math.max(18, Math.round(cell * 0.45)) : 0;
    const below = co.cols.length ? Math.max(18, Math.round(cell * 0.45)) : 0;
    return { cell, x0: side, y0: extra * cell, w: side + cell * l.cols, h: cell * (l.rows + extra) + below, side, below };
  }

  // actionAt returns the action under client coordinates, or null.
  actionAt(clientX, clientY) {
    if (!this.pos) return null;
    const rect = this.canvas.getBoundingClientRect();
    if (this.pos.layout.kind === "backgammon") return this.pointAt(clientX - rect.left, clientY - rect.top);
    const { cell, x0, y0 } = this.geometry();
    const x = clientX - rect.left - x0, y = clientY - rect.top;
    const l = this.pos.layout;
    const col = Math.floor(x / cell);
    if (col < 0 || col >= l.cols) return null;
    if (l.kind === "connect4") return col;
    const row = Math.floor((y - y0) / cell);
    if (row < 0 || row >= l.rows) return null;
    return row * l.cols + col;
  }

  // cellCentre returns the client coordinates of the centre of an action's
  // cell (for Connect Four, of the column's top cell), for tests and hints.
  cellCentre(action) {
    const rect = this.canvas.getBoundingClientRect();
    const { cell, x0, y0 } = this.geometry();
    const l = this.pos.layout;
    let row = 0, col = action;
    if (l.kind !== "connect4") { row = Math.floor(action / l.cols); col = action % l.cols; }
    return { x: rect.left + x0 + (col + 0.5) * cell, y: rect.top + y0 + (row + 0.5) * cell };
  }

  // draw shows pos; heat is the engine's distribution over actions (or null);
  // last is the action played last (or -1).
  draw(pos, heat, last, human, sel) {
    if (pos !== this.pos) { this.selected = -1; this.promo.hidden = true; }
    this.pos = pos;
    this.heat = heat;
    this.last = last ?? -1;
    const { cell, x0, w, h } = this.geometry();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = w + "px";
    this.canvas.style.height = h + "px";
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (pos.layout.kind === "backgammon") {
      this.human = human ?? this.human ?? 0;
      this.drawBackgammon(ctx, this.human, sel ?? -1);
      return;
    }
    this.drawCoordinates(ctx);
    ctx.save();
    ctx.translate(x0, 0);
    switch (pos.layout.kind) {
      case "connect4": this.drawConnect4(ctx, cell); break;
      case "othello": this.drawGrid(ctx, cell, false); break;
      case "go": this.drawGrid(ctx, cell, true); break;
      case "tictactoe": this.drawTicTacToe(ctx, cell); break;
      case "chess": this.drawChess(ctx, cell); break;
    }
    ctx.restore();
  }

  // drawChess draws the squares with the files and ranks written along the
  // bottom and left edges, the last move's squares, the king in check, the
  // picked-up piece and its destinations, the heat map summed by destination
  // square, and the pieces. White is at the bottom.
  drawChess(ctx, cell) {
    const c = COLOURS.chess;
    const pos = this.pos;
    const heat = new Array(64).fill(0);
    let max = 0;
    if (this.heat) {
      this.heat.forEach((p, a) => {
        if (p > 0) { const cc = chessCells(a); if (cc) { heat[cc[1]] += p; max = Math.max(max, heat[cc[1]]); } }
      });
    }
    const last = chessCells(this.last);
    const targets = new Set(this.selected >= 0 ? chessMoves(pos).filter((m) => m.from === this.selected).map((m) => m.to) : []);
    for (let i = 0; i < 64; i++) {
      const r = Math.floor(i / 8), f = i % 8, x = f * cell, y = r * cell;
      ctx.fillStyle = (r + f) % 2 === 0 ? c.light : c.dark;
      ctx.fillRect(x, y, cell, cell);
      if (last && (i === last[0] || i === last[1])) { ctx.fillStyle = c.last; ctx.fillRect(x, y, cell, cell); }
      if (i === this.selected) { ctx.fillStyle = c.select; ctx.fillRect(x, y, cell, cell); }
      if (pos.check && pos.pieces[i] === (pos.toMove === 0 ? "K" : "k")) {
        ctx.fillStyle = c.check; ctx.fillRect(x, y, cell, cell);
      }
      if (max > 0 && heat[i] > 0) {
        ctx.fillStyle = heatColour(heat[i] / max, 0.55);
        ctx.fillRect(x + 3, y + 3, cell - 6, cell - 6);
      }
      // Coordinates: ranks in the a-file's squares, files in the first rank's.
      ctx.fillStyle = (r + f) % 2 === 0 ? c.dark : c.light;
      ctx.font = `${Math.round(cell * 0.2)}px sans-serif`;
      if (f === 0) { ctx.textAlign = "left"; ctx.textBaseline = "top"; ctx.fillText(String(8 - r), x + 2, y + 2); }
      if (r === 7) { ctx.textAlign = "right"; ctx.textBaseline = "bottom"; ctx.fillText("abcdefgh"[f], x + cell - 2, y + cell - 1); }
      const p = pos.pieces[i];
      if (p && p !== ".") {
        ctx.font = `${Math.round(cell * 0.8)}px "DejaVu Sans", "Noto Sans Symbols2", "Segoe UI Symbol", sans-serif`;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        const white = p === p.toUpperCase();
        ctx.lineWidth = Math.max(1, cell * 0.03);
        ctx.fillStyle = white ? "#fff" : "#111";
        ctx.strokeStyle = white ? "#111" : "#eee";
        ctx.fillText(GLYPHS[p.toLowerCase()], x + cell / 2, y + cell * 0.54);
        ctx.strokeText(GLYPHS[p.toLowerCase()], x + cell / 2, y + cell * 0.54);
        ctx.lineWidth = 1;
      }
      if (targets.has(i)) {
        ctx.beginPath();
        ctx.arc(x + cell / 2, y + cell / 2, cell * (p && p !== "." ? 0.45 : 0.14), 0, 2 * Math.PI);
        ctx.fillStyle = "rgba(20,85,30,0.45)";
        if (p && p !== ".") { ctx.strokeStyle = "rgba(20,85,30,0.7)"; ctx.lineWidth = 4; ctx.stroke(); ctx.lineWidth = 1; } else ctx.fill();
      }
    }
  }

  // pointAt returns, in backgammon, the point under canvas coordinates x, y
  // (CSS pixels) from the person's side: 1..24, 25 the bar, 0 the tray
  // (bear off); or null.
  pointAt(x, y) {
    const { cell, y0, half, gap } = this.geometry();
    const col = Math.floor(x / cell);
    if (col < 0 || col > 13 || y < y0 || y > y0 + 2 * half + gap) return null;
    if (col === 6) return 25;
    if (col === 13) return 0;
    const top = y < y0 + half + gap / 2;
    const i = col < 6 ? col : col - 1;
    return top ? 13 + i : 12 - i;
  }

  // pointCentre returns the canvas coordinates (CSS pixels) of the middle
  // of point k's column on its half (25 the bar, 0 the tray, at the
  // person's side), for clicks.
  pointCentre(k) {
    const { cell, y0, half, gap } = this.geometry();
    let col = 6, h = 1;
    if (k === 0) col = 13;
    else if (k !== 25) ({ col, half: h } = bgColumn(k));
    return { x: (col + 0.5) * cell, y: h === 0 ? y0 + half / 2 : y0 + half + gap + half / 2 };
  }

  // drawBackgammon draws the board from the person's side (human: 0 or 1):
  // the points, checkers (a count over a stack taller than BG_STACK), the
  // bar, the borne-off checkers in the tray, the dice between the halves,
  // the point numbers above and below, and the selected point (sel) and
  // checker moves chosen so far (a tint).
  drawBackgammon(ctx, human, sel) {
    const v = this.pos.backgammon;
    const c = COLOURS.backgammon;
    const { cell, y0, half, gap, w } = this.geometry();
    const co = coordinates(this.pos.layout);
    ctx.fillStyle = "#f4f1ea";
    ctx.fillRect(0, 0, w, y0);
    ctx.fillRect(0, y0 + 2 * half + gap, w, y0);
    ctx.fillStyle = c.board;
    ctx.fillRect(0, y0, w, 2 * half + gap);
    ctx.fillStyle = c.bar;
    ctx.fillRect(6 * cell, y0, cell, 2 * half + gap);
    ctx.fillRect(13 * cell, y0, cell, 2 * half + gap);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.font = "12px sans-serif";
    // count(k): the person's checkers on point k (>0) or the engine's (<0).
    const count = (k) => (human === 0 ? v.points[k - 1] : -v.points[24 - k]);
    const stack = (col, h, n, colour, label) => {
      const shown = Math.min(n, BG_STACK);
      for (let j = 0; j < shown; j++) {
        const x = (col + 0.5) * cell;
        const y = h === 0 ? y0 + (j + 0.5) * cell : y0 + 2 * half + gap - (j + 0.5) * cell;
        ctx.beginPath();
        ctx.arc(x, y, cell * 0.45, 0, 2 * Math.PI);
        ctx.fillStyle = colour;
        ctx.fill();
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 1;
        ctx.stroke();
        if (j === shown - 1 && (n > BG_STACK || label)) {
          ctx.fillStyle = colour === c.stones[0] ? "#000" : "#fff";
          ctx.fillText(String(n), x, y);
        }
      }
    };
    const mine = c.stones[human], theirs = c.stones[1 - human];
    for (let k = 1; k <= 24; k++) {
      const { col, half: h } = bgColumn(k);
      const x = col * cell;
      const base = h === 0 ? y0 : y0 + 2 * half + gap;
      const tip = h === 0 ? y0 + half : y0 + half + gap;
      ctx.beginPath();
      ctx.moveTo(x, base); ctx.lineTo(x + cell, base); ctx.lineTo(x + cell / 2, tip); ctx.closePath();
      ctx.fillStyle = c.points[k % 2];
      ctx.fill();
      if (k === sel) {
        ctx.fillStyle = "rgba(255,230,0,0.45)";
        ctx.fillRect(x, h === 0 ? y0 : y0 + half + gap, cell, half);
      }
      const n = count(k);
      if (n !== 0) stack(col, h, Math.abs(n), n > 0 ? mine : theirs, false);
    }
    // The bar: the engine's checkers in the top half, the person's below;
    // the tray likewise.
    if (sel === 25) {
      ctx.fillStyle = "rgba(255,230,0,0.45)";
      ctx.fillRect(6 * cell, y0 + half + gap, cell, half);
    }
    stack(6, 0, v.bar[1 - human], theirs, true);
    stack(6, 1, v.bar[human], mine, true);
    stack(13, 0, v.off[1 - human], theirs, true);
    stack(13, 1, v.off[human], mine, true);
    // The dice of the player to move, in the right half's middle.
    v.dice.forEach((d, i) => {
      const x = 9.5 * cell + i * cell * 1.1, y = y0 + half + gap / 2;
      ctx.fillStyle = this.pos.toMove === human ? mine : theirs;
      ctx.fillRect(x - cell * 0.4, y - cell * 0.4, cell * 0.8, cell * 0.8);
      ctx.strokeStyle = "#000";
      ctx.strokeRect(x - cell * 0.4, y - cell * 0.4, cell * 0.8, cell * 0.8);
      ctx.fillStyle = this.pos.toMove === human ? theirs : mine;
      ctx.font = "bold 16px sans-serif";
      ctx.fillText(String(d), x, y);
    });
    // Point numbers from the person's side.
    ctx.fillStyle = "#222";
    ctx.font = "12px sans-serif";
    co.top.forEach((t, i) => ctx.fillText(t, ((i < 6 ? i : i + 1) + 0.5) * cell, y0 / 2));
    co.bottom.forEach((t, i) => ctx.fillText(t, ((i < 6 ? i : i + 1) + 0.5) * cell, y0 + 2 * half + gap + y0 / 2));
    ctx.fillText("bar", 6.5 * cell, y0 / 2);
    ctx.fillText("off", 13.5 * cell, y0 + 2 * half + gap + y0 / 2);
    this.canvas.dataset.coords = JSON.stringify(co);
    this.canvas.dataset.geometry = JSON.stringify({ cell, x0: 0, y0 });
    this.canvas.dataset.dice = v.dice.join(",");
    const centres = {};
    for (let k = 0; k <= 25; k++) centres[k] = this.pointCentre(k);
    this.canvas.dataset.points = JSON.stringify(centres);
  }

  // drawCoordinates writes the column labels under the board and the row
  // labels left of it, and records what it wrote in the canvas's
  // data-coords (JSON {cols, rows, cells}) for tests and screen readers,
  // and the board's place on the canvas in data-geometry ({cell, x0, y0}, CSS
  // pixels) for tests that click.
  drawCoordinates(ctx) {
    const l = this.pos.layout;
    const co = coordinates(l);
    const { cell, x0, y0, side, below } = this.geometry();
    ctx.fillStyle = "#f4f1ea";
    ctx.fillRect(0, 0, side, y0 + l.rows * cell + below);
    ctx.fillRect(0, y0 + l.rows * cell, side + l.cols * cell, below);
    ctx.fillStyle = "#222";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.font = `${Math.max(11, Math.round(Math.min(side || below, below || side) * 0.6))}px sans-serif`;
    co.cols.forEach((t, i) => ctx.fillText(t, x0 + (i + 0.5) * cell, y0 + l.rows * cell + below / 2));
    co.rows.forEach((t, i) => ctx.fillText(t, side / 2, y0 + (i + 0.5) * cell));
    this.canvas.dataset.coords = JSON.stringify(co);
    this.canvas.dataset.geometry = JSON.stringify({ cell, x0, y0 });
  }

  // drawTicTacToe draws the grid, X and O, and the number of each empty
  // cell (its name in the game's notation).
  drawTicTacToe(ctx, cell) {
    const { rows, cols } = this.pos.layout;
    const c = COLOURS.tictactoe;
    const co = coordinates(this.pos.layout);
    const w = cols * cell, h = rows * cell;
    ctx.fillStyle = c.board;
    ctx.fillRect(0, 0, w, h);
    ctx.strokeStyle = c.line;
    ctx.lineWidth = 3;
    ctx.beginPath();
    for (let i = 1; i < rows; i++) { ctx.moveTo(0, i * cell); ctx.lineTo(w, i * cell); }
    for (let i = 1; i < cols; i++) { ctx.moveTo(i * cell, 0); ctx.lineTo(i * cell, h); }
    ctx.stroke();
    const max = this.maxHeat();
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let i = 0; i < rows * cols; i++) {
      const x = (i % cols + 0.5) * cell, y = (Math.floor(i / cols) + 0.5) * cell;
      const v = this.pos.cells[i];
      if (max > 0 && this.heat[i] > 0) {
        ctx.fillStyle = heatColour(this.heat[i] / max, 0.5);
        ctx.fillRect(x - cell / 2 + 4, y - cell / 2 + 4, cell - 8, cell - 8);
      }
      if (v === 0) {
        ctx.fillStyle = "rgba(0,0,0,0.3)";
        ctx.font = `${Math.round(cell * 0.22)}px sans-serif`;
        ctx.fillText(co.cells[i], x, y);
        continue;
      }
      ctx.strokeStyle = c.stones[v - 1];
      ctx.lineWidth = Math.max(4, cell * 0.08);
      ctx.beginPath();
      const r = cell * 0.3;
      if (v === 1) {
        ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
        ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      } else {
        ctx.arc(x, y, r, 0, 2 * Math.PI);
      }
      ctx.stroke();
      if (i === this.last) {
        ctx.fillStyle = "rgba(0,0,0,0.45)";
        ctx.beginPath();
        ctx.arc(x, y, cell * 0.06, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    ctx.lineWidth = 1;
  }

  maxHeat() {
    if (!this.heat) return 0;
    let m = 0;
    for (const p of this.heat) m = Math.max(m, p);
    return m;
  }

  drawConnect4(ctx, cell) {
    const { rows, cols } = this.pos.layout;
    const c = COLOURS.connect4;
    const y0 = cell;
    const max = this.maxHeat();
    // The probability row above the board, and a tint over each column.
    ctx.font = `${Math.round(cell * 0.28)}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillStyle = c.board;
    ctx.fillRect(0, y0, cols * cell, rows * cell);
    for (let col = 0; col < cols; col++) {
      if (max > 0 && this.heat[col] > 0) {
        const t = this.heat[col] / max;
        ctx.fillStyle = heatColour(t, 0.85);
        ctx.fillRect(col * cell + 2, 2, cell - 4, cell - 4);
        ctx.fillStyle = "#000";
        ctx.fillText(pct(this.heat[col]), (col + 0.5) * cell, cell / 2);
        ctx.fillStyle = heatColour(t, 0.35);
        ctx.fillRect(col * cell, y0, cell, rows * cell);
      }
    }
    // The last move: the highest stone of its column.
    let lastCell = -1;
    if (this.last >= 0) {
      for (let r = 0; r < rows; r++) {
        if (this.pos.cells[r * cols + this.last] !== 0) { lastCell = r * cols + this.last; break; }
      }
    }
    for (let r = 0; r < rows; r++) {
      for (let col = 0; col < cols; col++) {
        const v = this.pos.cells[r * cols + col];
        const x = (col + 0.5) * cell, y = y0 + (r + 0.5) * cell;
        ctx.beginPath();
        ctx.arc(x, y, cell * 0.4, 0, 2 * Math.PI);
        ctx.fillStyle = v === 0 ? c.hole : c.stones[v - 1];
        ctx.fill();
        if (r * cols + col === lastCell) {
          ctx.beginPath();
          ctx.arc(x, y, cell * 0.12, 0, 2 * Math.PI);
          ctx.fillStyle = "rgba(0,0,0,0.45)";
          ctx.fill();
        }
      }
    }
  }

  // drawGrid draws Othello (stones inside squares) or Go (stones on the
  // intersections of lines through the cell centres).
  drawGrid(ctx, cell, isGo) {
    const { rows, cols, pass } = this.pos.layout;
    const c = isGo ? COLOURS.go : COLOURS.othello;
    const w = cols * cell, h = rows * cell;
    ctx.fillStyle = c.board;
    ctx.fillRect(0, 0, w, h);
    ctx.strokeStyle = c.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    if (isGo) {
      for (let i = 0; i < rows; i++) {
        ctx.moveTo(cell / 2, (i + 0.5) * cell); ctx.lineTo(w - cell / 2, (i + 0.5) * cell);
      }
      for (let i = 0; i < cols; i++) {
        ctx.moveTo((i + 0.5) * cell, cell / 2); ctx.lineTo((i + 0.5) * cell, h - cell / 2);
      }
    } else {
      for (let i = 0; i <= rows; i++) { ctx.moveTo(0, i * cell + 0.5); ctx.lineTo(w, i * cell + 0.5); }
      for (let i = 0; i <= cols; i++) { ctx.moveTo(i * cell + 0.5, 0); ctx.lineTo(i * cell + 0.5, h); }
    }
    ctx.stroke();
    const max = this.maxHeat();
    const legal = new Set(this.pos.legal);
    ctx.font = `${Math.round(cell * 0.3)}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let r = 0; r < rows; r++) {
      for (let col = 0; col < cols; col++) {
        const i = r * cols + col;
        const v = this.pos.cells[i];
        const x = (col + 0.5) * cell, y = (r + 0.5) * cell;
        if (v !== 0) {
          ctx.beginPath();
          ctx.arc(x, y, cell * (isGo ? 0.47 : 0.4), 0, 2 * Math.PI);
          ctx.fillStyle = c.stones[v - 1];
          ctx.fill();
          ctx.strokeStyle = "#000";
          ctx.stroke();
          if (max > 0 && this.heat[i] > 0) {
            // The move just played: a ring in its heat colour, its share inside.
            ctx.beginPath();
            ctx.arc(x, y, cell * 0.45, 0, 2 * Math.PI);
            ctx.lineWidth = Math.max(3, cell * 0.07);
            ctx.strokeStyle = heatColour(this.heat[i] / max, 1);
            ctx.stroke();
            ctx.lineWidth = 1;
            ctx.fillStyle = v === 1 ? "#f8f8f8" : "#111";
            ctx.fillText(pct(this.heat[i]), x, y);
          } else if (i === this.last) {
            ctx.beginPath();
            ctx.arc(x, y, cell * 0.12, 0, 2 * Math.PI);
            ctx.fillStyle = v === 1 ? "#f8f8f8" : "#111";
            ctx.fill();
          }
        } else if (max > 0 && this.heat[i] > 0) {
          const t = this.heat[i] / max;
          ctx.fillStyle = heatColour(t, 0.8);
          ctx.fillRect(col * cell + 3, r * cell + 3, cell - 6, cell - 6);
          ctx.fillStyle = "#000";
          ctx.fillText(pct(this.heat[i]), x, y);
        } else if (!isGo && legal.has(i) && !this.pos.over) {
          ctx.beginPath();
          ctx.arc(x, y, cell * 0.08, 0, 2 * Math.PI);
          ctx.fillStyle = "rgba(0,0,0,0.35)";
          ctx.fill();
        }
      }
    }
    if (pass >= 0 && max > 0 && this.heat[pass] > 0.005) {
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(2, 2, cell * 2.2, cell * 0.42);
      ctx.fillStyle = "#000";
      ctx.textAlign = "left";
      ctx.fillText("pass " + pct(this.heat[pass]), 6, 2 + cell * 0.21);
    }
  }
}

// pct writes a probability as a percentage.
export function pct(p) {
  const v = 100 * p;
  return v >= 9.95 ? `${Math.round(v)}%` : `${v.toFixed(1)}%`;
}
