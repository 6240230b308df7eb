// engine-wasm.js is the engine of a static export: the network and its
// search compiled to WebAssembly (engine.wasm, built from web/wasm), run in
// the page itself. wasm_exec.js (from the Go distribution) must be loaded
// first; model.json says which game the network plays.

function call(fn, arg) {
  const data = JSON.parse(fn(arg));
  if (data.error) throw new Error(data.error);
  return data;
}

// A pause that lets the page draw "thinking…" before a search blocks it.
const yieldToPage = () => new Promise((r) => setTimeout(r, 20));

export async function wasmEngine() {
  const model = await (await fetch("model.json")).json();
  const go = new Go();
  const bytes = await (await fetch("engine.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  go.run(instance); // main sets globalThis.tabulaEngine and waits
  const eng = globalThis.tabulaEngine;
  const weights = new Uint8Array(await (await fetch("weights.tbn")).arrayBuffer());
  const info = call(eng.load, weights);
  const layout = call(eng.state, JSON.stringify({ game: info.game, moves: [] })).layout;
  const step = info.step ? `, step ${info.step}` : "";
  return {
    games: async () => [{ spec: info.game, title: model.title || info.game, layout }],
    players: async () => ({
      checkpoints: [50, 200, 800].map((n) => ({
        spec: `net:sims=${n}`,
        title: `${model.name || "network"}${step}, ${n} simulations`,
      })),
      builtin: [],
    }),
    state: async (req) => call(eng.state, JSON.stringify(req)),
    move: async (req) => { await yieldToPage(); return call(eng.move, JSON.stringify(req)); },
  };
}
