// engine-worker.js runs the WebAssembly engine in a Web Worker, so that the
// page stays responsive while it searches. Messages in: {id, fn, arg} with
// fn "load" (arg: the checkpoint's bytes), "state", "player" or "move" (arg: the request
// as JSON text); out: {id, text} (the engine's JSON reply) or {id, error}.
importScripts("wasm_exec.js");

const ready = (async () => {
  const go = new Go();
  const bytes = await (await fetch("engine.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  go.run(instance); // main sets globalThis.tabulaEngine and waits
  return globalThis.tabulaEngine;
})();

onmessage = async (ev) => {
  const { id, fn, arg } = ev.data;
  try {
    const eng = await ready;
    postMessage({ id, text: eng[fn](arg) });
  } catch (err) {
    postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};
