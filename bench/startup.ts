/**
 * Start-up time and memory at rest of the service as `npm start` runs it.
 *
 *   node --import tsx bench/startup.ts [--runs N] [--idle SECONDS] [LABEL=CHECKOUT ...]
 *
 * Each checkout (default: this one) is started with the Node arguments of its own package.json
 * start script, on a fresh SQLite database, in turn, run after run (interleaved, so that a busy
 * moment of the machine falls on every checkout alike). Per run: the time from spawn to the
 * "listening" line, the CPU time the process had used by then (user + system, all its threads:
 * steadier than the wall clock on a machine that is busy with other work), and the resident set
 * size read from /proc after `--idle` seconds without a request. One discarded run per checkout first warms the file cache (and tsx's, where used).
 * Prints each run and the medians; Linux only (/proc).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { serviceArguments } from './lib/gatehouse.ts';
import { stopChild } from './lib/processes.ts';

const LISTENING = /Gatehouse listening on http:\/\//;
const START_TIMEOUT_MS = 30_000;
/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux build that matters here. */
const CLOCK_TICKS_PER_SECOND = 100;

interface Sample {
  readonly startMs: number;
  readonly cpuMs: number;
  readonly rssMiB: number;
}

interface Target {
  readonly label: string;
  readonly root: string;
  readonly samples: Sample[];
}

/** One start: spawn, wait for the listening line, idle, read VmRSS, stop. */
async function measure(root: string, idleSeconds: number): Promise<Sample> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-startup-'));
  const began = performance.now();
  const child = spawn(process.execPath, serviceArguments(root), {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(folder, 'gatehouse.db')}`, KEYRING_SECRET: randomBytes(32).toString('hex') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const [startMs, cpuMs] = await new Promise<[number, number]>((done, fail) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`${root}: no listening line within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (!LISTENING.test(output)) return;
        clearTimeout(timer);
        done([performance.now() - began, cpuTimeMs(child.pid!)]);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`${root}: exited (${code}) before listening:\n${output}`));
      });
    });
    await sleep(idleSeconds * 1000);
    return { startMs, cpuMs, rssMiB: residentMiB(child.pid!) };
  } finally {
    await stopChild(child);
    rmSync(folder, { recursive: true, force: true });
  }
}

function residentMiB(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) / 1024;
}

/** utime + stime from /proc/PID/stat (fields 14 and 15, after the parenthesised command name), in ms. */
function cpuTimeMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '7' }, idle: { type: 'string', default: '5' } },
  });
  const runs = Number(values.runs);
  const idleSeconds = Number(values.idle);
  const targets: Target[] = (positionals.length > 0 ? positionals : [`this=${process.cwd()}`]).map((spec) => {
    const [label, root] = spec.includes('=') ? [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)] : [spec, spec];
    return { label, root: resolve(root), samples: [] };
  });

  for (const target of targets) await measure(target.root, 0);
  for (let run = 1; run <= runs; run++) {
    for (const target of targets) {
      const sample = await measure(target.root, idleSeconds);
      target.samples.push(sample);
      console.log(`run ${run} ${target.label}: start ${sample.startMs.toFixed(0)} ms, cpu ${sample.cpuMs.toFixed(0)} ms, rss ${sample.rssMiB.toFixed(1)} MiB`);
    }
  }
  console.log(`\nmedians of ${runs} runs (rss after ${idleSeconds} s idle):`);
  for (const { label, root, samples } of targets) {
    const start = median(samples.map((sample) => sample.startMs));
    const cpu = median(samples.map((sample) => sample.cpuMs));
    const rss = median(samples.map((sample) => sample.rssMiB));
    console.log(`${label}: start ${start.toFixed(0)} ms, cpu ${cpu.toFixed(0)} ms, rss ${rss.toFixed(1)} MiB  (node ${serviceArguments(root).join(' ')})`);
  }
}

await main();
