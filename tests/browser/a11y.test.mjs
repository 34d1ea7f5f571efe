// Phone-first and accessible: at 360×740 no page scrolls sideways, controls are at least 44 px,
// and axe-core finds no serious or critical violation, in both themes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sharedSetup, newContext, openPage, horizontalOverflow, viewports } from './harness.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const LOG = '# Log\n\n### 2026-07-22 — S1.3 (KV-cache budget) — PARTIAL\n- **Done-when**: test_m02_kv_budget.py ❌\n- **Mood**: long line without spaces aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n';
const PAGES = ['/', '/book', '/book/kv-cache', '/book/session-guide', '/guide', '/log', '/profile', '/search?q=cache', '/session/S1.3'];

const shared = sharedSetup();

async function audit(page) {
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

async function smallTargets(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, .button, .topbar a, .toc a, .cell, summary, .hits a')]
      .filter((el) => el.offsetParent !== null)
      .map((el) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }) => box.height < 44 || box.width < 44)
      .map(({ el, box }) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`),
  );
}

for (const theme of ['light', 'dark']) {
  test(`every page at 360×740 in the ${theme} theme: no sideways scroll, 44 px targets, no serious axe violations`, async () => {
    // bypassCSP: the worker's CSP (rightly) refuses the audit's injected script.
    const context = await shared.browser.newContext({ viewport: viewports.phone, colorScheme: theme, bypassCSP: true });
    const setup = await openPage(context, shared.worker.url, '/log');
    await setup.fill('#import-paste', LOG);
    await setup.click('#import-paste-preview');
    await setup.click('#import-accept');
    await setup.locator('#entries li.entry').first().waitFor();
    await setup.close();
    const problems = [];
    for (const path of PAGES) {
      const page = await openPage(context, shared.worker.url, path);
      await page.locator('main h1').first().waitFor();
      await page.waitForTimeout(200);
      const overflow = await horizontalOverflow(page);
      if (overflow > 0) problems.push(`${path}: scrolls sideways by ${overflow} px`);
      for (const small of await smallTargets(page)) problems.push(`${path}: small target ${small}`);
      for (const violation of await audit(page)) problems.push(`${path}: ${violation}`);
      if (page.errors.length) problems.push(`${path}: page errors ${page.errors.join('; ')}`);
      await page.close();
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
}
