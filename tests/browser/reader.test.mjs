// The reader's journey: from the table of contents to the chapter that holds S1.3, its card
// inline at the section its Read line points to, Start leading to the session; the drawer and
// previous/next on a phone, search, the theme toggle, and the place the reader left off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSetup, env, newContext, openPage, appReady, viewports, importText } from './harness.mjs';

const shared = sharedSetup();

/// Where the book's own files say S1.3's card belongs: its first Read link.
function s13Target() {
  const guide = readFileSync(join(env.book, 'src/session-guide.md'), 'utf8');
  const card = guide.split(/^### /m).find((block) => block.startsWith('S1.3'));
  assert.ok(card, 'the sample guide has S1.3');
  const [, file, anchor] = card.match(/\*\*Read\*\*:\s*\[[^\]]*\]\(([^)#]+)\.md#([^)]+)\)/);
  const summary = readFileSync(join(env.book, 'src/SUMMARY.md'), 'utf8');
  const title = summary.match(new RegExp(`\\[([^\\]]+)\\]\\(${file}\\.md\\)`))[1];
  return { route: `/book/${file}`, anchor, title };
}

for (const [name, viewport] of Object.entries(viewports)) {
  test(`follow the contents to S1.3's chapter, see its card at its section, start it (${name})`, async () => {
    const { route, anchor, title } = s13Target();
    const context = await newContext(shared.browser, { viewport });
    const page = await openPage(context, shared.worker.url, '/');
    await page.locator('#toc').getByRole('link', { name: title, exact: false }).first().click();
    await page.waitForURL((url) => url.pathname === route);
    const card = page.locator('section.card[data-card="S1.3"]');
    await card.waitFor();
    assert.ok(await card.isVisible());
    // The card sits right after the heading its Read line names.
    const headingId = await card.evaluate((el) => el.previousElementSibling?.querySelector('h1,h2,h3,h4,h5,h6')?.id);
    assert.equal(headingId, anchor);
    assert.match(await card.locator('.badge').textContent(), /not started/);
    await card.getByRole('link', { name: /Start session S1\.3/ }).click();
    await page.waitForURL((url) => url.pathname === '/session/S1.3');
    assert.match(await page.locator('#session-title').textContent(), /^S1\.3 — /);
    assert.deepEqual(page.errors, []);
    await context.close();
  });
}

test('on a phone: the contents drawer, previous and next, search, theme, and where I left off', async () => {
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const page = await openPage(context, shared.worker.url, '/book');
  // The sidebar is hidden at this width; the drawer holds the contents.
  assert.equal(await page.locator('.toc-sidebar').isVisible(), false);
  await page.locator('.toc-drawer summary').click();
  const drawerLinks = page.locator('.toc-drawer a');
  assert.ok((await drawerLinks.count()) > 3);
  const second = await drawerLinks.nth(1).getAttribute('href');
  await drawerLinks.nth(1).click();
  await page.waitForURL((url) => url.pathname === second);
  await page.getByRole('link', { name: /→$/ }).click();
  await page.waitForURL((url) => url.pathname !== second);
  const third = new URL(page.url()).pathname;
  await page.getByRole('link', { name: /^← / }).click();
  await page.waitForURL((url) => url.pathname === second);

  // Search works on the book's text, in the browser.
  await page.fill('#reader-search', 'cache');
  await page.press('#reader-search', 'Enter');
  await page.waitForURL((url) => url.pathname === '/search');
  const hit = page.locator('#search-hits li a').first();
  await hit.waitFor();
  const target = await hit.getAttribute('href');
  assert.match(target, /^\/book\//);

  // The theme toggle overrides the system's choice and survives a reload.
  const before = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.getByRole('button', { name: /Switch to the (dark|light) theme/ }).click();
  const after = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.notEqual(after, before);
  await page.reload();
  await appReady(page);
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), after);

  // Home offers to continue where the reader was.
  await page.goto(new URL(third, shared.worker.url).href);
  await appReady(page);
  await page.locator('article.chapter').waitFor();
  // The chapter page keeps the choice too, and its toggle switches back.
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), after);
  await page.getByRole('button', { name: /Switch to the (dark|light) theme/ }).click();
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), before);
  await page.goto(shared.worker.url);
  const resume = page.getByRole('link', { name: 'Continue reading' });
  await resume.waitFor();
  assert.equal(new URL(await resume.getAttribute('href'), shared.worker.url).pathname, third);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/// What a reader sees of a chapter page, to compare the page as sent, as its script leaves it,
/// and as the app draws it. `badges`: whether the cards' statuses count (the server cannot know
/// them: they come from the reader's log in the browser).
function pageSummary(badges) {
  const text = (el) => (el ? el.textContent.replace(/\s+/g, ' ').trim() : null);
  const article = document.querySelector('article.chapter');
  const clone = article.cloneNode(true);
  if (!badges) for (const badge of clone.querySelectorAll('.badge, .actions a')) badge.remove();
  return {
    title: article.getAttribute('aria-label'),
    text: text(clone),
    headings: [...article.querySelectorAll('h1,h2,h3,h4,h5,h6')].map((h) => h.id),
    cards: [...article.querySelectorAll('section.card')].map((c) => c.dataset.card),
    // The reminder to export is the app's too, but each page puts it where it moves nothing.
    links: [...document.querySelectorAll('main a, header a')].filter((a) => !a.closest('.reminder')).map((a) => `${a.getAttribute('href')} ${badges ? text(a) : ''} ${a.getAttribute('aria-current')}`),
    header: text(document.querySelector('header.topbar nav')),
  };
}

const PARTIAL_S13 = '### 2026-07-21 — S1.3 (KV-cache budget) — PARTIAL\n- **Done-when**: test_m02_kv_budget.py ❌\n';
const DONE_S13 = '### 2026-07-22 — S1.3 (KV-cache budget) — DONE\n- **Done-when**: test_m02_kv_budget.py ✅\n';

test('a chapter page is whole before any script runs; its own small script shows my statuses; the app draws the same page', async () => {
  const { route, title } = s13Target();
  // The worker sends the chapter already rendered: with JavaScript off, it is all there.
  const raw = await (await fetch(new URL(route, shared.worker.url))).text();
  assert.match(raw, /<div id="prerender">/);
  assert.match(raw, /bookside-chapter-[0-9a-f]+\.js/, 'the page loads the chapter entry point');
  assert.doesNotMatch(raw, /bookside-app-/, 'the page does not load the whole app');
  const still = await shared.browser.newContext({ viewport: viewports.phone, javaScriptEnabled: false });
  const copy = await still.newPage();
  await copy.goto(new URL(route, shared.worker.url).href);
  assert.ok(await copy.locator('#prerender article.chapter h1').isVisible());
  assert.ok(await copy.locator('#prerender section.card[data-card="S1.3"]').isVisible());
  const asSent = await copy.evaluate(pageSummary, false);
  await still.close();

  // A log where S1.3 is under way, imported in the app.
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const app = await openPage(context, shared.worker.url, '/log');
  await importText(app, PARTIAL_S13);
  await app.click('#import-accept');
  await app.locator('#entries li.entry').first().waitFor();

  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err.message));
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((e) => e.value))).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(new URL(route, shared.worker.url).href);
  await appReady(page);
  const card = page.locator('section.card[data-card="S1.3"]');
  assert.equal((await card.locator('.badge').textContent()).trim(), 'PARTIAL');
  assert.equal((await card.locator('.actions a').textContent()).trim(), 'Resume');
  // The log is in a browser that may evict it and was never exported: the page says so, below
  // the chapter.
  assert.equal(await page.locator('nav.pager + p.reminder a[href="/log#keep"]').count(), 1);
  assert.deepEqual(await page.evaluate(pageSummary, false), asSent, 'the script changes only the statuses');
  const shift = await page.evaluate(() => window.__shifts.reduce((a, b) => a + b, 0));
  assert.ok(shift < 0.01, `filling in the statuses moved the page (layout shift ${shift})`);
  const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname));
  assert.ok(loaded.some((p) => /^\/bookside-chapter-[0-9a-f]+_bg\.wasm$/.test(p)), `loaded: ${loaded}`);
  assert.ok(!loaded.some((p) => p.startsWith('/bookside-app-')), `the chapter page fetched the app: ${loaded}`);

  // The app, reaching the same chapter from its contents, draws the same page and statuses.
  await app.goto(shared.worker.url);
  await appReady(app);
  await app.locator('#toc').getByRole('link', { name: title, exact: false }).first().click();
  await app.waitForURL((url) => url.pathname === route);
  await app.locator('section.card[data-card="S1.3"] .badge', { hasText: 'PARTIAL' }).waitFor();
  assert.deepEqual(await app.evaluate(pageSummary, true), await page.evaluate(pageSummary, true));

  // Finishing S1.3 in the app's tab reaches the open chapter page without a reload.
  await app.goto(new URL('/log', shared.worker.url).href);
  await appReady(app);
  await importText(app, DONE_S13);
  await app.click('#import-accept');
  await card.locator('.badge', { hasText: 'DONE · self-reported' }).waitFor();
  assert.equal((await card.locator('.actions a').textContent()).trim(), 'Start');
  assert.equal(await page.locator('main').count(), 1, 'one page, not two');

  // The chapter page is not the app's offline shell: the service worker keeps the plain index.html.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    for (let i = 0; i < 100 && !(await caches.match('/')); i++) await new Promise((r) => setTimeout(r, 100));
  });
  assert.doesNotMatch(await page.evaluate(async () => (await caches.match('/')).text()), /id="prerender"/);
  assert.deepEqual([...page.errors, ...app.errors], []);
  await context.close();
});
