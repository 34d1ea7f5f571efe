// The log journeys: import a hand-edited PROGRESS.md through a merge preview, reload, export it
// byte for byte (download and clipboard); import an overlapping log and resolve its conflict;
// two tabs see the same log; an entry edited in the form keeps its unknown fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedSetup, newContext, openPage, viewports, exportFile } from './harness.mjs';

// What a reader's hand produces: CRLF, a preamble, notes between entries, `*` bullets, an
// unknown field, lower-case status, trailing spaces, no final newline.
const HAND_EDITED = [
  '# My PROGRESS',
  '',
  'Started the book in July.  ',
  '',
  '### 2026-07-20 — S1.1 (Token budget) — DONE',
  '- **Built**: counted tokens per page',
  '- **Done-when**: test_m00_tokens.py ✅',
  '- **Mood**: curious',
  '- **Sticking point**: none',
  '- **Next**: S1.2 — embeddings',
  '',
  'A note between entries, kept as written.',
  '',
  '### 2026-07-21 – S1.2 (Embedding table) – partial',
  '* **Built**: half the embedding table ',
  '* **Done-when**: test_m01_embeddings.py ❌',
  '* **Sticking point**: row vs column layout (ladder rung 1)',
  '* **Next**: S1.2 — finish at the Midpoint',
].join('\r\n');

// Overlaps: S1.1 the same entry (with the note that follows it: notes belong to the entry
// above them) in LF endings without the preamble, S1.2 a different version, S1.3 new.
const SECOND = [
  '### 2026-07-20 — S1.1 (Token budget) — DONE',
  '- **Built**: counted tokens per page',
  '- **Done-when**: test_m00_tokens.py ✅',
  '- **Mood**: curious',
  '- **Sticking point**: none',
  '- **Next**: S1.2 — embeddings',
  '',
  'A note between entries, kept as written.',
  '',
  '### 2026-07-21 — S1.2 (Embedding table) — PARTIAL',
  '- **Built**: the whole embedding table, untested',
  '- **Done-when**: test_m01_embeddings.py ❌',
  '- **Next**: S1.2 — run the test',
  '',
  '### 2026-07-22 — S1.3 (KV-cache budget) — DONE',
  '- **Built**: chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512',
  '- **Done-when**: test_m02_kv_budget.py ✅',
  '- **Sticking point**: per-head vs per-layer cache sizing (ladder rung 2)',
  '- **Next**: S1.4 — dense vs MoE, decided with numbers',
  '',
].join('\n');

const shared = sharedSetup();

for (const [name, viewport] of Object.entries(viewports)) {
  test(`import a hand-edited log, reload, export it byte for byte; then merge an overlapping log (${name})`, async () => {
    const context = await newContext(shared.browser, { viewport, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await openPage(context, shared.worker.url, '/log');
    await page.locator('#log-empty').waitFor();

    // Import through the file picker: the preview comes first, nothing is written yet.
    await page.setInputFiles('#import-file', { name: 'PROGRESS.md', mimeType: 'text/markdown', buffer: Buffer.from(HAND_EDITED) });
    await page.locator('#merge-preview').waitFor();
    assert.match(await page.locator('#merge-summary').textContent(), /^2 to add, 0 already in your log, 0 conflicts/);
    assert.equal(await page.locator('#merge-preview .added li').count(), 2);
    assert.equal(await page.locator('#entries li.entry').count(), 0, 'the preview writes nothing');
    await page.click('#import-accept');
    await page.locator('#entries li.entry').nth(1).waitFor();

    // Reload: the log comes back from IndexedDB, and exports exactly the imported bytes.
    await page.reload();
    await page.locator('#entries li.entry').nth(1).waitFor();
    assert.equal(await exportFile(page, 'log'), HAND_EDITED);
    await page.click('#export-log-copy');
    await page.getByText('PROGRESS.md copied to the clipboard').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), HAND_EDITED);

    // A second, overlapping log, dropped on the page: one added, one duplicate, one conflict.
    const transfer = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'laptop-PROGRESS.md', { type: 'text/markdown' }));
      return dt;
    }, SECOND);
    await page.dispatchEvent('#import-drop', 'drop', { dataTransfer: transfer });
    await page.locator('#merge-preview').waitFor();
    assert.match(await page.locator('#merge-summary').textContent(), /^2 to add, 1 already in your log, 1 conflict to choose/);
    const conflict = page.locator('#merge-preview fieldset.conflict');
    assert.equal(await conflict.count(), 1);
    assert.match(await conflict.locator('legend').textContent(), /2026-07-21 S1\.2 PARTIAL/);
    // Keep both first: nothing may be lost.
    assert.ok(await conflict.getByLabel('Keep both').isChecked());
    await conflict.getByLabel(/Keep the imported version/).check();
    await page.click('#import-accept');
    await page.locator('#entries li.entry').nth(2).waitFor();
    const merged = await exportFile(page, 'log');
    assert.ok(merged.includes('S1.3 (KV-cache budget) — DONE'), 'the new entry was added');
    assert.equal(merged.match(/S1\.1 \(Token budget\)/g).length, 1, 'the duplicate collapsed');
    assert.ok(merged.includes('the whole embedding table, untested'), 'the chosen version is kept');
    assert.ok(!merged.includes('half the embedding table'), 'the other version was dropped by choice');
    for (const kept of ['# My PROGRESS', 'Started the book in July.', 'A note between entries, kept as written.', '**Mood**: curious']) {
      assert.ok(merged.includes(kept), `kept "${kept}"`);
    }
    assert.equal(await page.locator('#entries li.entry').count(), 3);
    assert.deepEqual(page.errors, []);
    await context.close();
  });
}

test('two tabs share one log: an entry added in one appears in the other without a reload', async () => {
  const context = await newContext(shared.browser);
  const first = await openPage(context, shared.worker.url, '/log');
  const second = await openPage(context, shared.worker.url, '/log');
  await second.locator('#log-empty').waitFor();
  await first.click('#new-entry-open');
  await first.fill('#new-session', 'S1.1');
  await first.fill('#new-title', 'Token budget');
  await first.fill('#new-built', 'counted tokens per page');
  await first.fill('#new-done-when', 'test_m00_tokens.py ✅');
  await first.click('#new-entry-save');
  await first.locator('#entries li.entry').first().waitFor();
  const entry = second.locator('#entries li.entry').first();
  await entry.waitFor({ timeout: 10_000 });
  assert.match(await entry.textContent(), /S1\.1 \(Token budget\)/);
  assert.deepEqual([...first.errors, ...second.errors], []);
  await context.close();
});

test('editing an entry in the form rewrites only what changed and keeps unknown fields', async () => {
  const context = await newContext(shared.browser);
  const page = await openPage(context, shared.worker.url, '/log');
  await page.locator('#log-empty').waitFor();
  await page.fill('#import-paste', HAND_EDITED);
  await page.click('#import-paste-preview');
  await page.click('#import-accept');
  await page.locator('#entries li.entry').nth(1).waitFor();
  // Newest first: the S1.2 entry is the first one shown.
  await page.getByRole('button', { name: 'Edit the entry of 2026-07-21 S1.2' }).click();
  const form = page.getByRole('form', { name: 'Edit the entry of 2026-07-21 S1.2' });
  await form.getByLabel('Built').fill('the whole embedding table');
  await form.getByRole('button', { name: 'Save the entry' }).click();
  await page.getByText('the whole embedding table').waitFor();
  const text = await exportFile(page, 'log');
  // A textarea turns CRLF into LF (the HTML standard says so); the file picker keeps every byte.
  assert.equal(text, HAND_EDITED.replaceAll('\r\n', '\n').replace('* **Built**: half the embedding table ', '* **Built**: the whole embedding table'));
  await context.close();
});

test('a write the browser refuses is shown to the reader, and nothing on the page pretends it saved', async () => {
  const context = await newContext(shared.browser);
  const page = await openPage(context, shared.worker.url, '/log');
  await page.locator('#log-empty').waitFor();
  // Another tab (simulated) upgrades the database past this version of the app.
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('bookside', 99);
        req.onsuccess = () => {
          req.result.close();
          resolve();
        };
        req.onerror = () => reject(req.error);
      }),
  );
  await page.getByText('a newer Bookside opened in another tab').waitFor();
  await page.fill('#import-paste', '### 2026-07-22 — S1.3 (KV-cache budget) — DONE\n');
  await page.click('#import-paste-preview');
  await page.click('#import-accept');
  const alert = page.getByRole('alert').filter({ hasText: 'a newer Bookside stored data here' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /reload the page/);
  assert.equal(await page.locator('#entries li.entry').count(), 0, 'the refused entry is not shown as saved');
  assert.ok(await page.locator('#merge-preview').isVisible(), 'the import stays open to try again');
  await context.close();
});
