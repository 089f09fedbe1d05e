// End-to-end test of the static demo (`make web`: the page with the whole World in a Web Worker on
// the WebAssembly build), in headless Chromium, served by a plain static file server (no tide
// serve process exists):
//
//   node tests/e2e/static_demo.mjs --web build-wasm/web --out build/e2e-static
//
// On the default map: the page starts without a WebSocket; units move; the first-run hint's
// box-select and right-click across the gap orders them, and the order arrives; painting the gap
// shut leaves them with no path and the field unreachable beyond it, erasing it reroutes them
// through; the map list, a preset, the heat map, a tower, a danger (flee) order, an uploaded map
// file and the Download .tmap link work. Then seed 002's headline in the page: 5,000 units on the
// default and the 256x256 map, one A* per unit (every unit planned, not scaled) against one field build, both
// measured in WebAssembly; and the page's frame rates with 5,000 and 20,000 units. A mistyped
// ?map= is named in an error and the default map starts instead.
// Screenshots: static-default.png, static-walled.png, static-ordered.png, static-5000-MAP.png,
// static-5000.png, static-20000.png.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { check, dragPositions, runBrowserScript, sleep, waitFor } from './lib.mjs';

const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
let passed = 0;
const figures = [];

function pass(name, detail) {
    passed++;
    console.log(`e2e-static: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

function parseArgs(argv) {
    const opts = { web: null, out: null };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i], value = argv[i + 1];
        if (key === '--web') opts.web = value;
        else if (key === '--out') opts.out = value;
        else {
            console.error(`e2e-static: unknown argument '${key}'`);
            process.exit(2);
        }
    }
    if (!opts.web || !opts.out) {
        console.error('usage: node static_demo.mjs --web build-wasm/web --out DIR');
        process.exit(2);
    }
    return opts;
}

const kGap = { x0: 14, x1: 15, y0: 18, y1: 21 };  // the 4-cell gap in the default map's left wall
const kTarget = [8, 20];                         // left of it
const kArriveWithin = 8;

async function waitReady(page, what, ms = 30_000) {
    await page.waitForFunction(() => window.tide && window.tide.ready, null, { timeout: ms })
        .catch(() => { throw new Error(`${what}: the page was not ready within ${ms / 1000} s`); });
}

const units = (page) => page.evaluate(() => window.tide.units());
const world = (page) => page.evaluate(() => window.tide.world);

async function checkStartsWithoutServer(page, base, sockets) {
    await page.goto(base);
    await waitReady(page, 'the static demo');
    const w = await world(page);
    const transport = await page.evaluate(() => window.tide.transport);
    check(transport === 'worker', `the page's transport is '${transport}', expected 'worker'`);
    check(w.map === 'default' && w.width === 64 && w.height === 40, `the world is ${w.map} ${w.width}x${w.height}`);
    check(sockets.length === 0, `the page opened WebSockets: ${sockets.join(', ')}`);
    const sub = await page.evaluate(() => document.getElementById('sub').textContent);
    check(/WebAssembly/.test(sub), `the subtitle says '${sub}'`);
    const a = await units(page);
    await sleep(1000);
    const b = await units(page);
    let moved = 0;
    for (let i = 0; i < Math.min(a.x.length, b.x.length); i++) moved += Math.hypot(b.x[i] - a.x[i], b.y[i] - a.y[i]) > 0.1;
    check(b.tick > a.tick && moved > 0.2 * a.x.length, `in 1 s the world went from tick ${a.tick} to ${b.tick} and ${moved} of ${a.x.length} units moved`);
    pass('the page starts with no server: the World runs in a Web Worker, units move',
        `${a.x.length} units, ${b.tick - a.tick} ticks in 1 s, ${moved} moved; no WebSocket`);
}

async function checkOrderArrivesAndPaintReroutes(page, out) {
    await page.screenshot({ path: path.join(out, 'static-default.png') });
    // The first-run hint: drag a box around units, then right-click across the gap.
    await dragPositions(page, [kGap.x1 + 2, 0.5], [63.5, 39.5]);
    const selected = await waitFor(async () => {
        const n = await page.evaluate(() => window.tide.selectionCount());
        return { done: n > 0, n };
    }, 5000);
    check(selected.done, 'the box selected no units');
    await page.evaluate(() => { window.tide.lastOrdered = null; });
    const c = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), kTarget);
    await page.mouse.click(c[0], c[1], { button: 'right' });
    const ordered = await page.waitForFunction(() => window.tide.lastOrdered, null, { timeout: 5000 })
        .then((h) => h.jsonValue(), () => null);
    check(ordered && ordered.units === selected.n, `ordering ${selected.n} selected units answered ${JSON.stringify(ordered)}`);
    const group = ordered.group & 255;
    pass('box-select and right-click across the gap orders the units', `${ordered.units} units, group ${ordered.group}`);

    // Paint the gap shut while they walk: beyond it is unreachable, the group has no path.
    await sleep(1500);
    const beyond = [kGap.x1 + 5, 20];
    const before = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, beyond);
    check(Number.isFinite(before), `before the paint, cell (${beyond}) has integration ${before}`);
    for (let x = kGap.x0; x <= kGap.x1; x++)
        for (let y = kGap.y0; y <= kGap.y1; y++) await page.evaluate((m) => window.tide.send(m), { type: 'paint', x, y, radius: 0, terrain: 'wall' });
    const walled = await waitFor(async () => {
        const v = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, beyond);
        const u = await units(page);
        let noPath = 0;
        for (let i = 0; i < u.state.length; i++) noPath += u.group[i] === group && u.state[i] === 2;
        return { done: !Number.isFinite(v) && noPath > 0.5 * ordered.units, v, noPath };
    }, 10_000);
    await page.screenshot({ path: path.join(out, 'static-walled.png') });
    check(walled.done, `after painting the gap shut, cell (${beyond}) has integration ${walled.v} and ${walled.noPath} units have no path`);
    for (let x = kGap.x0; x <= kGap.x1; x++)
        for (let y = kGap.y0; y <= kGap.y1; y++) await page.evaluate((m) => window.tide.send(m), { type: 'paint', x, y, radius: 0, terrain: 'plain' });
    const reopened = await waitFor(async () => {
        const v = await page.evaluate(([x, y]) => window.tide.cell(x, y).integration, beyond);
        return { done: Number.isFinite(v), v };
    }, 10_000);
    check(reopened.done, `after erasing the wall, cell (${beyond}) has integration ${reopened.v}`);
    pass('a paint reroutes: the gap painted shut leaves the group without a path, erased it finds it again',
        `cell (${beyond}): ${before.toFixed(1)} -> unreachable -> ${reopened.v.toFixed(1)}; ${walled.noPath} units had no path`);

    const start = performance.now();
    const arrived = await waitFor(async () => {
        const u = await units(page);
        let n = 0;
        for (let i = 0; i < u.state.length; i++) {
            n += u.group[i] === group && u.state[i] === 1 && Math.hypot(u.x[i] - kTarget[0] - 0.5, u.y[i] - kTarget[1] - 0.5) <= kArriveWithin;
        }
        return { done: n >= 0.9 * ordered.units, n };
    }, 90_000);
    const took = ((performance.now() - start) / 1000).toFixed(1);
    await page.screenshot({ path: path.join(out, 'static-ordered.png') });
    check(arrived.done, `after ${took} s, ${arrived.n} of ${ordered.units} ordered units arrived within ${kArriveWithin} cells of (${kTarget})`);
    pass('the order arrives through the reopened gap', `${arrived.n} of ${ordered.units} within ${kArriveWithin} cells, ${took} s`);
}

async function checkControls(page, out) {
    // Heat map.
    await page.click('#toggle-heat');
    check(await page.evaluate(() => document.getElementById('toggle-heat').checked), 'the heat map box did not tick');
    await page.click('#toggle-heat');
    // A tower on open ground, then a danger (flee) order.
    await page.evaluate(() => { window.tide.lastTowerPlaced = null; });
    await page.evaluate((m) => window.tide.send(m), { type: 'place_tower', x0: 40, y0: 4, x1: 41, y1: 5 });
    const tower = await page.waitForFunction(() => window.tide.lastTowerPlaced, null, { timeout: 5000 }).then((h) => h.jsonValue(), () => null);
    check(tower, 'place_tower got no tower_placed reply');
    const wall = await waitFor(async () => {
        const v = await page.evaluate(() => window.tide.cell(40, 4).cost);
        return { done: v === 255, v };
    }, 5000);
    check(wall.done, `the tower's cell (40, 4) has cost ${wall.v}, expected a wall`);
    await page.evaluate(() => { window.tide.lastOrdered = null; });
    await page.evaluate((m) => window.tide.send(m), { type: 'order', goals: [[50, 20]], select: [30, 0, 63, 39], flee: true });
    const fled = await page.waitForFunction(() => window.tide.lastOrdered, null, { timeout: 5000 }).then((h) => h.jsonValue(), () => null);
    check(fled && fled.units > 0, `the danger order answered ${JSON.stringify(fled)}`);
    await page.evaluate((m) => window.tide.send(m), { type: 'view', group: fled.group });
    const flee = await waitFor(async () => ({ done: await page.evaluate(() => window.tide.fieldIsFlee()) }), 5000);
    check(flee.done, 'the danger order did not bring a flee field');
    pass('heat map, a tower and a danger order work', `tower walls (40, 4); ${fled.units} units flee from (50, 20)`);

    // The map list, then a preset.
    await page.selectOption('#map-select', 'maze');
    const maze = await waitFor(async () => ({ done: (await world(page)).map === 'maze' }), 20_000);
    check(maze.done, `picking maze in the map list left the world on ${(await world(page)).map}`);
    await page.click('button[data-scenario="counter_flow"]');
    const preset = await waitFor(async () => {
        const w = await world(page);
        return { done: w.map === 'scenario:counter_flow', map: w.map };
    }, 20_000);
    check(preset.done, `the Counter-flow preset left the world on ${preset.map}`);
    const a = await units(page);
    await sleep(1500);
    const b = await units(page);
    let moved = 0;
    for (let i = 0; i < Math.min(a.x.length, b.x.length); i++) moved += Math.hypot(b.x[i] - a.x[i], b.y[i] - a.y[i]) > 0.1;
    check(moved > 0.2 * b.x.length, `in the preset ${moved} of ${b.x.length} units moved in 1.5 s`);
    pass('the map list and a preset load, and the preset\'s crowd moves', `maze, then counter_flow: ${moved} of ${b.x.length} moved`);

    // A map file, loaded in the worker; then the Download .tmap link gives it back.
    const lines = [];
    for (let y = 0; y < 12; y++) lines.push(y === 6 ? '....@@@@@@@@@@@@@@......' : '.'.repeat(24));
    const text = `type octile\nheight 12\nwidth 24\nmap\n${lines.join('\n')}\n`;
    await page.setInputFiles('#map-file', { name: 'tiny.map', mimeType: 'text/plain', buffer: Buffer.from(text) });
    const uploaded = await waitFor(async () => {
        const w = await world(page);
        return { done: w.width === 24 && w.height === 12, w: `${w.map} ${w.width}x${w.height}` };
    }, 20_000);
    check(uploaded.done, `after loading tiny.map the world is ${uploaded.w}`);
    const downloadPromise = page.waitForEvent('download', { timeout: 10_000 });
    await page.click('#map-download');
    const download = await downloadPromise;
    const saved = path.join(out, 'downloaded.tmap');
    await download.saveAs(saved);
    const tmap = readFileSync(saved, 'utf8');
    check(download.suggestedFilename() === 'tiny.tmap', `the download is named ${download.suggestedFilename()}`);
    check(/24/.test(tmap) && tmap.split('\n').length > 12, `the downloaded .tmap is:\n${tmap.slice(0, 200)}`);
    await page.evaluate(() => { window.tide.lastError = null; });
    await page.setInputFiles('#map-file', { name: 'broken.map', mimeType: 'text/plain', buffer: Buffer.from('type octile\nheight 2\nwidth 2\nmap\n..\n.') });
    const refused = await waitFor(async () => {
        const e = await page.evaluate(() => document.getElementById('error-text')?.textContent || window.tide.lastError || '');
        return { done: /broken\.map/.test(e), e };
    }, 5000);
    check(refused.done, `a broken map file showed '${refused.e}'`);
    pass('a map file loads in the worker, Download .tmap saves it, a broken file is refused by name',
        `tiny.map 24x12 -> tiny.tmap (${tmap.length} bytes); '${refused.e.slice(0, 80)}'`);
}

// One A* per unit for every unit of the shown group, against one field build, in the page.
async function headline(page, base, out, map) {
    await page.goto(`${base}?map=${map}&units=5000`);
    await waitReady(page, `5,000 units on ${map}`, 60_000);
    const w = await world(page);
    check(w.map === map && w.agents === 5000, `the world is ${w.map} with ${w.agents} units`);
    await page.evaluate(() => { window.tide.lastAstar = null; });
    await page.click('#astar-compare');
    const astar = await page.waitForFunction(() => window.tide.lastAstar, null, { timeout: 60_000 }).then((h) => h.jsonValue(), () => null);
    check(astar, 'the A* comparison gave no answer within 60 s');
    await page.screenshot({ path: path.join(out, `static-5000-${map}.png`) });
    check(astar.units === 5000 && astar.sampled === astar.units,
        `the comparison planned ${astar.sampled} of ${astar.units} units (expected every one of 5,000)`);
    const ratio = astar.astar_ms_all / astar.field_ms;
    check(ratio > 1, `one A* per unit took ${astar.astar_ms_all} ms against ${astar.field_ms} ms for the field`);
    const shown = await page.evaluate(() => document.getElementById('astar-box').textContent);
    check(/every unit planned in this page/.test(shown), `the panel says: ${shown}`);
    const text = `${map} ${w.width}x${w.height}, 5,000 units: one A* per unit ${astar.astar_ms_all.toFixed(1)} ms ` +
        `(${astar.astar_ms_per_unit.toFixed(4)} ms each) against one field ${astar.field_ms.toFixed(2)} ms, ${ratio.toFixed(1)}x`;
    figures.push(`headline: ${text}`);
    return text;
}

async function frameRates(page, base, out, map, count) {
    await page.goto(`${base}?map=${map}&units=${count}`);
    await waitReady(page, `${count} units on ${map}`, 60_000);
    const w = await world(page);
    check(w.agents === count, `the world has ${w.agents} units, expected ${count}`);
    await sleep(5000);
    const r = await page.evaluate(() => ({ draw: window.tide.fps, agents: window.tide.framesPerSecond,
        tick: window.tide.stats && window.tide.stats.tick_hz, step: window.tide.stats && window.tide.stats.step_ms }));
    await page.screenshot({ path: path.join(out, `static-${count}.png`) });
    check(r.draw > 5 && r.tick > 5, `${count} units: the page drew ${r.draw} frames/s with the simulation at ${r.tick} Hz`);
    const text = `${count.toLocaleString('en-US')} units on ${map}: page ${r.draw.toFixed(1)} fps, simulation ` +
        `${r.tick.toFixed(1)} Hz (step ${r.step.toFixed(2)} ms), agents frames ${r.agents.toFixed(1)}/s`;
    figures.push(text);
    return text;
}

async function checkHeadlineAndFrameRates(page, base, out) {
    const small = await headline(page, base, out, 'default');
    const large = await headline(page, base, out, 'random256');
    pass('seed 002\'s headline, measured in the page (seed 002: 138.4 ms against 1.85 ms, 74.8x)', `${small}; ${large}`);
    const a = await frameRates(page, base, out, 'random256', 5000);
    const b = await frameRates(page, base, out, 'random256', 20000);
    pass('frame rates with 5,000 and 20,000 units', `${a}; ${b}`);
}

// A mistyped ?map= is named in an error and the default map starts instead.
async function checkBadStart(page, base) {
    await page.goto(`${base}?map=bogus&units=50`);
    await waitReady(page, '?map=bogus');
    const w = await world(page);
    const error = await page.evaluate(() => window.tide.lastError || '');
    check(w.map === 'default' && /no built-in map 'bogus'/.test(error) && /default map/.test(error),
        `?map=bogus: the world is ${w.map}, the error '${error}'`);
    pass('a mistyped ?map= is named and the default map starts instead', error);
}

const opts = parseArgs(process.argv.slice(2));
await runBrowserScript({
    tag: 'e2e-static',
    opts,
    staticRoot: opts.web,
    deadlineMs: 600_000,
    pass,
    summary: () => `${passed} checks passed${figures.length ? `\n  ${figures.join('\n  ')}` : ''}`,
    body: async ({ page, base, out }) => {
        const sockets = [];
        page.on('websocket', (ws) => sockets.push(ws.url()));
        await checkStartsWithoutServer(page, base, sockets);
        await checkOrderArrivesAndPaintReroutes(page, out);
        await checkControls(page, out);
        await checkHeadlineAndFrameRates(page, base, out);
        await checkBadStart(page, base);
        check(sockets.length === 0, `the page opened WebSockets: ${sockets.join(', ')}`);
    },
});
