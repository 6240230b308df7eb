// app.js runs a game between a person and an engine. The engine object is
// the only thing that differs between the served page (engine-http.js: the
// play web server) and the static export (engine-wasm.js: WebAssembly in the
// browser). It has five methods, each returning a promise:
//
//   games()                  [{spec, title, layout}]
//   players(game)            {builtin: [{spec, title}], checkpoints: [{spec, title}]}
//   state({game, moves})     the position after moves (validated)
//   player({game, player})   resolves when the player can play the game (its
//                            spec is valid and it loads), before a game starts
//   move({game, player, moves})  {move, moveText, policy, value, millis, position}
//
// state also takes resigned (the player who resigned after the moves: the
// position comes back over, that player the loser). The served page's engine
// has a sixth method, record({game, moves, human, player, resigned}):
// {filename, type, text}, the game's record to download.
//
// In a card game (layout kind "cards", served page only) the deal is the
// server's secret: state({game, human}) deals, the position carries a deal
// token and the person's view as text, state({game, deal, play}) plays the
// person's card or bet, and move({game, player, deal}) the engine's.
// In backgammon on the served page the dice are the server's: a position
// carries a dice token (deal) that every later request sends back with the
// moves, and a new game starts from no moves.
//
// Errors reject with an Error whose message is shown to the person.

import { Board, pct } from "./board.js";

const $ = (id) => document.getElementById(id);

export async function start(engine) {
  const ui = {
    game: $("game"), opponent: $("opponent"), spec: $("spec"), colour: $("colour"),
    newGame: $("new"), pass: $("pass"), resign: $("resign"), download: $("download"),
    recordLink: $("record-link"), undo: $("undo"), status: $("status"), result: $("result"),
    engineMove: $("engine-move"), value: $("value"), think: $("think"), valueFill: $("valuefill"),
    moves: $("moves"), score: $("score"), error: $("error"), canvas: $("board"),
    table: $("table"), view: $("view"), cards: $("cards"),
  };
  let gamesList = [];
  let pos = null;        // the position shown
  let human = 0;         // the person's player: 0 first, 1 second
  let player = "";       // the engine's spec
  let busy = false;
  let resigned = null;   // the player who resigned, or null
  let generation = 0;    // bumped by each new game, to drop stale replies
  const board = new Board(ui.canvas, (a) => (pos && pos.layout.kind === "backgammon" ? bgClick(a) : humanMove(a)));
  // Backgammon: the person's turn is built from clicks, a checker's point
  // (bgFrom) then its destination; bgSteps are the checker moves chosen so
  // far, [from, to] in the person's point numbers (25 the bar, 0 off).
  let bgFrom = null, bgSteps = [], bgPos = null;
  const isCards = (p) => p && p.layout.kind === "cards";

  // draw shows a position: the board, or in a card game the person's view
  // and a button for each legal card or bet.
  function draw(p, heat, last) {
    const cards = isCards(p);
    ui.canvas.hidden = cards;
    ui.table.hidden = !cards;
    if (!cards) {
      if (p !== bgPos) { bgPos = p; bgFrom = null; bgSteps = []; }
      board.draw(p, heat, last, human, bgFrom);
      return;
    }
    ui.view.textContent = p.view || "";
    ui.cards.replaceChildren();
    p.legal.forEach((a, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = p.legalText[i];
      b.dataset.action = String(a);
      b.addEventListener("click", () => humanMove(a));
      ui.cards.appendChild(b);
    });
  }

  function showError(err) {
    ui.error.textContent = err ? String(err.message || err) : "";
  }

  function publish() {
    // State for people (the text) and for tests (data attributes).
    const d = ui.canvas.dataset;
    d.over = pos && pos.over ? "1" : "0";
    d.toMove = pos ? String(pos.toMove) : "";
    d.human = String(human);
    d.busy = busy ? "1" : "0";
    d.moves = pos ? pos.moves.join(",") : "";
    d.legal = pos ? pos.legal.join(",") : "";
    d.deal = pos && pos.deal ? pos.deal : "";
    d.resigned = resigned === null ? "" : String(resigned);
    if (!pos) return;
    ui.moves.textContent = pos.notation || "(none)";
    ui.score.textContent = pos.score || "";
    ui.result.textContent = pos.over ? pos.result + (pos.score ? ` (${pos.score})` : "") : "";
    const names = pos.layout.players;
    if (pos.over) ui.status.textContent = "Game over.";
    else if (busy) ui.status.textContent = `${names[pos.toMove]} (engine) is thinking…`;
    else if (pos.toMove === human) ui.status.textContent = `Your move (${names[human]}).`;
    else ui.status.textContent = `${names[pos.toMove]} to move.`;
    const passLegal = pos.layout.pass >= 0 && pos.legal.includes(pos.layout.pass);
    ui.pass.hidden = pos.layout.pass < 0;
    ui.pass.disabled = busy || pos.over || pos.toMove !== human || !passLegal;
    // Undo is off in backgammon: going back before a roll would roll again.
    ui.undo.disabled = busy || pos.moves.length === 0 || isCards(pos) || resigned !== null || pos.layout.kind === "backgammon";
    ui.resign.hidden = isCards(pos);
    ui.resign.disabled = busy || pos.over;
    ui.download.hidden = isCards(pos) || typeof engine.record !== "function";
    ui.download.disabled = busy;
    ui.cards.querySelectorAll("button").forEach((b) => { b.disabled = busy || pos.over || pos.toMove !== human; });
  }

  function showReply(rep) {
    ui.engineMove.textContent = rep ? rep.moveText : "";
    ui.think.textContent = rep ? `(${rep.millis.toFixed(0)} ms)` : "";
    if (rep && rep.value !== undefined && rep.value !== null) {
      ui.value.textContent = (rep.value >= 0 ? "+" : "") + rep.value.toFixed(3);
      const v = Math.max(-1, Math.min(1, rep.value));
      ui.valueFill.style.width = `${(50 * (v + 1)).toFixed(1)}%`;
    } else {
      ui.value.textContent = rep ? "n/a" : "";
      ui.valueFill.style.width = "50%";
    }
    if (rep && rep.top && rep.top.length) {
      ui.think.textContent += " top: " + rep.top.map((t) => `${t.move} ${pct(t.p)}`).join(", ");
    }
  }

  async function loadPlayers() {
    const res = await engine.players(ui.game.value);
    ui.opponent.replaceChildren();
    const add = (group, list) => {
      if (!list.length) return;
      const og = document.createElement("optgroup");
      og.label = group;
      for (const p of list) {
        const o = document.createElement("option");
        o.value = p.spec;
        o.textContent = p.title;
        og.appendChild(o);
      }
      ui.opponent.appendChild(og);
    };
    add("Checkpoints", res.checkpoints || []);
    add("Built-in players", res.builtin || []);
    const g = gamesList.find((x) => x.spec === ui.game.value);
    if (g) {
      ui.colour.options[0].textContent = `${g.layout.players[0]} (first)`;
      ui.colour.options[1].textContent = `${g.layout.players[1]} (second)`;
    }
  }

  // startMoves returns the moves a new game of game starts from: those of
  // the page's address, as in #game=chess&moves=796,3380 (actions), when it
  // names this game, else none. The server checks them like any others.
  function startMoves(game) {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.get("game") !== game || !h.get("moves")) return [];
    return h.get("moves").split(",").map(Number);
  }

  async function newGame() {
    generation++;
    showError(null);
    showReply(null);
    human = Number(ui.colour.value);
    resigned = null;
    player = ui.spec.value.trim() || ui.opponent.value;
    const gen = generation;
    busy = true;
    publish();
    try {
      const p = await engine.state({ game: ui.game.value, moves: startMoves(ui.game.value), human });
      // A player that cannot play is refused now, before anyone moves.
      await engine.player({ game: ui.game.value, player });
      if (gen !== generation) return;
      pos = p;
    } catch (err) {
      if (gen === generation) {
        pos = null;
        busy = false;
        showError(err);
        publish();
        ui.status.textContent = "No game: choose another opponent and press New game.";
      }
      return;
    }
    busy = false;
    draw(pos, null, -1);
    publish();
    await engineTurn();
  }

  // engineTurn asks the engine for its move(s). When it fails right after
  // the person's move (before, the position then), that move is taken back,
  // so that the person can try again or start a new game instead of facing
  // a board where nobody can move.
  async function engineTurn(before) {
    if (!pos || pos.over || pos.toMove === human) { publish(); return; }
    const gen = generation;
    busy = true;
    publish();
    let failed = null;
    try {
      const rep = await engine.move({ game: pos.game, player, moves: pos.moves, deal: pos.deal });
      if (gen !== generation) return;
      pos = rep.position;
      draw(pos, rep.policy || null, rep.move);
      showReply(rep);
      showError(null);
    } catch (err) {
      if (gen === generation) failed = err;
    } finally {
      if (gen === generation) busy = false;
    }
    if (failed) {
      if (before && before.toMove === human) {
        pos = before;
        draw(pos, null, pos.moves.length ? pos.moves[pos.moves.length - 1] : -1);
        showError(new Error(`${failed.message || failed} (your move was taken back: play again, or choose another opponent and press New game)`));
      } else {
        showError(new Error(`${failed.message || failed} (choose another opponent and press New game)`));
      }
      publish();
      return;
    }
    if (gen === generation) publish();
    // An engine that must move again (the person has to pass in Othello)
    // moves again.
    if (gen === generation && !pos.over && pos.toMove !== human && !ui.error.textContent) {
      await engineTurn();
      return;
    }
    // In Othello a person whose only legal move is the pass passes at once.
    if (gen === generation && !pos.over && pos.toMove === human && (pos.layout.kind === "othello" || pos.layout.kind === "backgammon") &&
        pos.legal.length === 1 && pos.legal[0] === pos.layout.pass) {
      await humanMove(pos.layout.pass);
      if (gen === generation && !ui.error.textContent) ui.status.textContent += " (You had no move and passed.)";
    }
  }

  // bgMatches returns the legal turns (indices into pos.legal) whose checker
  // moves include every one of steps (as a multiset).
  function bgMatches(steps) {
    const out = [];
    pos.backgammon.steps.forEach((turn, i) => {
      const left = turn.map((m) => m.join("/"));
      for (const m of steps) {
        const j = left.indexOf(m.join("/"));
        if (j < 0) return;
        left.splice(j, 1);
      }
      out.push(i);
    });
    return out;
  }

  // bgClick takes a click on point k in backgammon: the first click picks a
  // checker's point, the second its destination (one die, or both dice
  // with one checker); a turn whose checker moves are all chosen is played.
  async function bgClick(k) {
    if (!pos || busy || pos.over || pos.toMove !== human || !pos.backgammon) return;
    if (bgFrom === null) {
      // The person's checkers on k now: the position's, with the checker
      // moves chosen so far made.
      const v = pos.backgammon;
      let here = k === 25 ? v.bar[human] : k === 0 ? 0 : Math.max(0, human === 0 ? v.points[k - 1] : -v.points[24 - k]);
      for (const m of bgSteps) here += (m[1] === k) - (m[0] === k);
      if (here <= 0 || !bgMatches(bgSteps).some((i) => pos.backgammon.steps[i].some((m) => m[0] === k))) {
        showError(new Error(k === 0 ? "Checkers are borne off to the tray, not moved from it." : `No legal move of yours starts at ${k === 25 ? "the bar" : "point " + k}.`));
        return;
      }
      bgFrom = k;
      showError(null);
      board.draw(pos, null, -1, human, bgFrom);
      return;
    }
    const from = bgFrom;
    bgFrom = null;
    if (k === from) { board.draw(pos, null, -1, human, null); return; }
    let add = [[from, k]];
    if (!bgMatches([...bgSteps, ...add]).length) {
      // One checker moved with both dice: through a point between.
      add = null;
      for (const i of bgMatches(bgSteps)) {
        for (const m of pos.backgammon.steps[i]) {
          const two = [[from, m[1]], [m[1], k]];
          if (m[0] === from && bgMatches([...bgSteps, ...two]).length) { add = two; break; }
        }
        if (add) break;
      }
    }
    if (!add) {
      board.draw(pos, null, -1, human, null);
      showError(new Error(`${from === 25 ? "bar" : from}/${k === 0 ? "off" : k} is not legal here.`));
      return;
    }
    bgSteps = [...bgSteps, ...add];
    showError(null);
    const done = bgMatches(bgSteps).find((i) => pos.backgammon.steps[i].length === bgSteps.length);
    if (done !== undefined) {
      await humanMove(pos.legal[done]);
      return;
    }
    board.draw(pos, null, -1, human, null);
    ui.status.textContent = "Your move so far: " + bgSteps.map((m) => `${m[0] === 25 ? "bar" : m[0]}/${m[1] === 0 ? "off" : m[1]}`).join(" ") + "; go on.";
    ui.canvas.dataset.bgSteps = JSON.stringify(bgSteps);
  }

  // resign ends the game as the person's loss: the server (or the
  // WebAssembly engine) describes the position with the resignation.
  async function resign() {
    if (!pos || busy || pos.over || isCards(pos)) return;
    const gen = generation;
    try {
      const p = await engine.state({ game: pos.game, moves: pos.moves, deal: pos.deal, resigned: human });
      if (gen !== generation) return;
      resigned = human;
      pos = p;
      draw(pos, null, pos.moves.length ? pos.moves[pos.moves.length - 1] : -1);
      showError(null);
      publish();
    } catch (err) {
      showError(err);
    }
  }

  // download asks the server for the record of the game shown and saves it
  // through a link to a blob (record-link, whose data-filename names it).
  async function download() {
    if (!pos || isCards(pos) || typeof engine.record !== "function") return;
    try {
      const req = { game: pos.game, moves: pos.moves, deal: pos.deal, human, player };
      if (resigned !== null) req.resigned = resigned;
      const rec = await engine.record(req);
      const link = ui.recordLink;
      if (link.href) URL.revokeObjectURL(link.href);
      link.href = URL.createObjectURL(new Blob([rec.text], { type: rec.type }));
      link.download = rec.filename;
      link.dataset.filename = rec.filename;
      link.click();
      showError(null);
    } catch (err) {
      showError(err);
    }
  }

  async function humanMove(action) {
    if (!pos || busy || pos.over || pos.toMove !== human) return;
    if (!pos.legal.includes(action)) {
      const list = pos.layout.kind === "chess" ? ` Click one of your pieces, then its destination; legal moves: ${pos.legalText.join(" ")}` : "";
      showError(new Error("That move is not legal here." + list));
      return;
    }
    const gen = generation;
    const before = pos;
    busy = true;
    publish();
    try {
      const next = isCards(pos)
        ? await engine.state({ game: pos.game, moves: [], deal: pos.deal, play: action })
        : await engine.state({ game: pos.game, moves: [...pos.moves, action], deal: pos.deal });
      if (gen !== generation) return;
      pos = next;
      draw(pos, null, action);
      showError(null);
    } catch (err) {
      if (gen === generation) showError(err);
    } finally {
      if (gen === generation) busy = false;
    }
    if (gen === generation) await engineTurn(before);
  }

  async function undo() {
    if (!pos || busy || pos.moves.length === 0 || isCards(pos) || pos.layout.kind === "backgammon") return;
    // Back to the person's previous turn.
    let moves = pos.moves.slice(0, -1);
    const gen = generation;
    try {
      let p = await engine.state({ game: pos.game, moves });
      while (p.toMove !== human && moves.length > 0) {
        moves = moves.slice(0, -1);
        p = await engine.state({ game: pos.game, moves });
      }
      if (gen !== generation) return;
      pos = p;
      draw(pos, null, moves.length ? moves[moves.length - 1] : -1);
      showReply(null);
      publish();
      await engineTurn();
    } catch (err) {
      showError(err);
    }
  }

  // preview draws the chosen game's starting position while no game has
  // started, so the page does not open on a blank board; clicks on it do
  // nothing until New game (pos stays null).
  async function preview() {
    if (pos) return;
    const g = gamesList.find((x) => x.spec === ui.game.value);
    if (g && g.layout.kind === "cards") { // no deal before New game
      ui.canvas.hidden = true;
      ui.table.hidden = false;
      ui.view.textContent = "Press New game to deal. You will see your own cards only.";
      ui.cards.replaceChildren();
      return;
    }
    ui.canvas.hidden = false;
    ui.table.hidden = true;
    const game = ui.game.value;
    const p = await engine.state({ game, moves: [] });
    if (!pos) {
      board.draw(p, null, -1, Number(ui.colour.value));
      ui.canvas.dataset.drawn = game; // the game previewed, for tests
    }
  }

  ui.newGame.addEventListener("click", () => newGame());
  ui.pass.addEventListener("click", () => pos && humanMove(pos.layout.pass));
  ui.undo.addEventListener("click", () => undo());
  ui.resign.addEventListener("click", () => resign());
  ui.download.addEventListener("click", () => download());
  ui.game.addEventListener("change", async () => {
    try { await loadPlayers(); await preview(); } catch (err) { showError(err); }
  });

  try {
    gamesList = await engine.games();
    for (const g of gamesList) {
      const o = document.createElement("option");
      o.value = g.spec;
      o.textContent = g.title;
      ui.game.appendChild(o);
    }
    await loadPlayers();
    await preview();
  } catch (err) {
    showError(err);
  }
  document.body.dataset.ready = "1";
}
