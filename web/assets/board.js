// board.js draws a position on a canvas (Connect Four, Othello, Go, chess),
// with the engine's move probabilities as a heat map, and turns clicks into
// actions. In chess a click selects a piece and a second click its
// destination; a promotion asks for the piece with four buttons.

const COLOURS = {
  connect4: { stones: ["#d62828", "#f6c90e"], board: "#1d4e89", hole: "#f4f1ea" },
  othello: { stones: ["#111111", "#f8f8f8"], board: "#2e7d32", line: "#1b4d1e" },
  go: { stones: ["#111111", "#f8f8f8"], board: "#dcb35c", line: "#3b2a14" },
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

  // geometry returns the cell size and the board's top-left corner, in CSS
  // pixels of the canvas. Connect Four keeps one row above the board for the
  // column probabilities.
  geometry() {
    const l = this.pos.layout;
    const extra = l.kind === "connect4" ? 1 : 0;
    const max = 480;
    const cell = Math.floor(Math.min(max / l.cols, max / (l.rows + extra)));
    return { cell, x0: 0, y0: extra * cell, w: cell * l.cols, h: cell * (l.rows + extra) };
  }

  // actionAt returns the action under client coordinates, or null.
  actionAt(clientX, clientY) {
    if (!this.pos) return null;
    const rect = this.canvas.getBoundingClientRect();
    const { cell, y0 } = this.geometry();
    const x = clientX - rect.left, y = clientY - rect.top;
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
    const { cell, y0 } = this.geometry();
    const l = this.pos.layout;
    let row = 0, col = action;
    if (l.kind !== "connect4") { row = Math.floor(action / l.cols); col = action % l.cols; }
    return { x: rect.left + (col + 0.5) * cell, y: rect.top + y0 + (row + 0.5) * cell };
  }

  // draw shows pos; heat is the engine's distribution over actions (or null);
  // last is the action played last (or -1).
  draw(pos, heat, last) {
    if (pos !== this.pos) { this.selected = -1; this.promo.hidden = true; }
    this.pos = pos;
    this.heat = heat;
    this.last = last ?? -1;
    const { cell, w, h } = this.geometry();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = w + "px";
    this.canvas.style.height = h + "px";
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    switch (pos.layout.kind) {
      case "connect4": this.drawConnect4(ctx, cell); break;
      case "othello": this.drawGrid(ctx, cell, false); break;
      case "go": this.drawGrid(ctx, cell, true); break;
      case "chess": this.drawChess(ctx, cell); break;
    }
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
