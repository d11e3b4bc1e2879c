// The JS event-file reader/writer used by the mock server, the browser test
// and the benchmark: node --test tools/board/web/test/
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32c, decodeEvent, decodeGraphDef, encodeEvent, encodeGraphDef, EventFileWriter, findRuns, frameRecord,
  graphToPbtxt, parsePbtxtGraph, readRecords, readRunEvents } from '../dev/tfevents.mjs';

test('crc32c matches the Castagnoli check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
});

test('events round-trip; a torn tail is skipped and reported', () => {
  const e = { wall_time: 12.5, step: 300, summary: [{ tag: 'loss', simple_value: 0.25 }] };
  const rec = Buffer.concat([frameRecord(encodeEvent(e)), frameRecord(encodeEvent({ ...e, step: 301 }))]);
  const whole = readRecords(rec);
  assert.equal(whole.records.length, 2);
  assert.equal(whole.torn, null);
  assert.deepEqual(decodeEvent(whole.records[0]), e);
  const torn = readRecords(rec.subarray(0, rec.length - 3));
  assert.equal(torn.records.length, 1);
  assert.match(torn.torn, /short record/);
  const bad = Buffer.from(rec); bad[20] ^= 1;
  assert.match(readRecords(bad).torn, /bad data CRC/);
});

test('runs are folders with event files, "." for the logdir itself', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfevents-'));
  try {
    for (const sub of ['', 'b/c']) {
      const w = new EventFileWriter(path.join(dir, sub), { wallTime: 1 });
      w.add({ wall_time: 2, step: 1, summary: [{ tag: 't', simple_value: 1 }] });
      w.close();
    }
    const runs = findRuns(dir);
    assert.deepEqual(runs.map((r) => r.name), ['.', 'b/c']);
    const { events } = readRunEvents(runs[1].files);
    assert.equal(events[0].file_version, 'brain.Event:2');
    assert.equal(events[1].summary[0].tag, 't');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('GraphDef in binary and text form gives the same nodes', () => {
  const nodes = [{ name: 's/a', op: 'Const', device: '/cpu:0', attrs: { dtype: { type: 1 }, shape: { shape: [-1, 3] } } },
    { name: 's/b', op: 'Neg', inputs: ['s/a', '^init'], attrs: { T: { type: 1 } } }];
  const bin = decodeGraphDef(encodeGraphDef(nodes));
  const txt = parsePbtxtGraph(graphToPbtxt(nodes));
  assert.deepEqual(bin, txt);
  assert.deepEqual(bin[0].attrs, [['dtype', 'float'], ['shape', '[?,3]']]);
  assert.deepEqual(bin[1].inputs, ['s/a', '^init']);
});
