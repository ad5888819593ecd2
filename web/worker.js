// worker.js -- the page's calculator, off its main thread: the page (app.js)
// sends the compiled alea.wasm once, then one request at a time, and this
// worker answers it; the page stays responsive meanwhile, and stops a
// request it no longer wants by ending this worker (a new one starts in a
// few milliseconds: the module is compiled already).
//
//   -> {module}                                 the compiled WebAssembly.Module
//   <- {ready: true, version} | {failed: message}
//   -> {id, deadline, bytes, dialect, calls: [{op: 'dist', src} | {op: 'roll', src, n, seed, detail}]}
//   <- {id, started: true}                      when it begins
//   <- {id, results: [answer per call], memory} | {id, failed: message}
//
// The calls of a request share its deadline (ms) and its budget of answer
// bytes (alea.js, web/wasm.c); memory is the module's linear memory, in
// bytes.
import { loadAlea } from './alea.js';

let loading = null;

self.onmessage = async (ev) => {
  const m = ev.data;
  if (m.module) {
    loading = loadAlea(m.module);
    loading.then((alea) => self.postMessage({ ready: true, version: alea.version }),
      (e) => self.postMessage({ failed: String(e) }));
    return;
  }
  let alea;
  try {
    alea = await loading;
  } catch {
    return; // reported above
  }
  self.postMessage({ id: m.id, started: true });
  try {
    const req = alea.request(m.deadline, m.bytes, m.dialect);
    // A roll's JSON detail (its dice's marks) only when the page asks: it
    // marks the dice of a few rolls, and lists many as plain text.
    const results = m.calls.map((c) => (c.op === 'roll'
      ? req.roll(c.src, { n: c.n, seed: c.seed, detail: c.detail === true })
      : req.dist(c.src)));
    self.postMessage({ id: m.id, results, memory: alea.memoryBytes() });
  } catch (e) {
    // a trap (the stack, say): this worker's module is not to be trusted
    // again; the page starts another
    self.postMessage({ id: m.id, failed: String(e) });
  }
};
