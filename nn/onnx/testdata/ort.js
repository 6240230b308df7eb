// Runs an ONNX model in onnxruntime (npm onnxruntime-node) for the parity
// test: node ort.js MODEL IN.json OUT.json. IN holds {"shape": [planes,
// height, width], "runs": [{"batch": n, "obs": [...]}]}; OUT gets the input
// and output names and, per run, the flat policy logits and values with their
// dimensions.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, inPath, outPath] = process.argv.slice(2);
  const req = JSON.parse(fs.readFileSync(inPath, 'utf8'));
  const sess = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
  const out = { inputNames: sess.inputNames, outputNames: sess.outputNames, runs: [] };
  for (const r of req.runs) {
    const obs = new ort.Tensor('float32', Float32Array.from(r.obs), [r.batch, ...req.shape]);
    const res = await sess.run({ obs });
    out.runs.push({
      policy: Array.from(res.policy_logits.data), policyDims: res.policy_logits.dims,
      value: Array.from(res.value.data), valueDims: res.value.dims,
    });
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
}

main().catch((e) => { console.error('ort.js:', e && e.message ? e.message : e); process.exit(1); });
