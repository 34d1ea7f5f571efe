// The reader's journey: from the table of contents to the chapter that holds S1.3, its card
// inline at the section its Read line points to, Start leading to the session; the drawer and
// previous/next on a phone, search, the theme toggle, and the place the reader left off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { env, startWorker, launchBrowser, newContext, openPage, viewports } from './harness.mjs';

let worker;
let browser;

before(async () => {
  worker = await startWorker();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await worker?.stop();
});

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
    const context = await newContext(browser, { viewport });
    const page = await openPage(context, worker.url, '/');
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
  const context = await newContext(browser, { viewport: viewports.phone });
  const page = await openPage(context, worker.url, '/book');
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
  await page.locator('header.topbar').waitFor();
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), after);

  // Home offers to continue where the reader was.
  await page.goto(new URL(third, worker.url).href);
  await page.locator('article.chapter').waitFor();
  await page.goto(worker.url);
  const resume = page.getByRole('link', { name: 'Continue reading' });
  await resume.waitFor();
  assert.equal(new URL(await resume.getAttribute('href'), worker.url).pathname, third);
  assert.deepEqual(page.errors, []);
  await context.close();
});
