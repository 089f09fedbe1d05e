// Opt-in measurement (not part of make test): how long a paint takes to show on the page on a
// big map, with fields patches. Paints `--strokes` one-cell walls at random open cells of the
// 1024x1024 built-in map (with --units units moving) and, for each, times from the page sending
// `paint` to the page's field showing the wall (cost 255, no value).
// node tests/e2e/edit_latency.mjs --tide build/bin/tide [--units 10000] [--strokes 20]
import { getJson, withDemoPage } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const tide = opt('--tide', 'build/bin/tide');
const units = Number(opt('--units', '10000'));
const strokes = Number(opt('--strokes', '20'));
await withDemoPage(tide, ['--map', '@large', '--agents', String(units)], async ({ page, base }) => {
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.stats, null, { timeout: 60_000 });
    await page.waitForTimeout(2000);
    const times = [];
    let patches = 0;
    for (let i = 0; i < strokes; i++) {
        const r = await page.evaluate(async (seed) => {
            const t = window.tide;
            // An open cell with a move, away from the goals: walling it changes the field there.
            let x = 0, y = 0;
            for (let k = 0; k < 1000; k++) {
                x = 100 + ((seed * 7919 + k * 104729) % 800);
                y = 100 + ((seed * 6271 + k * 130363) % 800);
                const c = t.cell(x, y);
                if (c && c.cost !== 255 && Number.isFinite(c.integration)) break;
            }
            const patchesBefore = t.fieldPatches;
            const start = performance.now();
            t.send({ type: 'paint', x, y, radius: 0, terrain: 'wall' });
            return await new Promise((resolve) => {
                const poll = () => {
                    const c = t.cell(x, y);
                    if (c && c.cost === 255 && !Number.isFinite(c.integration)) {
                        resolve({ ms: performance.now() - start, patches: t.fieldPatches - patchesBefore, x, y });
                    } else if (performance.now() - start > 10_000) {
                        resolve({ ms: Infinity, patches: t.fieldPatches - patchesBefore, x, y });
                    } else {
                        requestAnimationFrame(poll);
                    }
                };
                poll();
            });
        }, i + 1);
        times.push(r.ms);
        patches += r.patches || 0;
        await page.waitForTimeout(300);
    }
    const s = await getJson(base, '/api/state');
    times.sort((a, b) => a - b);
    const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(0);
    console.log(`edit_latency: ${strokes} one-cell walls on the 1024x1024 map with ${units} units: ` +
        `shown after median ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms; ${patches} fields patches applied; ` +
        `server tick ${s.stats.tick_hz.toFixed(1)} Hz`);
});
