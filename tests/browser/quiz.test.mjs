// The quiz and review journeys on a phone-sized screen, with no worker API in use: take a
// read-only session's quiz (answer right and wrong, explain before the reveal, survive a reload,
// finish with a score and links to re-read, save the session's log entry with the score as its
// Done-when and export it), take it again and get different questions; the next day, review
// shows the missed questions and a rating takes one off today's list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedSetup, newContext, openPage, viewports, horizontalOverflow, exportFile } from './harness.mjs';

const SESSION = 'S0.3';
const DAY = new Date('2026-07-22T09:30:00');
const NEXT_DAY = new Date('2026-07-23T09:30:00');

// The browser's random source, made repeatable, so two browser contexts draw the same seed for
// their first attempt: one context reveals the answers, the other answers with them. The app
// still draws every seed itself (a fresh one per attempt).
function repeatableRandom() {
  let state = 0x2545f491;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  Crypto.prototype.getRandomValues = function (array) {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
    return array;
  };
}

const shared = sharedSetup();

async function phone() {
  const context = await newContext(shared.browser, { viewport: viewports.phone });
  await context.addInitScript(repeatableRandom);
  await context.clock.setFixedTime(DAY);
  const apiCalls = [];
  context.on('request', (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/')) apiCalls.push(req.url());
  });
  return { context, apiCalls };
}

/// The question on screen: its key, its kind, and its position.
async function current(page) {
  const question = page.locator('#quiz-question');
  await question.waitFor();
  const key = await question.getAttribute('data-key');
  const progress = await page.locator('#quiz-progress').textContent();
  let kind = 'explain';
  if (await page.locator('input[name="quiz-option"]').count()) kind = 'choice';
  else if (await page.locator('input#quiz-answer[inputmode="decimal"]').count()) kind = 'numeric';
  return { key, kind, progress };
}

async function nextQuestion(page, key) {
  await page.click('#quiz-next');
  await page.waitForFunction((k) => document.querySelector('#quiz-question')?.dataset.key !== k || document.querySelector('#quiz-score'), key);
}

/// Answers anything acceptable, explains, reveals; returns what the reveal shows.
async function answerAnything(page, q) {
  if (q.kind === 'numeric') await page.fill('#quiz-answer', '1');
  if (q.kind === 'choice') await page.locator('label[for="quiz-option-0"]').click();
  if (q.kind === 'explain') await page.fill('#quiz-answer', 'I am not sure.');
  else await page.fill('#quiz-why', 'a guess');
  await page.click('#quiz-reveal');
  await page.locator('#quiz-feedback').waitFor();
  const expected = (await page.locator('#quiz-expected').textContent()).trim();
  if (q.kind === 'explain') await page.click('#quiz-mark-wrong');
  return expected;
}

/// Goes through a whole attempt answering anything, and returns each question with the answer
/// its reveal showed: the key a later attempt on the same seed can be answered from.
async function scoutAnswers(page) {
  const key = [];
  for (;;) {
    const q = await current(page);
    q.expected = await answerAnything(page, q);
    key.push(q);
    const last = (await page.locator('#quiz-next').textContent()).includes('score');
    await nextQuestion(page, q.key);
    if (last) break;
  }
  return key;
}

/// A right answer is one we can give for sure: a pick, a self-mark, or a whole number.
const canAnswerRight = (q) => q.kind !== 'numeric' || /^-?\d+( |$)/.test(q.expected);

test(`a read-only session's quiz on a phone: answer, explain, reveal, score, re-read, a new attempt, then review (${SESSION})`, async () => {
  // A scout reveals every answer of the first attempt.
  const scout = await phone();
  const scoutPage = await openPage(scout.context, shared.worker.url, `/quiz/${SESSION}`);
  const key = await scoutAnswers(scoutPage);
  await scout.context.close();
  assert.ok(key.length >= 4, `a quiz of several questions (${key.length})`);
  const right = key.findIndex(canAnswerRight);
  const wrong = key.findIndex((q, i) => i !== right);
  assert.ok(right >= 0, 'some question can be answered right for sure');

  const { context, apiCalls } = await phone();
  const page = await openPage(context, shared.worker.url, `/quiz/${SESSION}`);
  const first = [];
  for (let i = 0; i < key.length; i++) {
    const q = await current(page);
    assert.equal(q.key, key[i].key, 'the same seed gives the same questions');
    assert.equal(q.progress, `Question ${i + 1} of ${key.length}`);
    first.push(q.key);

    if (i === 0) {
      // The reason comes before the reveal: without it, nothing is shown.
      if (q.kind === 'numeric') await page.fill('#quiz-answer', '3');
      if (q.kind === 'choice') await page.locator('label[for="quiz-option-1"]').click();
      if (q.kind !== 'explain') {
        await page.click('#quiz-reveal');
        await page.locator('#quiz-message', { hasText: 'why' }).waitFor();
        assert.equal(await page.locator('#quiz-feedback').count(), 0, 'no reveal before the reason');
      }
    }
    if (q.kind === 'numeric') {
      assert.equal(await page.getAttribute('#quiz-answer', 'inputmode'), 'decimal', 'a numeric keypad');
      await page.fill('#quiz-answer', i === wrong ? '-987654321' : key[i].expected.split(' ')[0]);
    } else if (q.kind === 'choice') {
      const labels = page.locator('fieldset.options label');
      const texts = (await labels.allTextContents()).map((t) => t.trim());
      const pick = i === wrong ? texts.findIndex((t) => t !== key[i].expected) : texts.indexOf(key[i].expected);
      assert.ok(pick >= 0, `option "${key[i].expected}" is offered`);
      const box = await labels.nth(pick).boundingBox();
      assert.ok(box.height >= 44, `a touch-sized option (${box.height}px)`);
      await labels.nth(pick).click();
    } else {
      await page.fill('#quiz-answer', 'My own explanation of it.');
    }
    if (q.kind !== 'explain') await page.fill('#quiz-why', 'because of how the chapter computes it');

    if (i === 1) {
      // A reload before the reveal keeps what was written.
      const written = q.kind === 'choice' ? null : await page.inputValue('#quiz-answer');
      await page.waitForFunction(async ({ k }) => {
        const db = await new Promise((ok, ko) => { const r = indexedDB.open('bookside'); r.onsuccess = () => ok(r.result); r.onerror = ko; });
        const value = await new Promise((ok) => { const r = db.transaction('prefs').objectStore('prefs').get(k); r.onsuccess = () => ok(r.result); });
        db.close();
        return typeof value === 'string' && JSON.parse(value).answers?.[1]?.explanation === 'because of how the chapter computes it';
      }, { k: `quiz:${SESSION}` });
      await page.reload();
      const again = await current(page);
      assert.equal(again.key, q.key, 'the reload resumes at the same question');
      if (written !== null) assert.equal(await page.inputValue('#quiz-answer'), written);
      else assert.equal(await page.locator('input[name="quiz-option"]:checked').count(), 1);
      assert.equal(await page.inputValue('#quiz-why'), 'because of how the chapter computes it');
    }

    await page.click('#quiz-reveal');
    await page.locator('#quiz-feedback').waitFor();
    assert.equal((await page.locator('#quiz-expected').textContent()).trim(), key[i].expected);
    if (q.kind === 'explain') await page.click(i === wrong ? '#quiz-mark-wrong' : '#quiz-mark-right');
    const verdict = (await page.locator('#quiz-verdict').textContent()).trim();
    if (i === right) assert.equal(verdict, 'Right.', `question ${i + 1} answered right`);
    if (i === wrong) assert.equal(verdict, 'Not this time.', `question ${i + 1} answered wrong`);
    assert.equal(await horizontalOverflow(page), 0, 'no sideways scroll on a question');
    for (const id of ['#quiz-next']) {
      const box = await page.locator(id).boundingBox();
      assert.ok(box.height >= 44 && box.width >= 44, `${id} is touch-sized`);
    }
    await nextQuestion(page, q.key);
  }

  // The score, and where to re-read.
  const heading = (await page.locator('#quiz-score-heading').textContent()).trim();
  const [, got, total] = heading.match(/^(\d+) of (\d+) right$/);
  assert.equal(Number(total), key.length);
  assert.ok(Number(got) >= 1 && Number(got) < key.length, `one right and one wrong at least: ${heading}`);
  const links = page.locator('#quiz-reread a');
  assert.ok((await links.count()) >= 1, 'something to re-read');
  const href = await links.first().getAttribute('href');
  assert.match(href, /^\/book\/[\w-]+#[\w-]+$/);
  assert.equal(await horizontalOverflow(page), 0, 'no sideways scroll on the score');

  // The re-read link lands on a real section of the book.
  await links.first().click();
  await page.locator(`[id="${href.split('#')[1]}"]`).waitFor();
  await page.goBack();

  // Every question but one was answered right: a pass, so the session is logged DONE with the
  // score as its Done-when, and it reaches the log and the export in the canonical form.
  assert.match(await page.locator('#quiz-verdict-final').textContent(), /^Passed/, heading);
  const title = (await page.locator('#quiz-title').textContent()).replace(`Quiz — ${SESSION} `, '');
  assert.equal(await page.locator('#entry-date').inputValue(), '2026-07-22');
  assert.equal(await page.locator('#entry-status').inputValue(), 'DONE');
  assert.equal(await page.locator('#entry-done-when').inputValue(), `quiz ${got}/${total} ✅`);
  assert.equal(await page.locator('#entry-sticking').inputValue(), 'none');
  const next = await page.locator('#entry-next').inputValue();
  assert.match(next, /^S\d+\.\d+ — \S/, 'Next names the session locate picks');
  assert.equal(await horizontalOverflow(page), 0, 'no sideways scroll on the entry form');
  await page.fill('#entry-built', 'read the chapter, then its quiz');
  await page.click('#entry-save');
  await page.locator('#quiz-logged').waitFor();
  await page.goto(new URL('/log', shared.worker.url).href);
  await page.locator('#entries article', { hasText: `quiz ${got}/${total}` }).waitFor();
  assert.equal(
    await exportFile(page, 'log'),
    [
      `### 2026-07-22 — ${SESSION} (${title}) — DONE`,
      '- **Built**: read the chapter, then its quiz',
      `- **Done-when**: quiz ${got}/${total} ✅`,
      '- **Sticking point**: none',
      `- **Next**: ${next}`,
      '',
    ].join('\n'),
  );
  // Back to the quiz: the finished attempt is still there, and knows it is logged.
  await page.goto(new URL(`/quiz/${SESSION}`, shared.worker.url).href);
  await page.locator('#quiz-logged').waitFor();
  assert.equal(await page.locator('#entry-save').count(), 0, 'no second entry for the same attempt');

  // A second attempt: none of the first attempt's questions.
  await page.click('#quiz-again');
  const second = [];
  for (;;) {
    const q = await current(page);
    second.push(q.key);
    await answerAnything(page, q);
    const last = (await page.locator('#quiz-next').textContent()).includes('score');
    await nextQuestion(page, q.key);
    if (last) break;
  }
  assert.equal(second.length, first.length);
  assert.deepEqual(second.filter((k) => first.includes(k)), [], 'the next attempt asks different questions');
  assert.deepEqual(apiCalls, [], 'no worker API was used');
  assert.deepEqual(page.errors, []);

  // Review: nothing is due the day of the quiz; the next day the misses are.
  await page.goto(new URL('/review', shared.worker.url).href);
  assert.equal(await page.locator('#review-due-count').getAttribute('data-count'), '0');
  await context.clock.setFixedTime(NEXT_DAY);
  await page.reload();
  const count = page.locator('#review-due-count');
  await count.waitFor();
  const before = Number(await count.getAttribute('data-count'));
  assert.ok(before >= 1, 'the missed questions are due the next day');
  const rated = await page.locator('#review-card').getAttribute('data-id');
  assert.ok([...first, ...second].some((k) => rated === `q:${k}`), `a missed quiz question is due (${rated})`);
  await page.click('#review-show');
  await page.locator('#review-answer').waitFor();
  assert.equal(await horizontalOverflow(page), 0, 'no sideways scroll in review');
  await page.click('#review-rate-good');
  await page.waitForFunction((n) => document.querySelector('#review-due-count')?.dataset.count === String(n), before - 1);
  await page.reload();
  await count.waitFor();
  assert.equal(Number(await count.getAttribute('data-count')), before - 1, 'the rating is kept across a reload');
  if (before > 1) assert.notEqual(await page.locator('#review-card').getAttribute('data-id'), rated, 'the rated item is off today\'s list');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Phase 0 is skipped only through its quiz, and the profile records it', async () => {
  // A scout reveals the answers of the first Phase 0 attempt.
  const scout = await phone();
  const scoutPage = await openPage(scout.context, shared.worker.url, '/profile');
  await scoutPage.click('#phase0-start');
  const key = await scoutAnswers(scoutPage);
  await scoutPage.locator('#phase0-decision', { hasText: 'stays in your path' }).waitFor();
  assert.equal(await scoutPage.locator('#phase0-skipped').count(), 0, 'a failed quiz records no skip');
  await scoutPage.reload();
  await scoutPage.locator('#phase0-decision', { hasText: 'stays in your path' }).waitFor();
  await scout.context.close();
  // Every Phase 0 topic is asked (S0.1 to S0.4 name seven).
  assert.equal(new Set(key.map((q) => q.key.split('/')[0])).size, 7);

  const { context } = await phone();
  const page = await openPage(context, shared.worker.url, '/profile');
  assert.equal(await page.locator('#phase0-skipped').count(), 0);
  await page.click('#phase0-start');
  for (const want of key) {
    const q = await current(page);
    assert.equal(q.key, want.key);
    if (q.kind === 'numeric') await page.fill('#quiz-answer', want.expected.split(' ')[0]);
    if (q.kind === 'choice') {
      const labels = page.locator('fieldset.options label');
      await labels.nth((await labels.allTextContents()).map((t) => t.trim()).indexOf(want.expected)).click();
    }
    if (q.kind === 'explain') await page.fill('#quiz-answer', 'What the chapter says, in my words.');
    else await page.fill('#quiz-why', 'from the chapter');
    await page.click('#quiz-reveal');
    await page.locator('#quiz-feedback').waitFor();
    if (q.kind === 'explain') await page.click('#quiz-mark-right');
    await nextQuestion(page, q.key);
  }
  await page.locator('#phase0-skipped').waitFor();
  // The outcome stays on the page once the profile is saved, and after a reload.
  const passed = `Passed with ${key.length} of ${key.length}: Phase 0 is skipped.`;
  await page.locator('#phase0-decision', { hasText: passed }).waitFor();
  await page.reload();
  await page.locator('#phase0-skipped').waitFor();
  await page.locator('#phase0-decision', { hasText: passed }).waitFor();
  assert.match(await exportFile(page, 'profile'), /^- \*\*Phase 0 skipped\*\*: yes$/m);
  assert.deepEqual(page.errors, []);
  await context.close();
});
