// Offline-first: after one online visit, the browser offline and the worker stopped, a reload
// still shows the book, the guide and the log (the service worker's cache and IndexedDB).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, launchBrowser, newContext, openPage, viewports } from './harness.mjs';

let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

const LOG = '### 2026-07-22 — S1.3 (KV-cache budget) — DONE\n- **Done-when**: test_m02_kv_budget.py ✅\n';

test('offline with the worker stopped: book, guide and log still work after a reload', async () => {
  const worker = await startWorker();
  const context = await newContext(browser, { viewport: viewports.phone });
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
