// alea.js -- loads alea.wasm (the C library and web/wasm.c) and wraps its
// entry points. Works in the browser and in node:
//
//   const alea = await loadAlea(bytes);       // an ArrayBuffer or Uint8Array
//   alea.dist('4d6kh3')        -> the library's JSON, parsed, or {error: {...}}
//   alea.roll('4d6kh3', {n: 3, seed: '7'})   -> {rolls: [{text, total, detail}]}
//
// The module imports five WASI functions from its C library; the page gives
// it entropy (crypto.getRandomValues) and a clock, and nothing else: the
// library never prints.

const ENOSYS = 52;

export async function loadAlea(bytes) {
  let memory = null;
  const view = () => new DataView(memory.buffer);
  const wasi = {
    random_get(ptr, len) {
      crypto.getRandomValues(new Uint8Array(memory.buffer, ptr, len));
      return 0;
    },
    clock_time_get(id, precision, out) {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      view().setBigUint64(out, ns, true);
      return 0;
    },
    fd_write() { return ENOSYS; },
    fd_seek() { return ENOSYS; },
    fd_close() { return ENOSYS; },
  };
  const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
  const x = instance.exports;
  memory = x.memory;
  x._initialize();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  // The NUL-terminated string at ptr.
  const cstring = (ptr) => {
    const bytes = new Uint8Array(memory.buffer, ptr);
    return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
  };
  // Calls fn(ptr, len, ...rest) with the expression's UTF-8 bytes in the
  // module's memory; returns the JSON answer, parsed.
  const withSource = (src, fn, ...rest) => {
    const bytes = encoder.encode(src);
    const ptr = x.alea_web_alloc(bytes.length);
    new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
    try {
      return JSON.parse(cstring(fn(ptr, bytes.length, ...rest)));
    } finally {
      x.alea_web_free(ptr);
    }
  };

  return {
    version: cstring(x.alea_web_version()),
    dist: (src) => withSource(src, x.alea_web_dist),
    roll(src, { n = 1, seed = null } = {}) {
      let hi = 0, lo = 0;
      if (seed !== null && seed !== '') {
        const s = BigInt.asUintN(64, BigInt(seed));
        hi = Number(s >> 32n);
        lo = Number(s & 0xffffffffn);
      }
      return withSource(src, x.alea_web_roll, n, seed !== null && seed !== '' ? 1 : 0, hi, lo);
    },
  };
}
