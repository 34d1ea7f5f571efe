// Shared set-up for the browser journeys: the real `bookside serve` on a free port, and Debian's
// headless Chromium driven by playwright-core. Paths come from `cargo xtask test`.
import { spawn } from 'node:child_process';
import { mkdtempSync, cpSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const env = {
  bin: required('BOOKSIDE_BIN'),
  site: required('BOOKSIDE_SITE'),
  book: required('BOOKSIDE_BOOK'),
};

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests through \`cargo xtask test\``);
  return value;
}

/// The reference artifacts of a milestone (`m02`, `good` or `short`), for our own tests only.
export function milestoneFixture(milestone, kind) {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'milestones', milestone, kind);
}

/// A temporary copy of the sample book (the reader's clone), so a journey can write artifacts.
export function copyBook() {
  const dir = mkdtempSync(join(tmpdir(), 'bookside-book-'));
  cpSync(env.book, dir, {
    recursive: true,
    filter: (src) => !/[\\/](\.venv|checkpoints|__pycache__|\.pytest_cache)([\\/]|$)/.test(src),
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/// Starts the real worker and resolves once it prints the URL it serves.
export async function startWorker({ book = env.book, site = env.site, port = 0, args = [] } = {}) {
  const child = spawn(env.bin, ['serve', '--book', book, '--site', site, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker printed no URL in 20 s:\n${output}`)), 20_000);
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(/at (http:\/\/127\.0\.0\.1:\d+\/\S*)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code} before serving:\n${output}`)));
  });
  const origin = new URL(url).origin;
  return {
    url,
    origin,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        // A child killed by a signal keeps exitCode null: check both, or a second stop hangs.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/// A worker on its own temporary clone.
export async function workerOnClone() {
  const clone = copyBook();
  const worker = await startWorker({ book: clone.dir });
  return {
    clone,
    worker,
    stop: async () => {
      await worker.stop();
      clone.remove();
    },
  };
}

/// Opens the URL the worker printed (with its #token) and checks the pairing took.
export async function pair(context, worker) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err.message));
  assert.match(worker.url, /#token=[0-9a-f]{16,}/, 'the worker prints its pairing URL with the token in the fragment');
  await page.goto(worker.url);
  await appReady(page);
  await page.locator('#worker-state', { hasText: 'Worker: paired' }).waitFor({ timeout: 15_000 });
  // The token leaves the address bar as soon as it is read.
  assert.doesNotMatch(page.url(), /token/);
  return page;
}

/// Debian's Chromium with the flags that work on this closed network, as root.
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const viewports = {
  phone: { width: 360, height: 740 },
  desktop: { width: 1280, height: 800 },
};

/// A fresh browser context (its own storage) at a viewport, with uncaught page errors collected.
export async function newContext(browser, { viewport = viewports.desktop, permissions = [] } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  if (permissions.length) await context.grantPermissions(permissions);
  return context;
}

/// Opens `path` and waits until the WASM app has mounted (see `appReady`).
export async function openPage(context, base, path = '/') {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err.message));
  await page.goto(new URL(path, base).href);
  await appReady(page);
  return page;
}

/// Waits until the page is ready: the app's top bar is there (and no pre-rendered copy is left
/// waiting for it), or, on a chapter page, its own small script has filled in what the browser
/// knows (`data-chapter-ready`, app/src/bin/chapter.rs).
export async function appReady(page) {
  await page.waitForFunction(
    () => document.documentElement.hasAttribute('data-chapter-ready') || (!document.getElementById('prerender') && document.querySelector('header.topbar')),
    null,
    { timeout: 30_000 },
  );
}

/// Pastes `text` into the log page's import box and waits for the merge preview.
export async function importText(page, text) {
  await page.fill('#import-paste', text);
  await page.click('#import-paste-preview');
  await page.locator('#merge-preview').waitFor();
}

/// The page's width is the viewport's: nothing scrolls sideways.
export async function horizontalOverflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

const EXPORTED_AS = { log: 'PROGRESS.md', profile: 'PROFILE.md' };

/// Downloads the reader's file from the export button of the log (`log`) or profile (`profile`)
/// page and returns its text; fails unless it is offered under the name the reader keeps it as.
export async function exportFile(page, what) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${what}-download`)]);
  const name = download.suggestedFilename();
  if (name !== EXPORTED_AS[what]) throw new Error(`the ${what} export is offered as ${name}, not ${EXPORTED_AS[what]}`);
  return readFileSync(await download.path(), 'utf8');
}

/// A journey file's shared set-up: one Chromium (and, unless `worker: false`, the real worker on
/// the sample book) started before its tests and stopped after them. The returned object's
/// `browser` and `worker` are set once the tests run.
export function sharedSetup({ worker = true } = {}) {
  const shared = { worker: undefined, browser: undefined };
  before(async () => {
    if (worker) shared.worker = await startWorker();
    shared.browser = await launchBrowser();
  });
  after(async () => {
    await shared.browser?.close();
    await shared.worker?.stop();
  });
  return shared;
}
