// Opt-in measurement (not part of make test): the page's frame rate with 100,000 units on the
// 1024x1024 built-in map at 1280x800, Fit zoom, heat map as the page chooses.
// node tests/e2e/fps100k.mjs --tide build/bin/tide [--seconds 10]
import { getJson, waitFor, withDemoPage } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const tide = opt('--tide', 'build/bin/tide');
const seconds = Number(opt('--seconds', '10'));
const units = Number(opt('--units', '100000'));
const paused = args.includes('--paused'); // measure the page alone: the world paused, no agents frames
await withDemoPage(tide, ['--map', '@large', '--agents', String(units)], async ({ page, base }) => {
    await page.waitForFunction((n) => window.tide && window.tide.ready && window.tide.agentsDrawn >= n * 0.99, units,
        { timeout: 60_000 });
    if (paused) {
        await page.click('#pause');
        await page.waitForFunction(() => document.getElementById('pause').textContent === 'Resume');
    }
    const m = await page.evaluate((ms) => new Promise((resolve) => {
        let frames = 0, worst = 0, last = 0, start = 0;
        const tick = (t) => {
            if (!start) start = last = t;
            else { frames++; worst = Math.max(worst, t - last); last = t; }
            if (t - start < ms) requestAnimationFrame(tick);
            else resolve({ fps: (frames * 1000) / (t - start), worst, drawn: window.tide.agentsDrawn,
                framesIn: window.tide.framesPerSecond });
        };
        requestAnimationFrame(tick);
    }), seconds * 1000);
    const s = await getJson(base, '/api/state');
    console.log(`fps100k: ${m.fps.toFixed(1)} fps over ${seconds} s (slowest frame ${m.worst.toFixed(0)} ms), ` +
        `${m.drawn} units drawn, ${m.framesIn.toFixed(1)} agents frames/s received, server tick ${s.stats.tick_hz.toFixed(1)} Hz, ` +
        `step ${s.stats.step_ms.toFixed(2)} ms`);
    await page.screenshot({ path: '/tmp/fps100k.png' });
});
