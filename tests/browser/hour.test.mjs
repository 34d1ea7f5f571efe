// The hour, in a real browser against the real worker on a temporary copy of the sample book:
// pair from the printed URL, start S1.3 from its card, Open, two rungs of the ladder, Verify
// (skip on the fresh clone, pass once a good artifact is dropped in), save the entry and export
// it; hard mode never shows rung 4; a reload mid-Build resumes at the same minute and rung; a
// cancelled Verify leaves no process behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, appendFileSync, existsSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSetup, env, startWorker, newContext, openPage, appReady, viewports, exportFile, milestoneFixture, workerOnClone, pair } from './harness.mjs';

// The reference artifacts of milestone m02 (S1.3), used by our own tests only.
const GOOD_M02 = milestoneFixture('m02', 'good');

const shared = sharedSetup({ worker: false });

/// S1.3's chapter: where its first Read link points.
function s13Chapter() {
  const guide = readFileSync(join(env.book, 'src/session-guide.md'), 'utf8');
  const card = guide.split(/^### /m).find((block) => block.startsWith('S1.3'));
  const [, file] = card.match(/\*\*Read\*\*:\s*\[[^\]]*\]\(([^)#]+)\.md#/);
  return `/book/${file}`;
}

async function goTo(page, base, path) {
  await page.goto(new URL(path, base).href);
  await appReady(page);
}

async function phase(page, name) {
  await page.locator(`#timeline .step[data-phase="${name}"] button`).click();
  await page.locator(`#hour[data-phase="${name}"]`).waitFor();
}

async function settled(page) {
  await page.locator('#hour[data-pending="false"]').waitFor();
}

async function verify(page) {
  const before = await page.evaluate(() => document.querySelector('#verify-outcome')?.dataset.run ?? null);
  await page.click('#verify-run');
  const outcome = page.locator('#verify-outcome');
  // The first run creates the clone's virtual environment: allow for it.
  await page.waitForFunction(
    (before) => (document.querySelector('#verify-outcome')?.dataset.run ?? null) !== before && !document.querySelector('#verify-progress'),
    before,
    { timeout: 180_000, polling: 200 },
  );
  return { className: await outcome.getAttribute('class'), text: await outcome.textContent() };
}

test('the journey: pair, start S1.3 from its card, two rungs, Verify skip then pass, log, export', async () => {
  const { clone, worker, stop } = await workerOnClone();
  const context = await newContext(shared.browser);
  try {
    const page = await pair(context, worker);

    await goTo(page, worker.origin, s13Chapter());
    const card = page.locator('section.card[data-card="S1.3"]');
    await card.getByRole('link', { name: /Start session S1\.3/ }).click();
    await page.waitForURL((url) => url.pathname === '/session/S1.3');
    await page.click('#start-hour');

    // Open: the goal, the Done-when restated; no retrieval check on an empty log.
    await page.locator('#hour[data-phase="open"]').waitFor();
    assert.match(await page.locator('#panel-goal').textContent(), /KV heads/);
    assert.equal(await page.locator('#done-when-command').textContent(), 'uv run pytest tests/milestones/test_m02_kv_budget.py');
    assert.equal(await page.locator('#panel-retrieval').count(), 0);
    assert.equal(await page.locator('#elapsed').getAttribute('data-minute'), '0');
    assert.deepEqual(await page.locator('#timeline .step').evaluateAll((els) => els.map((e) => e.dataset.phase)), ['open', 'read', 'build', 'verify', 'log']);

    // Read: links into the chapter's sections.
    await page.click('#phase-next');
    await page.locator('#hour[data-phase="read"]').waitFor();
    const links = await page.locator('#panel-read a').evaluateAll((els) => els.map((a) => a.getAttribute('href')));
    assert.ok(links.includes('/book/kv-cache#what-the-cache-stores'), `read links: ${links}`);

    // Build: one rung per request.
    await page.click('#phase-next');
    await page.locator('#hour[data-phase="build"]').waitFor();
    assert.equal(await page.locator('#hint-rung').count(), 0);
    await page.click('#hint-next');
    await page.locator('#hint-rung[data-rung="1"]').waitFor();
    assert.match(await page.locator('#hint-rung').textContent(), /^Rung 1 — Point: the formula is in/);
    await page.click('#hint-next');
    await page.locator('#hint-rung[data-rung="2"]').waitFor();
    assert.match(await page.locator('#hint-rung').textContent(), /^Rung 2 — Ask: did you compute/);
    assert.equal(await page.locator('#hint-rungs .rung').count(), 2);

    // Verify on the fresh clone: skip, naming the session.
    await page.click('#phase-next');
    await page.locator('#hour[data-phase="verify"]').waitFor();
    let result = await verify(page);
    assert.match(result.className, /outcome-skip/);
    assert.match(result.text, /run session S1\.3 \(KV-cache budget\) to create checkpoints\/myllm\/kv_budget\.json/);
    assert.match(result.text, /verified by the worker/);
    assert.match(await page.locator('#verify-output').textContent(), /test_m02_kv_budget/);

    // A good artifact in the clone's workspace: Verify passes.
    mkdirSync(join(clone.dir, 'checkpoints/myllm'), { recursive: true });
    cpSync(GOOD_M02, join(clone.dir, 'checkpoints/myllm'), { recursive: true });
    result = await verify(page);
    assert.match(result.className, /outcome-pass/, result.text);

    // Log: pre-filled from the hour.
    await page.click('#phase-next');
    await page.locator('#hour[data-phase="log"]').waitFor();
    const today = await page.evaluate(() => {
      const d = new Date();
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    });
    assert.equal(await page.locator('#entry-date').inputValue(), today);
    assert.equal(await page.locator('#entry-status').inputValue(), 'DONE');
    assert.equal(await page.locator('#entry-done-when').inputValue(), 'test_m02_kv_budget.py ✅');
    assert.equal(await page.locator('#entry-sticking').inputValue(), 'the cache still blows the budget (ladder rung 2)');
    // Next comes from locate: the first card in Guide order not done (Phase 0 was not skipped).
    assert.match(await page.locator('#entry-next').inputValue(), /^S0\.1 — /);
    // The reader finishes it in their own words.
    await page.fill('#entry-built', 'chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512');
    await page.fill('#entry-sticking', 'per-head vs per-layer cache sizing (ladder rung 2)');
    await page.fill('#entry-next', 'S1.4 — dense vs MoE, decided with numbers');
    await page.click('#entry-save');
    await page.locator('#hour-logged').waitFor();

    // The exported file holds the entry in the seed's canonical form, field for field.
    await goTo(page, worker.origin, '/log');
    const exported = await exportFile(page, 'log');
    assert.equal(
      exported,
      [
        `### ${today} — S1.3 (KV-cache budget) — DONE`,
        '- **Built**: chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512',
        '- **Done-when**: test_m02_kv_budget.py ✅',
        '- **Sticking point**: per-head vs per-layer cache sizing (ladder rung 2)',
        '- **Next**: S1.4 — dense vs MoE, decided with numbers',
        '',
      ].join('\n'),
    );

    // The worker's pass is what vouches for the card: verified, not just the log's ✅.
    await goTo(page, worker.origin, '/guide');
    await page.locator('section.card[data-card="S1.3"] .badge', { hasText: 'DONE · verified' }).waitFor();
    // The chapter page (its own small script, not the app) shows the same verified status.
    await goTo(page, worker.origin, s13Chapter());
    assert.equal((await page.locator('section.card[data-card="S1.3"] .badge').textContent()).trim(), 'DONE · verified');

    // Home: where you are, with its reason, one tap to start.
    await goTo(page, worker.origin, '/');
    assert.match(await page.locator('#where-session').textContent(), /^S0\.1 — /);
    assert.match(await page.locator('#where-reason').textContent(), /first session in Guide order/);
    assert.equal(await page.locator('#where-start').getAttribute('href'), '/session/S0.1?start=now');
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await stop();
  }
});

/// Climbs S1.3's first ladder: Hint three times, then "Just show me" (asked, then confirmed).
async function climb(page) {
  for (const rung of ['1', '2', '3']) {
    await page.click('#hint-next');
    await page.locator(`#hint-rung[data-rung="${rung}"]`).waitFor();
  }
  // A plain request at rung 3 does not give the answer line.
  await page.click('#hint-next');
  await page.locator('#hint-note').waitFor();
  assert.equal(await page.locator('#hint-rung').getAttribute('data-rung'), '3');
  // "Just show me" asks first; nothing is shown until the reader says yes.
  await page.click('#hint-show');
  await page.locator('#hint-show-confirm').waitFor();
  assert.equal(await page.locator('#hint-rung').getAttribute('data-rung'), '3');
  await page.click('#hint-show-confirm');
}

test('hard mode never shows rung 4, even on "just show me"; without it rung 4 comes after asking twice', async () => {
  const worker = await startWorker();
  try {
    // Without hard mode: rung 4 appears, only after the confirmation.
    let context = await newContext(shared.browser, { viewport: viewports.phone });
    let page = await openPage(context, worker.url, '/session/S1.3?start=now');
    await page.locator('#hour').waitFor();
    await phase(page, 'build');
    await climb(page);
    await page.locator('#hint-rung[data-rung="4"]').waitFor();
    assert.match(await page.locator('#hint-rung').textContent(), /head_dim = d_model \/\/ n_heads/);
    await context.close();

    // Hard mode on in the profile: the ladder stops at 3 whatever is asked.
    context = await newContext(shared.browser, { viewport: viewports.phone });
    page = await openPage(context, worker.url, '/profile');
    await page.locator('#onboarding').waitFor();
    await page.getByLabel('Hard mode: never show rung 4').check();
    await page.click('#profile-save');
    await page.getByText('Profile saved.').waitFor();
    await goTo(page, worker.origin, '/session/S1.3?start=now');
    await page.locator('#hour').waitFor();
    await phase(page, 'build');
    await climb(page);
    await page.locator('#hint-note', { hasText: 'stops the ladder at rung 3' }).waitFor();
    assert.equal(await page.locator('#hint-rung').getAttribute('data-rung'), '3');
    await page.click('#hint-show');
    await page.click('#hint-show-confirm');
    await page.click('#hint-next');
    await settled(page);
    assert.equal(await page.locator('#hint-rung').getAttribute('data-rung'), '3');
    assert.equal(await page.locator('[data-rung="4"]').count(), 0);
    assert.equal(await page.getByText('head_dim = d_model // n_heads').count(), 0);
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await worker.stop();
  }
});

test('a reload in the middle of Build resumes at the same minute and the same rung; nudges come at their times', async () => {
  const worker = await startWorker();
  const context = await newContext(shared.browser);
  try {
    const start = new Date('2026-07-22T09:00:00Z').getTime();
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (err) => page.errors.push(err.message));
    await page.clock.setFixedTime(start);
    await goTo(page, worker.origin, '/session/S1.3');
    await page.click('#start-hour');
    await phase(page, 'build');
    await page.clock.setFixedTime(start + 27 * 60_000 + 20_000);
    await page.locator('#elapsed[data-minute="27"]').waitFor();
    await page.click('#hint-next');
    await page.click('#hint-next');
    await page.locator('#hint-rung[data-rung="2"]').waitFor();
    await settled(page);

    await page.reload();
    await page.locator('#hour[data-phase="build"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('#elapsed').getAttribute('data-minute'), '27');
    assert.equal(await page.locator('#hint-rung').getAttribute('data-rung'), '2');
    assert.equal(await page.locator('#hint-rungs .rung').count(), 2);
    assert.equal(await page.locator('#nudges .nudge').count(), 0);

    // Forty minutes in without the Midpoint: the stop is offered. Fifty: move to Verify.
    await page.clock.setFixedTime(start + 41 * 60_000);
    await page.locator('[data-nudge="midpoint-stop"]').waitFor();
    await page.clock.setFixedTime(start + 50 * 60_000);
    await page.locator('[data-nudge="verify"]').waitFor();
    // The rung is still the one reached: a hint now climbs to 3, not back to 1.
    await page.click('#hint-next');
    await page.locator('#hint-rung[data-rung="3"]').waitFor();

    // This browser is not paired: Verify shows the exact command and takes the outcome by
    // hand, labelled self-reported.
    assert.equal(await page.locator('#worker-state').textContent(), 'Worker: not paired');
    await phase(page, 'verify');
    assert.equal(await page.locator('#verify-run').count(), 0);
    assert.equal(await page.locator('#verify-command').textContent(), 'uv run pytest tests/milestones/test_m02_kv_budget.py');
    await page.click('#self-fail');
    await page.locator('#verify-outcome.outcome-fail', { hasText: 'self-reported' }).waitFor();
    await phase(page, 'log');
    assert.equal(await page.locator('#entry-status').inputValue(), 'PARTIAL');
    assert.equal(await page.locator('#entry-done-when').inputValue(), 'test_m02_kv_budget.py ❌');
    assert.equal(await page.locator('#entry-sticking').inputValue(), 'the cache still blows the budget (ladder rung 3)');
    // The entry is dated by the day the sitting started, whatever the clock says now.
    await page.clock.setFixedTime(start + 26 * 3600_000);
    await page.reload();
    await page.locator('#hour[data-phase="log"]').waitFor({ timeout: 30_000 });
    const startDay = await page.evaluate((t) => {
      const d = new Date(t);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    }, start);
    assert.equal(await page.locator('#entry-date').inputValue(), startDay);
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await worker.stop();
  }
});

test('cancelling a running Verify: the worker reports it cancelled and no process is left; the hour logs PARTIAL', async () => {
  const { clone, worker, stop } = await workerOnClone();
  // A slow milestone run: the clone's conftest records pytest's pid, then waits.
  const pidFile = join(clone.dir, 'slow-pytest.pid');
  appendFileSync(
    join(clone.dir, 'tests/milestones/conftest.py'),
    `\nimport os as _os, time as _time\nopen(${JSON.stringify(pidFile)}, "w").write(str(_os.getpid()))\n_time.sleep(300)\n`,
  );
  const context = await newContext(shared.browser);
  try {
    const page = await pair(context, worker);
    await goTo(page, worker.origin, '/session/S1.3?start=now');
    await page.locator('#hour').waitFor();
    await phase(page, 'verify');
    await page.click('#verify-run');
    await page.locator('#verify-progress').waitFor();
    await page.locator('#verify-cancel').waitFor();
    // The file exists a moment before its pid is in it: wait for the pid itself.
    const written = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '');
    const deadline = Date.now() + 180_000;
    while (!written() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.ok(written(), 'pytest started and wrote its pid');
    const pid = Number(written());
    assert.ok(alive(pid), `pytest ${pid} is running`);

    await page.click('#verify-cancel');
    const outcome = page.locator('#verify-outcome.outcome-cancelled');
    await outcome.waitFor({ timeout: 15_000 });
    assert.match(await outcome.textContent(), /Cancelled/);
    assert.equal(await page.locator('#verify-progress').count(), 0);

    // The worker's own record of the run says cancelled.
    const run = await page.locator('#verify-outcome').getAttribute('data-run');
    const token = new URL(worker.url).hash.replace('#token=', '');
    const snapshot = await (await fetch(`${worker.origin}/api/runs/${run}`, { headers: { 'X-Bookside-Token': token } })).json();
    assert.equal(snapshot.state, 'finished');
    assert.equal(snapshot.result.end, 'cancelled');
    assert.equal(snapshot.result.outcome, 'error');
    // And the process is gone.
    const gone = Date.now() + 5_000;
    while (alive(pid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!alive(pid), `pytest ${pid} survived the cancel`);

    // The hour ends red: the entry is PARTIAL, resumed at the Midpoint next time.
    await phase(page, 'log');
    assert.equal(await page.locator('#entry-status').inputValue(), 'PARTIAL');
    assert.equal(await page.locator('#entry-done-when').inputValue(), 'test_m02_kv_budget.py ❌');
    assert.equal(await page.locator('#entry-next').inputValue(), 'S1.3 — resume at the Midpoint');
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await stop();
  }
});

/// Whether a process exists and is not a zombie waiting to be reaped.
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
