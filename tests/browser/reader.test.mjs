// The reader's journey: from the table of contents to the chapter that holds S1.3, its card
// inline at the section its Read line points to, Start leading to the session; the drawer and
// previous/next on a phone, search, the theme toggle, and the place the reader left off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSetup, env, newContext, openPage, appReady, viewports } from './harness.mjs';

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
  await page.goto(shared.worker.url);
  const resume = page.getByRole('link', { name: 'Continue reading' });
  await resume.waitFor();
  assert.equal(new URL(await resume.getAttribute('href'), shared.worker.url).pathname, third);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/// What a reader sees of a chapter page, to compare the pre-rendered copy with the app's page.
function pageSummary() {
  const text = (el) => (el ? el.textContent.replace(/\s+/g, ' ').trim() : null);
  const article = document.querySelector('article.chapter');
  const clone = article.cloneNode(true);
  // A card's status comes from the reader's log, which only the app reads.
  for (const badge of clone.querySelectorAll('.badge')) badge.remove();
  return {
    title: article.getAttribute('aria-label'),
    text: text(clone),
    headings: [...article.querySelectorAll('h1,h2,h3,h4,h5,h6')].map((h) => h.id),
    cards: [...article.querySelectorAll('section.card')].map((c) => c.dataset.card),
    links: [...document.querySelectorAll('main a, header a')].map((a) => `${a.getAttribute('href')} ${text(a)} ${a.getAttribute('aria-current')}`),
    header: text(document.querySelector('header.topbar nav')),
  };
}

test('a chapter page reads before the app arrives, and the app takes it over with the same page, without a shift', async () => {
  const { route } = s13Target();
  // The worker sends the chapter already rendered: with JavaScript off, it is all there.
  const raw = await (await fetch(new URL(route, shared.worker.url))).text();
  assert.match(raw, /<div id="prerender">/);
  const still = await shared.browser.newContext({ viewport: viewports.phone, javaScriptEnabled: false });
  const copy = await still.newPage();
  await copy.goto(new URL(route, shared.worker.url).href);
  assert.ok(await copy.locator('#prerender article.chapter h1').isVisible());
  assert.ok(await copy.locator('#prerender section.card[data-card="S1.3"]').isVisible());
  const before = await copy.evaluate(pageSummary);
  await still.close();

  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err.message));
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((e) => e.value))).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(new URL(route, shared.worker.url).href);
  await appReady(page);
  await page.locator('section.card[data-card="S1.3"] .badge', { hasText: 'not started' }).waitFor();
  const after = await page.evaluate(pageSummary);
  assert.deepEqual(after, before, 'the pre-rendered copy and the app show the same page');
  assert.equal(await page.locator('main').count(), 1, 'one page, not two');
  const shift = await page.evaluate(() => window.__shifts.reduce((a, b) => a + b, 0));
  assert.ok(shift < 0.01, `the takeover moved the page (layout shift ${shift})`);
  // The copy is not the app's offline shell: the service worker keeps the plain index.html.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    for (let i = 0; i < 100 && !(await caches.match('/')); i++) await new Promise((r) => setTimeout(r, 100));
  });
  assert.doesNotMatch(await page.evaluate(async () => (await caches.match('/')).text()), /id="prerender"/);
  assert.deepEqual(page.errors, []);
  await context.close();
});
