// engine-wasm.js is the engine of a static export: the network and its
// search compiled to WebAssembly (engine.wasm, built from web/wasm), run in a
// Web Worker of the page (engine-worker.js). model.json says which game the
// network plays.

export async function wasmEngine() {
  const model = await (await fetch("model.json")).json();
  const worker = new Worker("engine-worker.js");
  let next = 0;
  const waiting = new Map();
  worker.onmessage = (ev) => {
    const { id, text, error } = ev.data;
    const w = waiting.get(id);
    waiting.delete(id);
    if (error) { w.reject(new Error(error)); return; }
    const data = JSON.parse(text);
    if (data.error) w.reject(new Error(data.error));
    else w.resolve(data);
  };
  worker.onerror = (ev) => {
    for (const w of waiting.values()) w.reject(new Error("engine worker: " + ev.message));
    waiting.clear();
  };
  const call = (fn, arg) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, fn, arg });
  });
  const weights = new Uint8Array(await (await fetch("weights.tbn")).arrayBuffer());
  const info = await call("load", weights);
  const layout = (await call("state", JSON.stringify({ game: info.game, moves: [] }))).layout;
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
    state: (req) => call("state", JSON.stringify(req)),
    player: (req) => call("player", JSON.stringify(req)),
    move: (req) => call("move", JSON.stringify(req)),
  };
}
