// Opt-in measurement (not part of make test): how long the page's own frame takes (view.render(),
// timed in the page, 100 calls in a row) with 100,000 units on the 1024x1024 map at 1280x800,
// the world paused, so that the server's step does not compete for the CPU.
// node tests/e2e/rendertime.mjs --tide build/bin/tide [--units 100000]
import { withDemoPage } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const tide = opt('--tide', 'build/bin/tide');
const units = Number(opt('--units', '100000'));
await withDemoPage(tide, ['--map', '@large', '--agents', String(units)], async ({ page }) => {
    await page.waitForFunction((n) => window.tide && window.tide.ready && window.tide.agentsDrawn >= n * 0.99, units,
        { timeout: 60_000 });
    await page.click('#pause');
    await page.waitForFunction(() => document.getElementById('pause').textContent === 'Resume');
    const t = await page.evaluate(() => window.tide.timeRender(100));
    console.log(`rendertime: view.render() median ${t.median.toFixed(2)} ms, p90 ${t.p90.toFixed(2)} ms ` +
        `(${t.parts}), ${units} units`);
});
