// CPU the browser spends on a paused, untouched player: the demo opened and paused, then the CPU
// time (user + system, from /proc) of every Chromium process over SECONDS, as a share of one core.
// The renderer in the render worker (default: it draws only when something changed, and once a
// second) against the renderer on the page (?render=page: it draws every animation frame), one after
// the other, ROUNDS times, after an empty page in the same browser (the floor). With the render
// worker the page's own loop rests while nothing can change (docs/renderer.md "Resting").
//
//   node tests/bench/idle.mjs [seconds=10] [rounds=2]
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { launchBrowser, serveRoot, fmt, machineLine, openPlayerPage } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 2);
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds (user + system) of every process whose command line names chromium. */
function chromiumCpu() {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chrom/i.test(cmd.split('\0')[0] ?? '')) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  }
  return ticks / TICKS;
}

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
const rows = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    // The floor: the same browser with an empty page (what any open tab costs here).
    {
      const page = await browser.newPage();
      await page.goto('about:blank');
      await page.waitForTimeout(2000);
      const c0 = chromiumCpu();
      await page.waitForTimeout(SECONDS * 1000);
      rows.push(`| ${r + 1} | (empty page) | ${fmt((100 * (chromiumCpu() - c0)) / SECONDS, 0)} % | — |`);
      await page.close();
    }
    for (const mode of ['worker', 'page']) {
      const { page } = await openPlayerPage(browser, srv, mode === 'page' ? '?render=page' : '');
      await page.evaluate(() => window.__player.pause());
      await page.waitForTimeout(2000);
      await page.evaluate(() => window.__player.diagnostics.perf({ reset: true }));
      const c0 = chromiumCpu();
      await page.waitForTimeout(SECONDS * 1000);
      const cpu = chromiumCpu() - c0;
      const st = await page.evaluate(() => window.__player.diagnostics.perf().renderStats);
      const frames = await page.evaluate(() => window.__player.diagnostics.perf().frames);
      rows.push(
        `| ${r + 1} | ${mode} | ${fmt((100 * cpu) / SECONDS, 0)} % | ${st ? `${frames} animation frames: ${st.posted} posted, ${st.idle} idle` : 'every frame'} |`,
      );
      await page.close();
    }
  }
  console.log(`\npaused demo, ${SECONDS} s each; CPU of all Chromium processes as a share of one core\n`);
  console.log('| round | renderer in | CPU | frames |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
