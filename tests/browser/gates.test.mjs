// Gates and remediation from the reader's log: a log that trips a gate shows the finding in the
// import preview and, once written, on the log page linked to its entry; a log with three
// Sticking points on one theme brings the remediation offer before the next session starts; a ✅
// the reader wrote that the worker's verified run contradicts is reported, and the card is not
// done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSetup, newContext, openPage, viewports, horizontalOverflow, milestoneFixture, workerOnClone, pair, importText } from './harness.mjs';

// Milestone m02's (S1.3) reference artifact that falls short of the card's criterion: its test fails.
const SHORT_M02 = milestoneFixture('m02', 'short');

// S1.3 logged DONE with a ✅ the reader wrote: nothing verified it.
const CLAIMS_S13 = [
  '### 2026-07-22 — S1.3 (KV-cache budget) — DONE',
  '- **Built**: a cache budget, checked by eye',
  '- **Done-when**: test_m02_kv_budget.py ✅',
  '- **Sticking point**: none',
  '- **Next**: S1.4 — dense vs MoE',
  '',
].join('\n');

// S9.9 is no card of the Session Guide: the `session-exists` gate fires on its entry.
const TRIPS_A_GATE = [
  '### 2026-07-20 — S0.1 (How this book works) — DONE',
  '- **Built**: read the chapter and the guide',
  '- **Done-when**: quiz 5/5 ✅',
  '- **Sticking point**: none',
  '- **Next**: S0.2',
  '',
  '### 2026-07-21 — S9.9 (A session from another book) — DONE',
  '- **Built**: something',
  '- **Next**: S0.2',
  '',
].join('\n');

// The same theme three times, worded three ways, across two sessions; S1.3's card names S0.3
// as its remediation.
const STUCK = [
  '### 2026-07-20 — S1.2 (Model config on paper) — DONE',
  '- **Built**: the config on paper',
  '- **Done-when**: test_m01_model_config.py ✅',
  '- **Sticking point**: per-head vs per-layer cache sizing (ladder rung 1)',
  '- **Next**: S1.3',
  '',
  '### 2026-07-21 — S1.3 (KV-cache budget) — PARTIAL',
  '- **Built**: half the budget',
  '- **Done-when**: test_m02_kv_budget.py ❌',
  '- **Sticking point**: confused per-head and per-layer cache sizing again (ladder rung 2)',
  '- **Next**: S1.3 — resume at the Midpoint',
  '',
  '### 2026-07-22 — S1.3 (KV-cache budget) — PARTIAL',
  '- **Built**: the budget, still red',
  '- **Done-when**: test_m02_kv_budget.py ❌',
  '- **Sticking point**: Per head versus per layer cache sizing (ladder rung 2)',
  '- **Next**: S1.3 — resume at the Midpoint',
  '',
].join('\n');

const shared = sharedSetup();

test('a log that trips a gate: the preview warns, the log page links the finding to its entry (phone)', async () => {
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const page = await openPage(context, shared.worker.url, '/log');
  await page.locator('#log-empty').waitFor();
  await importText(page, TRIPS_A_GATE);
  const previewed = page.locator('#preview-gates li.finding[data-gate="session-exists"]');
  await previewed.waitFor();
  assert.match(await previewed.textContent(), /S9\.9/);
  await page.click('#import-accept');
  await page.locator('#entries li.entry').nth(1).waitFor();

  const finding = page.locator('#gate-report li.finding[data-gate="session-exists"]');
  await finding.waitFor();
  const link = finding.locator('a');
  const href = await link.getAttribute('href');
  assert.match(href, /^#entry-\d+$/);
  const entry = page.locator(href);
  assert.equal(await entry.count(), 1, 'the link points at a rendered entry');
  assert.match(await entry.locator('h3').textContent(), /2026-07-21 — S9\.9/);
  // The clean entry has no finding.
  const all = await page.locator('#gate-report li.finding a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  const clean = await page.locator('article', { hasText: 'S0.1 (How this book works)' }).getAttribute('id');
  assert.ok(!all.includes(`#${clean}`), `the S0.1 entry (${clean}) trips nothing: ${all}`);
  await link.click();
  await page.waitForFunction((h) => location.hash === h, href);
  assert.equal(await horizontalOverflow(page), 0);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('three Sticking points on one theme: the remediation offer shows before the next session', async () => {
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const page = await openPage(context, shared.worker.url, '/');
  await page.locator('#book-title').waitFor();
  assert.equal(await page.locator('#remediation-offer').count(), 0, 'no offer without a log');

  await page.goto(new URL('/log', shared.worker.url).href);
  await page.locator('#log-empty').waitFor();
  await importText(page, STUCK);
  await page.click('#import-accept');
  await page.locator('#entries li.entry').nth(2).waitFor();

  // On the home page, before anything starts.
  await page.goto(new URL('/', shared.worker.url).href);
  const offer = page.locator('#remediation-offer');
  await offer.waitFor();
  assert.match(await offer.locator('h2').textContent(), /S0\.3/);
  assert.match(await offer.textContent(), /per-head vs per-layer cache sizing/);
  assert.equal(await offer.locator('li a').count(), 3, 'the three entries that call for it');
  assert.equal(await offer.locator('#remediation-start').getAttribute('href'), '/session/S0.3');
  assert.equal(await horizontalOverflow(page), 0);

  // And at the top of the next session, before its hour begins.
  await page.goto(new URL('/session/S1.3', shared.worker.url).href);
  await page.locator('#remediation-offer').waitFor();
  const [offerBox, titleBox] = await Promise.all([page.locator('#remediation-offer').boundingBox(), page.locator('#session-title').boundingBox()]);
  assert.ok(offerBox.y < titleBox.y, 'the offer comes before the session');

  // An entry link leads to the entry on the log page.
  await page.goto(new URL('/', shared.worker.url).href);
  const first = page.locator('#remediation-offer li a').first();
  const href = await first.getAttribute('href');
  assert.match(href, /^\/log#entry-\d+$/);
  await first.click();
  await page.locator(`#${href.split('#')[1]}`).waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a self-reported ✅ that a verified run contradicts: the gate report and the card status follow the worker', async () => {
  const { clone, worker: own, stop } = await workerOnClone();
  const context = await newContext(shared.browser);
  try {
    const page = await pair(context, own);

    await page.goto(new URL('/log', own.origin).href);
    await page.locator('#log-empty').waitFor();
    await importText(page, CLAIMS_S13);
    await page.click('#import-accept');
    // Before any verified run: the ✅ counts, labelled self-reported.
    await page.locator('#gate-report .self-reported li', { hasText: 'S1.3' }).waitFor();
    assert.equal(await page.locator('#gate-report li.finding[data-gate="done-is-green"]').count(), 0);
    await page.goto(new URL('/guide', own.origin).href);
    await page.locator('section.card[data-card="S1.3"] .badge', { hasText: 'DONE · self-reported' }).waitFor();

    // The clone holds an artifact that falls short; the status refresh runs every milestone test.
    cpSync(SHORT_M02, join(clone.dir, 'checkpoints/myllm'), { recursive: true });
    await page.goto(new URL('/', own.origin).href);
    await page.click('#refresh-status');
    // The first run creates the clone's virtual environment: allow for it.
    await page.locator('#refresh-status', { hasText: 'Refresh test status' }).waitFor({ timeout: 180_000 });
    await page.locator('.notices .notice', { hasText: 'Test status refreshed' }).waitFor();

    // The log's ✅ is now contradicted: a finding on S1.3's entry, and no self-reported label.
    await page.goto(new URL('/log', own.origin).href);
    const finding = page.locator('#gate-report li.finding[data-gate="done-is-green"]');
    await finding.waitFor();
    assert.match(await finding.textContent(), /S1\.3 says ✅ but its latest verified run is a fail/);
    const href = await finding.locator('a').getAttribute('href');
    assert.match(await page.locator(`${href} h3`).textContent(), /S1\.3 \(KV-cache budget\)/);
    assert.equal(await page.locator('#gate-report .self-reported li', { hasText: 'S1.3' }).count(), 0);
    // And the card is not done: what the worker found is what it shows.
    await page.goto(new URL('/guide', own.origin).href);
    const badge = page.locator('section.card[data-card="S1.3"] .badge');
    await badge.waitFor();
    await page.waitForFunction(() => !/DONE/.test(document.querySelector('section.card[data-card="S1.3"] .badge')?.textContent ?? 'DONE'));
    assert.equal((await badge.textContent()).trim(), 'PARTIAL');
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await stop();
  }
});
