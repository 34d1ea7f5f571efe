// The profile: onboarding writes PROFILE.md (hard mode caps the ladder at 3); an imported,
// hand-edited PROFILE.md is kept byte for byte, and changing one answer rewrites only that line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedSetup, newContext, openPage, viewports, exportFile } from './harness.mjs';

const shared = sharedSetup();

test('onboarding writes the profile; hard mode caps the ladder at rung 3', async () => {
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  const page = await openPage(context, shared.worker.url, '/profile');
  await page.locator('#onboarding').waitFor();
  await page.getByLabel('Background').fill('Python developer, some PyTorch');
  await page.getByLabel('Goal').fill('understand transformers by building one');
  await page.getByLabel('Hardware').fill('laptop, 16 GB, no GPU');
  await page.getByLabel('30-minute sittings, split at the Midpoint').check();
  await page.getByLabel('Hard mode: never show rung 4').check();
  await page.getByText('The ladder will stop at rung 3.').waitFor();
  await page.click('#profile-save');
  await page.getByText('Profile saved.').waitFor();
  const text = await exportFile(page, 'profile');
  assert.match(text, /- \*\*Background\*\*: Python developer, some PyTorch/);
  assert.match(text, /- \*\*Pace\*\*: 30/);
  assert.match(text, /- \*\*Hard mode\*\*: yes/);
  assert.match(text, /- \*\*Hint cap\*\*: 3/);
  await page.reload();
  await page.locator('#onboarding').waitFor();
  assert.equal(await page.getByLabel('Background').inputValue(), 'Python developer, some PyTorch');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('an imported hand-edited PROFILE.md exports byte for byte; one change rewrites one line', async () => {
  const hand = '# Profile\r\n\r\nNotes: I read on the train.\r\n\r\n* **Background**: C programmer\r\n* **Pace**: 60 minutes\r\n* **Editor**: vim\r\n* **Hint cap**: 4';
  const context = await newContext(shared.browser);
  const page = await openPage(context, shared.worker.url, '/profile');
  await page.setInputFiles('#profile-file', { name: 'PROFILE.md', mimeType: 'text/markdown', buffer: Buffer.from(hand) });
  await page.locator('#profile-preview').waitFor();
  await page.click('#profile-accept');
  await page.getByText('Profile imported.').waitFor();
  assert.equal(await exportFile(page, 'profile'), hand);
  await page.reload();
  await page.locator('#onboarding').waitFor();
  await page.getByLabel('Background').fill('C and Python programmer');
  await page.click('#profile-save');
  await page.getByText('Profile saved.').waitFor();
  assert.equal(await exportFile(page, 'profile'), hand.replace('C programmer', 'C and Python programmer'));
  await context.close();
});
