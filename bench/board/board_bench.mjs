#!/usr/bin/env node
// How fast the board's pages draw, in headless Chromium:
//   node bench/board/board_bench.mjs --url http://127.0.0.1:PORT/ [--repeat 5] [--chromium PATH]
// against a board (or the mock server) started on bench/board/make_board_bench_logs.mjs's
// output: `--logdir OUT/logs --graph OUT/graph.pbtxt`. Each measurement is a fresh
// page load of #scalars or #graph; the time is from navigation start until the
// app marks the page drawn (document.body.dataset.ready, set once the charts in
// view or the graph layout are on screen). Prints the median and all samples.
// Targets (issue 13): scalars < 1000 ms for 100 runs x 10,000 points, graph <
// 2000 ms for 10,000 nodes.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const a = { url: null, repeat: 5, chromium: '/usr/bin/chromium' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  if (argv[i] === '--url') a.url = argv[i + 1].endsWith('/') ? argv[i + 1] : `${argv[i + 1]}/`;
  else if (argv[i] === '--repeat') a.repeat = Number(argv[i + 1]);
  else if (argv[i] === '--chromium') a.chromium = argv[i + 1];
  else { console.error(`board_bench: unknown argument ${argv[i]}`); process.exit(2); }
}
if (!a.url) { console.error('usage: board_bench.mjs --url URL [--repeat N] [--chromium PATH]'); process.exit(2); }

const pw = path.join(here, '..', '..', 'tools', 'board', 'web', 'node_modules', 'playwright-core', 'index.mjs');
const { chromium } = await import(pathToFileURL(pw).href);
const watchdog = setTimeout(() => { console.error('board_bench: gave up after 300 s'); process.exit(1); }, 300000);
const args = ['--disable-dev-shm-usage', '--no-first-run'];
if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
const browser = await chromium.launch({ executablePath: a.chromium, headless: true, args });
const errors = [];
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  const measure = async (route, i) => {
    await page.goto('about:blank');
    await page.goto(`${a.url}?reload=0&n=${i}#${route}`);
    await page.waitForSelector(`body[data-ready="${route}"]`, { timeout: 60000 });
    return page.evaluate(() => ({ ms: Number(document.body.dataset.readyMs), view: document.getElementById('view').dataset }));
  };
  for (const [route, target, what] of [['scalars', 1000, () => page.evaluate(() => {
    const c = document.querySelector('[data-chart-tag]');
    const rows = c ? c.querySelectorAll('tr[data-run]') : [];
    return `${document.querySelectorAll('[data-chart-tag]').length} chart(s), first with ${rows.length} runs x ${rows[0]?.dataset.points} points`;
  })], ['graph', 2000, () => page.evaluate(() => {
    const v = document.getElementById('view').dataset;
    return `${document.querySelector('.legend-title')?.textContent}; ${v.visibleItems} items laid out in ${v.layoutMs} ms (model ${v.modelMs} ms)`;
  })]]) {
    await measure(route, 0); // warm-up: server caches, browser JIT
    const samples = [];
    for (let i = 1; i <= a.repeat; i++) samples.push((await measure(route, i)).ms);
    const m = median(samples);
    console.log(`${route}: median ${m} ms (target < ${target} ms, ${m < target ? 'met' : 'NOT met'}); samples ${samples.join(', ')}; ${await what()}`);
  }
  // Opening boxes on the graph page: each click lays out again.
  const opened = [];
  for (let i = 0; i < 3; i++) {
    const box = page.locator('svg [data-expanded="false"]').first();
    if (!(await box.count())) break;
    const label = await box.evaluate((e) => e.dataset.scopeName || e.dataset.groupId);
    const t0 = Date.now();
    await box.click();
    await page.waitForFunction((l) => [...document.querySelectorAll('svg [data-expanded="true"]')].some((e) => (e.dataset.scopeName || e.dataset.groupId) === l), label);
    const v = await page.evaluate(() => document.getElementById('view').dataset);
    opened.push(`${label}: ${Date.now() - t0} ms click to drawn, ${v.visibleItems} items, layout ${v.layoutMs} ms`);
  }
  console.log(`graph, opening boxes: ${opened.join('; ')}`);
} finally {
  await browser.close();
  clearTimeout(watchdog);
}
if (errors.length) { console.log(`console errors: ${errors.slice(0, 5).join(' | ')}`); process.exit(1); }
