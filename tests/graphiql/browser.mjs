// Drives Debian's Chromium with playwright-core through the GraphiQL page:
// every asset must come from the expected base with status 200 (nothing from
// another host), GraphiQL must render its editor; with --query, the operation
// is typed into the editor, run with the execute button, and --expect must
// appear in the result pane. A screenshot is saved either way.
//
// node browser.mjs --url URL --assets PREFIX --screenshot FILE
//                  [--query TEXT --expect TEXT] [--timeout MS]
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const timeout = Number(args.timeout || 60000);
const files = ['graphiql.css', 'yoga-graphiql.umd.js',
  'monacoeditorwork/editor.worker.bundle.js',
  'monacoeditorwork/json.worker.bundle.js',
  'monacoeditorwork/graphql.worker..bundle.js'];

function fail(msg) {
  console.error(`FAIL: ${msg}`);
  process.exitCode = 1;
}

const profile = mkdtempSync(join(tmpdir(), 'gql-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = context.pages()[0] || await context.newPage();
  const origin = new URL(args.url).origin;
  const assets = new URL(args.assets, args.url).href;
  const seen = new Map();
  const foreign = [];
  page.on('response', (res) => {
    const u = res.url();
    if (u.startsWith(assets)) seen.set(u.slice(assets.length), res.status());
  });
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith('blob:') && !u.startsWith('data:') &&
        !u.startsWith(origin + '/') && !u.startsWith(assets))
      foreign.push(u);
  });
  page.on('console', (m) => console.log(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console.log(`pageerror: ${e.message}`));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(args.url, { waitUntil: 'load', timeout });
  await page.waitForSelector('.graphiql-container', { timeout });
  await page.waitForSelector('.graphiql-query-editor .monaco-editor', { timeout });
  // The workers are fetched before GraphiQL renders: all files are in.
  for (const f of files) {
    if (!seen.has(f)) fail(`${f} was not loaded from ${assets}`);
    else if (seen.get(f) !== 200) fail(`${f}: HTTP ${seen.get(f)}`);
  }
  if (foreign.length) fail(`requests outside the server: ${foreign.join(', ')}`);
  if (args.query) {
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // insertText types the text as one input (Monaco's auto-closing of
    // brackets would double them when typed key by key).
    await page.keyboard.insertText(args.query);
    await page.locator('.graphiql-execute-button').first().click();
    const pane = page.locator('.graphiql-response');
    await pane.filter({ hasText: args.expect }).first()
      .waitFor({ timeout });
    console.log(`result pane: ${(await pane.first().innerText()).replace(/\s+/g, ' ').slice(0, 200)}`);
  } else {
    // Let Monaco paint its first lines.
    await page.waitForTimeout(1000);
  }
  await page.screenshot({ path: args.screenshot, fullPage: false });
  console.log(`screenshot: ${args.screenshot}`);
  console.log(`assets: ${[...seen.entries()].map(([f, s]) => `${f} ${s}`).join(', ')}`);
} catch (e) {
  fail(e.message);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
if (!process.exitCode) console.log('graphiql browser: 1 passed, 0 failed');
