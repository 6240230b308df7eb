import { start } from "./app.js";
import { wasmEngine } from "./engine-wasm.js";

wasmEngine().then(start, (err) => {
  document.getElementById("error").textContent = "The engine did not load: " + (err.message || err);
  document.body.dataset.ready = "error";
});
