#!/usr/bin/env node
// Drives a running `flowvm board` (or the mock server) in headless Chromium
// and checks what a person would see against the event files themselves:
//
//   node tests/board/board_browser_test.mjs --url http://127.0.0.1:PORT/ \
//        --logdir DIR --artifacts DIR [--chromium /usr/bin/chromium] [--timeout-s 120]
//
// The expected scalar points come from parsing DIR's event files here, in JS
// (TFRecord framing + a minimal protobuf decode), not from the server. Checks:
// each scalar tag's chart has the right number of points per run and the last
// value matches; a name scope of the graph expands and shows a node inside it,
// and search finds a node; the trace shows a Send->Recv link; histograms and
// images render when the logs have them; no console error or page error on
// any page. One line per check; exit status 1 on any failure, 2 on bad usage.
// Screenshots of every page go to --artifacts.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeFields, findRuns, readRunEvents } from '../../tools/board/web/dev/tfevents.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.join(here, '..', '..', 'tools', 'board', 'web');

function parseArgs(argv) {
  const a = { url: null, logdir: null, artifacts: null, chromium: '/usr/bin/chromium', timeoutS: 120 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) usage(`missing value for ${k}`);
    if (k === '--url') a.url = v.endsWith('/') ? v : `${v}/`;
    else if (k === '--logdir') a.logdir = v;
    else if (k === '--artifacts') a.artifacts = v;
    else if (k === '--chromium') a.chromium = v;
    else if (k === '--timeout-s') a.timeoutS = Number(v);
    else usage(`unknown argument ${k}`);
  }
  if (!a.url || !a.logdir || !a.artifacts) usage('--url, --logdir and --artifacts are required');
  return a;
}

function usage(why) {
  console.error(`board_browser_test: ${why}\nusage: board_browser_test.mjs --url URL --logdir DIR --artifacts DIR [--chromium PATH] [--timeout-s N]`);
  process.exit(2);
}

const args = parseArgs(process.argv.slice(2));
const results = [];
function check(name, ok, detail = '') {
  results.push(ok);
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}
function skip(name, why) { console.log(`SKIP ${name}: ${why}`); }

// ---- what the event files hold
function expectations(logdir) {
  const runs = [];
  for (const { name, files } of findRuns(logdir)) {
    const { events, problems } = readRunEvents(files);
    const scalars = new Map(), histos = new Map(), images = new Map();
    let graphNodes = null;
    const runMetadataTags = new Set();
    for (const e of events) {
      if (e.graph_def) {
        graphNodes = decodeFields(e.graph_def).filter((f) => f.field === 1 && f.wire === 2).map((f) => {
          const n = { name: '', op: '' };
          for (const g of decodeFields(f.value)) {
            if (g.field === 1 && g.wire === 2) n.name = g.value.toString('utf8');
            if (g.field === 2 && g.wire === 2) n.op = g.value.toString('utf8');
          }
          return n;
        });
      }
      if (e.tagged_run_metadata) runMetadataTags.add(e.tagged_run_metadata.tag);
      for (const v of e.summary || []) {
        const add = (m, x) => { if (!m.has(v.tag)) m.set(v.tag, []); m.get(v.tag).push(x); };
        if (v.simple_value !== undefined) add(scalars, { step: e.step, value: v.simple_value });
        else if (v.histo) add(histos, e.step);
        else if (v.image) add(images, e.step);
      }
    }
    for (const pts of scalars.values()) pts.sort((a, b) => a.step - b.step); // stable: file order within a step
    runs.push({ name, scalars, histos, images, graphNodes, runMetadataTags, problems });
  }
  return runs;
}

function sameFloat(shown, expected) {
  if (shown === 'non-finite') return !Number.isFinite(expected); // NaN and ±Inf arrive as null
  const v = Number(shown);
  return Math.fround(v) === Math.fround(expected) || Math.abs(v - expected) <= 1e-6 * Math.max(1, Math.abs(expected));
}

// ---- the browser
async function loadPlaywright() {
  const p = path.join(webDir, 'node_modules', 'playwright-core', 'index.mjs');
  if (!fs.existsSync(p)) {
    console.error(`board_browser_test: playwright-core is not installed in ${path.dirname(path.dirname(p))}; run scripts/setup.sh (or: npm ci --prefix tools/board/web)`);
    process.exit(2);
  }
  return import(pathToFileURL(p).href);
}

async function main() {
  const expected = expectations(args.logdir);
  for (const r of expected) for (const p of r.problems) console.log(`note: ${r.name}: ${p}`);
  fs.mkdirSync(args.artifacts, { recursive: true });
  for (const f of fs.readdirSync(args.artifacts)) if (f.endsWith('.png')) fs.rmSync(path.join(args.artifacts, f));
  const { chromium } = await loadPlaywright();
  const launchArgs = ['--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'];
  if (process.getuid && process.getuid() === 0) launchArgs.push('--no-sandbox');
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: launchArgs, timeout: 30000 });
  const problems = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error on ${page.url()}: ${msg.text()}`); });
    page.on('pageerror', (err) => problems.push(`page error on ${page.url()}: ${err.message}`));
    const open = async (route) => {
      // A fresh load per page, so each route is also checked starting cold.
      await page.goto(`${args.url}?reload=0#${route}`, { waitUntil: 'load' });
      await page.waitForSelector(`body[data-ready="${route}"]`, { timeout: 20000 });
    };
    const shot = async (name) => page.screenshot({ path: path.join(args.artifacts, `${name}.png`), fullPage: false });

    // Scalars.
    await open('scalars');
    const tags = new Map();
    for (const r of expected) for (const [tag, pts] of r.scalars) { if (!tags.has(tag)) tags.set(tag, []); tags.get(tag).push([r.name, pts]); }
    if (!tags.size) skip('scalars', 'the logs hold no scalar summaries');
    for (const [tag, perRun] of [...tags].sort()) {
      const card = page.locator(`[data-chart-tag="${cssString(tag)}"]`);
      try {
        await card.scrollIntoViewIfNeeded();
        await page.locator(`[data-chart-tag="${cssString(tag)}"][data-rendered]`).waitFor();
      } catch (err) { check(`scalars ${tag}: chart drawn`, false, err.message.split('\n')[0]); continue; }
      for (const [run, pts] of perRun) {
        const row = card.locator(`tr[data-run="${cssString(run)}"]`);
        if (!(await row.count())) { check(`scalars ${tag} ${run}: run in chart`, false, 'no row for this run'); continue; }
        const got = await row.evaluate((el) => ({ ...el.dataset }));
        const want = Math.min(pts.length, 1000);
        const last = pts[pts.length - 1];
        check(`scalars ${tag} ${run}: ${want} points`, Number(got.points) === want && Number(got.seen) === pts.length,
          `chart has ${got.points} of ${got.seen} seen, event files have ${pts.length}`);
        check(`scalars ${tag} ${run}: last value`, Number(got.lastStep) === last.step && sameFloat(got.lastValue, last.value),
          `chart step ${got.lastStep} value ${got.lastValue}, event files step ${last.step} value ${last.value}`);
      }
    }
    // Zoom: dragging over the middle of a chart refetches that step range
    // (fewer points), double-click brings the whole run back.
    const zoomable = [...tags].flatMap(([tag, perRun]) => perRun.map(([run, pts]) => [tag, run, pts])).find(([, , pts]) => pts.length >= 10);
    if (zoomable) {
      const [tag, run, pts] = zoomable;
      const card = `[data-chart-tag="${cssString(tag)}"]`;
      const points = () => page.locator(`${card} tr[data-run="${cssString(run)}"]`).getAttribute('data-points').then(Number);
      try {
        const over = page.locator(`${card} .u-over`);
        await over.scrollIntoViewIfNeeded();
        const box = await over.boundingBox();
        const full = await points();
        await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
        await page.mouse.up();
        await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel)?.dataset.points) < n,
          [`${card} tr[data-run="${cssString(run)}"]`, full], { timeout: 10000 });
        const zoomed = await points();
        await over.dblclick();
        await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel)?.dataset.points) === n,
          [`${card} tr[data-run="${cssString(run)}"]`, full], { timeout: 10000 });
        check(`scalars ${tag} ${run}: zoom refetches a step range, double-click resets`, true, `${full} -> ${zoomed} -> ${await points()} points`);
      } catch (err) { check(`scalars ${tag} ${run}: zoom refetches a step range, double-click resets`, false, err.message.split('\n')[0]); }
    }
    await shot('scalars');

    // Graph.
    const withGraph = expected.find((r) => r.graphNodes && r.graphNodes.some((n) => n.name.includes('/')));
    if (!withGraph) skip('graph', 'no run has a graph with name scopes');
    else {
      await page.goto(`${args.url}?reload=0#graph`, { waitUntil: 'load' });
      await page.waitForSelector('body[data-ready="graph"]', { timeout: 20000 });
      const select = page.locator('#graph-source');
      if ((await select.inputValue()) !== `run:${withGraph.name}`) {
        await select.selectOption(`run:${withGraph.name}`);
        await page.waitForSelector('.graph-details[data-node], .graph-canvas[data-rendered]');
      }
      await page.locator('.graph-canvas[data-rendered]').waitFor();
      const names = new Set(withGraph.graphNodes.map((n) => n.name));
      // A name scope may sit inside a series or op group box: open groups
      // (a few at most) until a collapsed scope holding nodes is drawn.
      let scopes = [], scope;
      for (let round = 0; round < 4; round++) {
        scopes = await page.locator('svg [data-scope-name][data-expanded="false"]').evaluateAll((els) => els.map((e) => e.dataset.scopeName));
        scope = scopes.find((sc) => withGraph.graphNodes.some((n) => n.name.startsWith(`${sc}/`)));
        if (scope) break;
        const group = page.locator('svg [data-group-id][data-expanded="false"]').first();
        if (!(await group.count())) break;
        const id = await group.getAttribute('data-group-id');
        await group.click();
        await page.locator(`svg [data-group-id="${cssString(id)}"][data-expanded="true"]`).waitFor();
      }
      if (!check('graph: a collapsed name scope is drawn', !!scope, `scopes drawn: ${scopes.slice(0, 8).join(', ') || 'none'}`)) { /* fall through to search */ }
      else {
        await page.locator(`svg [data-scope-name="${cssString(scope)}"][data-expanded="false"]`).first().click();
        await page.locator(`svg [data-scope-name="${cssString(scope)}"][data-expanded="true"]`).waitFor();
        const inside = await page.locator('svg [data-node-name]').evaluateAll((els, sc) => els.map((e) => e.dataset.nodeName).filter((n) => n.startsWith(`${sc}/`)), scope);
        check(`graph: expanding '${scope}' shows a node inside it`, inside.length > 0 && inside.every((n) => names.has(n)),
          inside.length ? `${inside.length} nodes, e.g. ${inside[0]}` : 'no node drawn inside the scope');
        await shot('graph_expanded');
        if (inside.length) {
          await page.locator(`svg [data-node-name="${cssString(inside[0])}"]`).click();
          const want = withGraph.graphNodes.find((n) => n.name === inside[0]);
          const text = await page.locator('.graph-details').innerText();
          check(`graph: clicking '${inside[0]}' shows its op`, text.includes(want.op), `details: ${text.slice(0, 80).replace(/\n/g, ' ')}`);
        }
        await page.locator(`svg [data-scope-name="${cssString(scope)}"][data-expanded="true"] .cluster-header`).click();
        await page.locator(`svg [data-scope-name="${cssString(scope)}"][data-expanded="false"]`).waitFor();
        check(`graph: '${scope}' collapses again`, true);
      }
      // Search for the deepest node name.
      const target = [...withGraph.graphNodes].sort((a, b) => b.name.split('/').length - a.name.split('/').length)[0];
      await page.fill('#graph-search', target.name);
      await page.press('#graph-search', 'Enter');
      try {
        await page.locator(`[data-node-name="${cssString(target.name)}"]`).first().waitFor();
        await page.waitForFunction((n) => document.querySelector('.graph-details')?.dataset.node === n, target.name, { timeout: 10000 });
        check(`graph: search finds '${target.name}'`, true);
      } catch (err) { check(`graph: search finds '${target.name}'`, false, err.message.split('\n')[0]); }
      await shot('graph');
    }

    // Traces.
    const withTrace = expected.find((r) => r.runMetadataTags.size);
    if (!withTrace) skip('traces', 'no run has RunMetadata');
    else {
      await open('traces');
      const tag = [...withTrace.runMetadataTags][0];
      const key = `run:${withTrace.name}\u0000${tag}`;
      if ((await page.locator('#trace-source').inputValue()) !== key) await page.locator('#trace-source').selectOption(key);
      try {
        await page.locator('.flow-link').first().waitFor();
        const links = await page.locator('.flow-link').evaluateAll((els) => els.map((e) => [e.dataset.from, e.dataset.to]));
        const ops = await page.locator('.trace-slice').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.name, e.dataset.op])));
        const good = links.filter(([f, t]) => /Send$/.test(ops[f] || '') && /Recv$/.test(ops[t] || ''));
        check('traces: a Send->Recv link is drawn', good.length > 0,
          good.length ? `${good.length} of ${links.length} links, e.g. ${good[0][0]} -> ${good[0][1]}` : `links: ${JSON.stringify(links.slice(0, 3))}`);
        const lanes = await page.locator('.trace-lane-label').count();
        check('traces: lanes per device and thread are labelled', lanes > 0, `${lanes} lanes`);
      } catch (err) { check('traces: a Send->Recv link is drawn', false, err.message.split('\n')[0]); }
      await shot('traces');
    }

    // Histograms.
    const histRuns = expected.filter((r) => r.histos.size);
    if (!histRuns.length) skip('histograms', 'no histogram summaries');
    else {
      await open('histograms');
      for (const r of histRuns) {
        for (const [tag, steps] of r.histos) {
          const sel = `[data-hist-run="${cssString(r.name)}"][data-hist-tag="${cssString(tag)}"]`;
          try {
            await page.locator(sel).scrollIntoViewIfNeeded();
            await page.locator(`${sel}[data-rendered]`).waitFor();
            const n = Number(await page.locator(sel).getAttribute('data-steps'));
            check(`histograms ${tag} ${r.name}: drawn`, n === Math.min(500, steps.length), `${n} steps shown, event files have ${steps.length}`);
          } catch (err) { check(`histograms ${tag} ${r.name}: drawn`, false, err.message.split('\n')[0]); }
        }
      }
      await page.evaluate(() => document.getElementById('view').scrollTo(0, 0));
      await shot('histograms');
    }

    // Images.
    const imageRuns = expected.filter((r) => r.images.size);
    if (!imageRuns.length) skip('images', 'no image summaries');
    else {
      await open('images');
      for (const r of imageRuns) {
        for (const [tag, steps] of r.images) {
          const sel = `[data-image-run="${cssString(r.name)}"][data-image-tag="${cssString(tag)}"]`;
          try {
            await page.waitForFunction((s) => { const img = document.querySelector(`${s} img`); return img && img.complete && img.naturalWidth > 0; }, sel, { timeout: 10000 });
            const step = Number(await page.locator(sel).getAttribute('data-step'));
            check(`images ${tag} ${r.name}: newest image shown`, step === Math.max(...steps), `step ${step}, newest in event files ${Math.max(...steps)}`);
          } catch (err) { check(`images ${tag} ${r.name}: newest image shown`, false, err.message.split('\n')[0]); }
        }
      }
      await shot('images');
    }
    // Every page is opened at least once, also those without data (an empty
    // logdir must not produce console errors either).
    for (const route of ['scalars', 'histograms', 'graph', 'traces', 'images']) {
      if (fs.existsSync(path.join(args.artifacts, `${route}.png`))) continue;
      try {
        await open(route);
        check(`${route}: page opens`, true);
      } catch (err) { check(`${route}: page opens`, false, err.message.split('\n')[0]); }
      await shot(route);
    }
    await page.waitForTimeout(200); // let late console messages arrive
  } finally {
    await browser.close();
  }
  check('no console or page errors', problems.length === 0, problems.slice(0, 10).join(' | '));
  const failed = results.filter((x) => !x).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

function cssString(s) { return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"'); }

const watchdog = setTimeout(() => {
  console.log(`FAIL board_browser_test: did not finish within ${args.timeoutS} s`);
  process.exit(1);
}, args.timeoutS * 1000);
main().then((code) => { clearTimeout(watchdog); process.exit(code); }, (err) => {
  clearTimeout(watchdog);
  console.log(`FAIL board_browser_test: ${err.stack || err}`);
  process.exit(1);
});
