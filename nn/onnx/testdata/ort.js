// Runs ONNX models in onnxruntime (npm onnxruntime-node) for the parity
// test, all in one process: node ort.js IN.json OUT.json. IN holds {"jobs":
// [{"model": FILE, "shape": [planes, height, width], "runs": [{"batch": n,
// "obs": [...]}]}]}; OUT gets {"results": [...]}, per job the input and
// output names and, per run, the flat policy logits and values with their
// dimensions.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function runJob(job) {
  const sess = await ort.InferenceSession.create(job.model, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
  const out = { inputNames: sess.inputNames, outputNames: sess.outputNames, runs: [] };
  for (const r of job.runs) {
    const obs = new ort.Tensor('float32', Float32Array.from(r.obs), [r.batch, ...job.shape]);
    const res = await sess.run({ obs });
    out.runs.push({
      policy: Array.from(res.policy_logits.data), policyDims: res.policy_logits.dims,
      value: Array.from(res.value.data), valueDims: res.value.dims,
    });
  }
  return out;
}

async function main() {
  const [inPath, outPath] = process.argv.slice(2);
  const req = JSON.parse(fs.readFileSync(inPath, 'utf8'));
  const results = [];
  for (const job of req.jobs) {
    try {
      results.push(await runJob(job));
    } catch (e) {
      results.push({ error: job.model + ': ' + (e && e.message ? e.message : String(e)) });
    }
  }
  fs.writeFileSync(outPath, JSON.stringify({ results }));
}

main().catch((e) => { console.error('ort.js:', e && e.message ? e.message : e); process.exit(1); });
