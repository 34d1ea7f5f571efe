// Offline-first: after one online visit, the browser offline and the worker stopped, a reload
// still shows the book, the guide and the log (the service worker's cache and IndexedDB).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedSetup, env, startWorker, newContext, openPage, viewports } from './harness.mjs';

const shared = sharedSetup({ worker: false });

const LOG = '### 2026-07-22 — S1.3 (KV-cache budget) — DONE\n- **Done-when**: test_m02_kv_budget.py ✅\n';

test('offline with the worker stopped: book, guide and log still work after a reload', async () => {
  const worker = await startWorker();
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  try {
    const page = await openPage(context, worker.url, '/log');
    // First visit: the service worker installs and precaches the shell and the book.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      for (let i = 0; i < 100 && !(await caches.match('/book.json')); i++) await new Promise((r) => setTimeout(r, 100));
    });
    assert.ok(await page.evaluate(async () => Boolean(await caches.match('/book.json'))), 'the book is cached');
    await page.fill('#import-paste', LOG);
    await page.click('#import-paste-preview');
    await page.click('#import-accept');
    await page.locator('#entries li.entry').first().waitFor();

    await context.setOffline(true);
    await worker.stop();

    await page.reload();
    await page.locator('#entries li.entry').first().waitFor();
    assert.match(await page.locator('#entries li.entry').first().textContent(), /S1\.3/);

    await page.goto(new URL('/book/kv-cache', worker.url).href);
    await page.locator('section.card[data-card="S1.3"]').waitFor();
    // The log's ✅ shows on the card, offline.
    assert.match(await page.locator('section.card[data-card="S1.3"] .badge').textContent(), /DONE/);

    await page.goto(new URL('/guide', worker.url).href);
    await page.locator('#progress-picture .cell').first().waitFor();
    assert.ok((await page.locator('section.card').count()) > 10, 'every card of the guide is shown');
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await worker.stop();
  }
});

test('a new build reaches the next online visit; the open tab keeps working', async () => {
  // A copy of the site we can "rebuild": the new build's index.html carries a marker.
  const site = mkdtempSync(join(tmpdir(), 'bookside-site-'));
  cpSync(env.site, site, { recursive: true });
  let worker = await startWorker({ site });
  const port = new URL(worker.url).port;
  const context = await newContext(shared.browser);
  try {
    const old = await openPage(context, worker.url, '/guide');
    await old.evaluate(() => navigator.serviceWorker.ready);
    await worker.stop();
    const index = join(site, 'index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replace('<title>', '<meta name="bookside-build" content="two"><title>'));
    worker = await startWorker({ site, port });

    const fresh = await openPage(context, worker.url, '/guide');
    assert.equal(await fresh.locator('meta[name="bookside-build"]').count(), 1, 'the online visit got the new build');
    // The open tab still navigates (client-side) and shows its pages.
    await old.locator('header.topbar').getByRole('link', { name: 'Log' }).click();
    await old.locator('#import-paste').waitFor();
    assert.deepEqual([...old.errors, ...fresh.errors], []);

    // The service worker stores the new shell in the background; wait for it, then go offline.
    await fresh.evaluate(async () => {
      for (let i = 0; i < 100; i++) {
        const cached = await caches.match('/');
        if (cached && (await cached.text()).includes('bookside-build')) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    await context.setOffline(true);
    await worker.stop();
    await fresh.reload();
    await fresh.locator('header.topbar').waitFor();
    assert.equal(await fresh.locator('meta[name="bookside-build"]').count(), 1, 'the cache holds the new build');
  } finally {
    await context.close();
    await worker.stop();
    rmSync(site, { recursive: true, force: true });
  }
});
