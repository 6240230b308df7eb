// wasm-move-time.js times the static export's WebAssembly engine in Node.js
// (V8, the JavaScript engine of Chromium): the engine's move on distinct
// random 8-ply Connect Four openings, at a fixed number of simulations.
//
//   node scripts/wasm-move-time.js SITE_DIR [SIMS] [MOVES]
//
// SITE_DIR is a folder written by `play export -format web`.
"use strict";
const fs = require("fs");
const path = require("path");
const [dir, sims = "200", count = "20"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/wasm-move-time.js SITE_DIR [SIMS] [MOVES]");
  process.exit(2);
}
globalThis.fs ??= fs;
globalThis.crypto ??= require("crypto");
globalThis.performance ??= require("perf_hooks").performance;
require(path.resolve(dir, "wasm_exec.js"));

(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(path.join(dir, "engine.wasm")), go.importObject);
  go.run(instance);
  const eng = globalThis.tabulaEngine;
  const info = JSON.parse(eng.load(new Uint8Array(fs.readFileSync(path.join(dir, "weights.tbn")))));
  if (info.error) throw new Error(info.error);
  let seed = 7;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const times = [];
  let cpu = 0; // CPU time of this process, which a shared machine does not inflate
  for (let i = 0; i < Number(count) + 1; i++) {
    let moves = [];
    for (let k = 0; k < 8; k++) {
      const p = JSON.parse(eng.state(JSON.stringify({ game: info.game, moves })));
      if (p.over) break;
      moves = [...moves, p.legal[rand(p.legal.length)]];
    }
    const p = JSON.parse(eng.state(JSON.stringify({ game: info.game, moves })));
    if (p.over) moves = moves.slice(0, -1);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = JSON.parse(eng.move(JSON.stringify({ game: info.game, player: `net:sims=${sims}`, moves })));
    if (r.error) throw new Error(r.error);
    const c = process.cpuUsage(c0);
    if (i > 0) { // the first warms up
      times.push(performance.now() - t0);
      cpu += (c.user + c.system) / 1000;
    }
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`${info.game}, ${info.params} parameters, ${sims} simulations: ` +
    `mean ${mean.toFixed(1)} ms/move, median ${times[times.length >> 1].toFixed(1)} ms over ${times.length} moves; ` +
    `${(cpu / times.length).toFixed(1)} ms of CPU time per move`);
  process.exit(0);
})().catch((err) => { console.error(err); process.exit(1); });
