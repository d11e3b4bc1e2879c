#!/usr/bin/env node
// The front end end to end without the C++ server: builds the app, writes the
// fixture log directory, starts the mock server on a free loopback port, and
// runs board_browser_test.mjs against it. Everything it starts is stopped,
// also on failure; every wait is bounded.
//
//   node tests/board/mock_board_test.mjs [--artifacts DIR] [--chromium PATH]

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..');
const web = path.join(root, 'tools', 'board', 'web');
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'board-mock-'));
const artifacts = opt('--artifacts', path.join(tmp, 'artifacts'));
let server = null;

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', timeout: 120000 });
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message || `exit ${r.status}`})`);
}

async function main() {
  run(process.execPath, [path.join(web, 'build.mjs'), path.join(tmp, 'static')], 'build.mjs');
  run(process.execPath, [path.join(web, 'dev', 'make_fixture_logdir.mjs'), path.join(tmp, 'logs')], 'make_fixture_logdir.mjs');
  server = spawn(process.execPath, [path.join(web, 'dev', 'mock_server.mjs'), '--static', path.join(tmp, 'static'),
    '--logdir', path.join(tmp, 'logs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the mock server did not start within 30 s')), 30000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the mock server exited (${code})`)); });
  });
  const args = [path.join(here, 'board_browser_test.mjs'), '--url', url, '--logdir', path.join(tmp, 'logs'), '--artifacts', artifacts];
  if (opt('--chromium')) args.push('--chromium', opt('--chromium'));
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', timeout: 180000 });
  return r.status === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.log(`FAIL mock_board_test: ${err.message}`);
} finally {
  if (server && server.exitCode === null) server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true }); // screenshots survive only in a given --artifacts
}
process.exit(code);
