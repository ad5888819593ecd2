// sw.js -- the page works offline once loaded: its files come from a cache,
// refreshed from the network when it answers.
const CACHE = 'alea-v5';
const FILES = ['./', 'index.html', 'style.css', 'app.js', 'numbers.js', 'sweeps.js', 'fairness.js', 'worker.js', 'alea.js', 'alea.wasm',
  'uPlot.iife.min.js', 'uPlot.min.css'];

self.addEventListener('install', (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)));
});

self.addEventListener('activate', (ev) => {
  ev.waitUntil(caches.keys().then((keys) =>
    Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))));
});

self.addEventListener('fetch', (ev) => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== 'GET' || url.origin !== location.origin) return;
  // network first, so a new build shows; the cache when offline
  ev.respondWith(fetch(ev.request).then((res) => {
    const copy = res.clone();
    caches.open(CACHE).then((c) => c.put(ev.request, copy));
    return res;
  }).catch(() => caches.match(ev.request, { ignoreSearch: true })));
});
