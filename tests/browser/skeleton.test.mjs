// The walking skeleton's journey: the worker serves the release build, the WASM app mounts in a
// real browser, and the book's title and table of contents appear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSetup, env } from './harness.mjs';

const shared = sharedSetup();

test('the app mounts and shows the book title and its table of contents', async () => {
  const title = readFileSync(join(env.book, 'book.toml'), 'utf8').match(/^title\s*=\s*"(.*)"/m)[1];
  const chapters = [...readFileSync(join(env.book, 'src/SUMMARY.md'), 'utf8').matchAll(/\[([^\]]+)\]\([^)]+\.md\)/g)].map((m) => m[1]);
  assert.ok(chapters.length > 0, 'SUMMARY.md lists chapters');

  const page = await shared.browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(shared.worker.url);
  // Only the mounted WASM app renders this heading: index.html itself has an empty body.
  const heading = page.locator('#book-title');
  await heading.waitFor({ timeout: 30_000 });
  assert.equal(await heading.textContent(), title);
  const toc = await page.locator('#toc li').allTextContents();
  for (const chapter of chapters) {
    assert.ok(toc.some((item) => item.includes(chapter)), `table of contents shows "${chapter}" (got ${JSON.stringify(toc)})`);
  }
  assert.deepEqual(errors, [], 'no uncaught errors on the page');
  await page.close();
});
