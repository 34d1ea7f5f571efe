// Bookside's service worker: the app shell and the book, kept for offline use.
//
// - Install (first visit): fetch index.html, cache it and every asset it names (Trunk's hashed
//   wasm, JS and CSS), the manifest and icons, and /book.json.
// - Pages (navigations) and /book.json: network first, so an online visit always gets the newest
//   build and book; the cached copy when the network or the worker is gone. Every app route falls
//   back to the cached index.html (Leptos routes on the client); a pre-rendered chapter page is
//   shown online but never cached as that shell.
// - Hashed assets: cache first (a new build has new names, fetched and cached on first use). When
//   a fresh index.html arrives, assets it no longer names are dropped. An open tab keeps running:
//   its wasm is already in memory and nothing it still needs is fetched again.
// - The worker's API (/api/...) is never cached: results must be live.
'use strict';

const CACHE = 'bookside-shell-v1';
const STATIC = ['/manifest.webmanifest', '/icon.svg', '/icon-192.png', '/icon-512.png'];
const NETWORK_TIMEOUT_MS = 5000;

/** Asset paths an index.html names: href/src attributes and the module script's imports. */
function assetsOf(html) {
  const found = new Set();
  for (const m of html.matchAll(/["'](\/[^"'\s?#]+\.(?:js|wasm|css))["']/g)) if (m[1] !== '/sw.js') found.add(m[1]);
  return [...found];
}

async function fetchFresh(request) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), NETWORK_TIMEOUT_MS);
  try {
    return await fetch(request, { cache: 'no-store', signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stores a fresh index.html, caches what it names, and drops hashed assets it no longer names.
 * A chapter page pre-rendered by the worker (or by `cargo xtask dist`) is not the shell: its
 * assets are cached, but offline every route gets the plain index.html the app renders itself.
 */
async function storeShell(cache, response) {
  const html = await response.clone().text();
  const assets = assetsOf(html);
  const prerendered = html.includes('<div id="prerender">');
  if (!prerendered) await cache.put('/', response);
  await Promise.all(
    assets.map(async (path) => {
      if (!(await cache.match(path))) {
        const asset = await fetch(path, { cache: 'no-store' });
        if (asset.ok) await cache.put(path, asset);
      }
    }),
  );
  if (prerendered) return;
  const keep = new Set(['/', '/book.json', ...STATIC, ...assets]);
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (!keep.has(path)) await cache.delete(request);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const index = await fetchFresh('/');
      if (!index.ok) throw new Error(`cannot fetch the app shell: HTTP ${index.status}`);
      await storeShell(cache, index);
      await cache.addAll(STATIC);
      const book = await fetchFresh('/book.json');
      if (book.ok) await cache.put('/book.json', book);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

async function networkFirst(event, key, isShell) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetchFresh(event.request);
    if (response.ok) {
      const copy = response.clone();
      event.waitUntil(isShell ? storeShell(cache, copy) : cache.put(key, copy));
      return response;
    }
    const cached = await cache.match(key);
    return cached || response;
  } catch (err) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw err;
  }
}

async function cacheFirst(event) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(event.request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(event.request);
  if (response.ok) event.waitUntil(cache.put(event.request, response.clone()));
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(event, '/', true));
  } else if (url.pathname === '/book.json') {
    event.respondWith(networkFirst(event, '/book.json', false));
  } else {
    event.respondWith(cacheFirst(event));
  }
});
