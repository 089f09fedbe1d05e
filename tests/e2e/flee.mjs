// End-to-end test of the Danger tool and the wall-margin toggle, in headless Chromium:
//
//   node tests/e2e/flee.mjs --tide build/bin/tide --out build/e2e-flee
//
// On the default map with 300 units: the Danger tool chosen with its shortcut (D), a click in the
// middle of the pack makes every unit flee from that cell (/api/state: one group, flee, goals =
// the danger; the page draws a flee field: window.tide.fieldIsFlee(), negative values; its colour
// bar runs from the safest value, drawn dark on the map, to 0, drawn yellow); after a
// few seconds the units' mean distance from the danger has grown and nobody is within 3 cells; a
// second danger click adds a danger to the same group; a click on a danger marker removes it.
// Then the wall-margin toggle: the params echo carries [2, 4] and the group's field changes (the
// page's value of a cell beside a wall). Screenshots: flee-colour-bar.png, flee.png.

import path from 'node:path';

import { check, getJson, nextFrames, runBrowserScript, sleep, waitFor } from './lib.mjs';

const kDanger = [40, 20];
const kSecondDanger = [30, 10];
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
let passed = 0;

function pass(name, detail) {
    passed++;
    console.log(`e2e-flee: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

function parseArgs(argv) {
    const opts = { tide: null, out: null, webRoot: null };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i], value = argv[i + 1];
        if (key === '--tide') opts.tide = value;
        else if (key === '--out') opts.out = value;
        else if (key === '--web-root') opts.webRoot = value;
        else {
            console.error(`e2e-flee: unknown argument '${key}'`);
            process.exit(2);
        }
    }
    if (!opts.tide || !opts.out) {
        console.error('usage: node flee.mjs --tide PATH/TO/tide --out DIR [--web-root DIR]');
        process.exit(2);
    }
    return opts;
}

const dist = (a, i, c) => Math.hypot(a.x[i] - (c[0] + 0.5), a.y[i] - (c[1] + 0.5));
const mean = (v) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);

async function clickCell(page, cell) {
    const [x, y] = await page.evaluate(([cx, cy]) => window.tide.cellToClient(cx, cy), cell);
    await page.mouse.click(x, y);
}

/** [r, g, b] of every colour in a CSS linear-gradient, in order. */
const gradientColours = (css) => [...css.matchAll(/rgb\((\d+), ?(\d+), ?(\d+)\)/g)].map((m) => m.slice(1, 4).map(Number));
const rgbDistance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * The heat map of the flee field and its colour bar agree: the bar runs from the safest, most
 * negative value (left label) to 0 (right label), and its left end has the colour the map gives
 * the safest cells (dark), its right end the colour of the cells next to the danger (yellow). The
 * map's colours are read at a corner of each cell, clear of arrows and numbers.
 */
async function colourBar(page, out) {
    await page.click('#toggle-heat');
    await page.waitForFunction(() => !document.getElementById('colour-bar').hidden, null, { timeout: 3000 });
    await nextFrames(page, 3);
    const seen = await page.evaluate(() => {
        const t = window.tide, w = t.world.width, h = t.world.height;
        const canvas = document.getElementById('canvas'), rect = canvas.getBoundingClientRect();
        const k = canvas.width / rect.width, data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        const pixel = (x, y) => {
            const [cx, cy] = t.positionToClient(x + 0.12, y + 0.12);
            const i = 4 * (Math.round((cy - rect.top) * k) * canvas.width + Math.round((cx - rect.left) * k));
            return [data[i], data[i + 1], data[i + 2]];
        };
        let min = 0, max = -Infinity;
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
            const c = t.cell(x, y);
            if (c.cost === 255 || !Number.isFinite(c.integration)) continue;
            min = Math.min(min, c.integration);
            max = Math.max(max, c.integration);
        }
        // The safest cells, and the least safe ones (beside the danger: a flee value is never above 0).
        const safest = [], nearZero = [];
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
            const c = t.cell(x, y);
            if (c.cost === 255 || !Number.isFinite(c.integration)) continue;
            if (c.integration <= min + 0.03 * (max - min)) safest.push(pixel(x, y));
            else if (c.integration >= max - 0.03 * (max - min)) nearZero.push(pixel(x, y));
        }
        return { min, max, safest, nearZero, gradient: getComputedStyle(document.getElementById('cb-gradient')).backgroundImage,
            left: document.getElementById('cb-min').textContent, right: document.getElementById('cb-max').textContent,
            title: document.getElementById('cb-title').textContent };
    });
    const stops = gradientColours(seen.gradient);
    check(stops.length >= 2, `the colour bar's gradient is "${seen.gradient}"`);
    const [leftColour, rightColour] = [stops[0], stops[stops.length - 1]];
    // The bar's colour at a value (its stops evenly spaced from the left label to the right one).
    const barAt = (v) => {
        const f = Math.min(1, Math.max(0, (v - seen.min) / -seen.min)) * (stops.length - 1);
        const i = Math.min(stops.length - 2, Math.floor(f)), u = f - i;
        return stops[i].map((c, j) => c + (stops[i + 1][j] - c) * u);
    };
    const mirror = (v) => seen.min - v; // the value at the other end of the bar
    check(Number(seen.left) < 0 && Math.abs(Number(seen.left) - seen.min) <= Math.max(0.11, -seen.min * 0.01) && Number(seen.right) === 0,
        `the flee colour bar reads ${seen.left} .. ${seen.right}, the field's values ${seen.min.toFixed(2)} .. 0`);
    // Most of the sampled cells (a unit may stand on a corner) have the colour of their end of the bar.
    const share = (pixels, near, far) => pixels.filter((p) => rgbDistance(p, near) < rgbDistance(p, far)).length / Math.max(1, pixels.length);
    const safe = share(seen.safest, barAt(seen.min), barAt(mirror(seen.min)));
    const zero = share(seen.nearZero, barAt(seen.max), barAt(mirror(seen.max)));
    check(seen.safest.length > 0 && safe >= 0.8, `the safest cells (${seen.safest.length}, ${seen.min.toFixed(1)}) are drawn like the bar's left end ${leftColour} in ${(safe * 100).toFixed(0)}% of them`);
    check(seen.nearZero.length > 0 && zero >= 0.8, `the least safe cells (${seen.nearZero.length}, ${seen.max.toFixed(1)}) are drawn like the bar at that value, ${barAt(seen.max).map(Math.round)}, in ${(zero * 100).toFixed(0)}% of them`);
    check(leftColour[0] + leftColour[1] + leftColour[2] < rightColour[0] + rightColour[1] + rightColour[2], `the bar runs from ${leftColour} to ${rightColour}: the safest end is not the dark one`);
    await page.screenshot({ path: path.join(out, 'flee-colour-bar.png') });
    await page.click('#toggle-heat');
    pass('the flee colour bar runs from the safest value (dark, as drawn) to 0 (yellow)',
        `${seen.title}: ${seen.left} ${leftColour} .. ${seen.right} ${rightColour}; ${seen.safest.length} safest cells, ${seen.nearZero.length} least safe (${seen.max.toFixed(1)})`);
}

async function run(page, base, out) {
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.agentsDrawn > 0, null, { timeout: 10_000 });
    // Gather the pack around the danger cell first: everyone to it, as a goal.
    await page.evaluate((c) => window.tide.send({ type: 'set_goals', goals: [c] }), kDanger);
    await sleep(4000);
    const before = await getJson(base, '/api/agents?limit=1000');
    const meanBefore = mean(Array.from({ length: before.count }, (_, i) => dist(before, i, kDanger)));

    await page.keyboard.press('KeyD');
    check(await page.evaluate(() => document.getElementById('tool-danger').classList.contains('selected')),
        'the D key did not choose the Danger tool');
    await clickCell(page, kDanger);
    const fled = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        const g = s.groups.length === 1 ? s.groups[0] : null;
        return { done: !!g && g.flee === true && JSON.stringify(g.goals) === JSON.stringify([kDanger]), s };
    }, 5000);
    check(fled.done, `after a Danger click on (${kDanger}), /api/state groups are ${JSON.stringify(fled.s.groups)}`);
    pass('a Danger click makes every unit flee from the cell');

    const shown = await waitFor(async () => {
        const flee = await page.evaluate(() => window.tide.fieldIsFlee());
        const v = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, [kDanger[0] + 3, kDanger[1]]);
        return { done: flee && v < 0, flee, v };
    }, 5000);
    check(shown.done, `the page shows no flee field (flee ${shown.flee}, value beside the danger ${shown.v})`);
    pass('the page shows the flee values', `value 3 cells east of the danger ${shown.v.toFixed(2)}`);
    await colourBar(page, out);

    const after = await waitFor(async () => {
        const a = await getJson(base, '/api/agents?limit=1000');
        const d = Array.from({ length: a.count }, (_, i) => dist(a, i, kDanger));
        return { done: mean(d) > meanBefore + 8 && Math.min(...d) > 3, mean: mean(d), min: Math.min(...d) };
    }, 15_000);
    check(after.done, `the units did not flee: mean distance from the danger ${meanBefore.toFixed(1)} -> ${after.mean.toFixed(1)}, nearest ${after.min.toFixed(1)}`);
    pass('the units run away', `mean distance ${meanBefore.toFixed(1)} -> ${after.mean.toFixed(1)} cells, nearest ${after.min.toFixed(1)}`);
    await page.screenshot({ path: path.join(out, 'flee.png') });

    await clickCell(page, kSecondDanger);
    const two = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        const g = s.groups[0];
        return { done: s.groups.length === 1 && g.flee && g.goals.length === 2, s };
    }, 5000);
    check(two.done, `a second Danger click did not add a danger: ${JSON.stringify(two.s.groups)}`);
    await sleep(300); // let the page draw the new marker before clicking it
    await clickCell(page, kSecondDanger);
    const one = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        const g = s.groups[0];
        return { done: s.groups.length === 1 && g.flee && JSON.stringify(g.goals) === JSON.stringify([kDanger]), s };
    }, 5000);
    check(one.done, `a click on the second danger did not remove it: ${JSON.stringify(one.s.groups)}`);
    pass('a second danger is added, and removed by a click on it');

    // Wall margin: the toggle sends it, the echo comes back, the field is rebuilt with it.
    const beside = [16, 10]; // open cell next to the left wall (x = 14..15)
    const vBefore = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, beside);
    await page.check('#toggle-margin');
    const margin = await waitFor(async () => {
        const m = await page.evaluate(() => window.tide.wallMargin());
        const v = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, beside);
        return { done: m[0] === 2 && m[1] === 4 && v !== vBefore, m, v };
    }, 5000);
    check(margin.done, `the wall margin toggle: echo ${JSON.stringify(margin.m)}, value at (${beside}) ${vBefore} -> ${margin.v}`);
    pass('the wall-margin toggle replans the fields', `value at (${beside}) ${vBefore.toFixed(2)} -> ${margin.v.toFixed(2)}`);
    await page.uncheck('#toggle-margin');
    const off = await waitFor(async () => {
        const m = await page.evaluate(() => window.tide.wallMargin());
        return { done: m[0] === 0 && m[1] === 0, m };
    }, 5000);
    check(off.done, `the wall margin did not go off: ${JSON.stringify(off.m)}`);

    // Line of sight: on by default; the toggle turns it off in the world and back on.
    const sight = async () => (await getJson(base, '/api/state')).params.line_of_sight;
    check(await sight() === true && await page.isChecked('#toggle-sight'), 'line of sight is not on when the page opens');
    await page.uncheck('#toggle-sight');
    const sightOff = await waitFor(async () => ({ done: (await sight()) === false }), 5000);
    check(sightOff.done, 'unticking line of sight did not turn it off in the world (/api/state params)');
    await page.check('#toggle-sight');
    const sightOn = await waitFor(async () => ({ done: (await sight()) === true }), 5000);
    check(sightOn.done, 'ticking line of sight again did not turn it back on');
    pass('the line-of-sight toggle turns it off and on in the world');

    // Congestion: on when the page opens (the demo's default), the toggle turns it off and on again
    // through the server's echo.
    const congestionOn = await page.evaluate(() => window.tide.congestion());
    check(congestionOn === true && (await page.isChecked('#toggle-congestion')),
        `congestion is not on at start: echo ${congestionOn}`);
    await page.uncheck('#toggle-congestion');
    const cOff = await waitFor(async () => {
        const c = await page.evaluate(() => window.tide.congestion());
        return { done: c === false, c };
    }, 5000);
    check(cOff.done, `the congestion toggle did not turn it off: echo ${cOff.c}`);
    await page.check('#toggle-congestion');
    const cOn = await waitFor(async () => {
        const c = await page.evaluate(() => window.tide.congestion());
        return { done: c === true, c };
    }, 5000);
    check(cOn.done, `the congestion toggle did not turn it on again: echo ${cOn.c}`);
    pass('congestion is on by default and the toggle turns it off and on');
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    await runBrowserScript({
        tag: 'e2e-flee', opts, deadlineMs: 120_000, serverArgs: ['--agents', '300'], pass,
        summary: () => `${passed} checks passed in ${elapsed()}`,
        body: async ({ page, base, out }) => {
            await page.goto(base);
            await run(page, base, out);
        },
    });
}

main();
