#!/usr/bin/env node
// Bundles the board's front end into OUTDIR: index.html, board.js, board.css
// (minified, referenced by relative URL; nothing is loaded from elsewhere at
// run time). `node tools/board/web/build.mjs OUTDIR`. Needs the packages of
// package-lock.json in tools/board/web/node_modules (scripts/setup.sh).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out || process.argv.length > 3) {
  console.error('usage: node tools/board/web/build.mjs OUTDIR');
  process.exit(2);
}

const missing = ['esbuild', 'uplot', '@dagrejs/dagre'].filter(
  (p) => !fs.existsSync(path.join(here, 'node_modules', p, 'package.json')));
if (missing.length) {
  console.error(`board web: ${missing.join(', ')} not installed in ${path.join(here, 'node_modules')}; ` +
    'run scripts/setup.sh (or: npm ci --prefix tools/board/web)');
  process.exit(1);
}

const esbuild = await import(pathToFileURL(path.join(here, 'node_modules', 'esbuild', 'lib', 'main.js')).href);
fs.mkdirSync(out, { recursive: true });
try {
  await esbuild.build({
    absWorkingDir: here,
    entryPoints: { board: 'src/main.js' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome100', 'firefox100', 'safari15'],
    outdir: out,
    legalComments: 'none',
    logLevel: 'warning',
  });
} catch (err) {
  console.error(`board web: esbuild failed: ${err.message}`);
  process.exit(1);
}
fs.copyFileSync(path.join(here, 'src', 'index.html'), path.join(out, 'index.html'));
for (const f of ['index.html', 'board.js', 'board.css']) {
  if (!fs.existsSync(path.join(out, f))) { console.error(`board web: ${f} was not produced in ${out}`); process.exit(1); }
}
