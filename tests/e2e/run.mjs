// End-to-end test of the demo page against a live `tide serve`, in headless Chromium without a GPU.
//
//   node tests/e2e/run.mjs --tide build/bin/tide --out build/e2e [--web-root web] [--url http://...]
//
// Starts `tide serve` on a free port (or uses --url), opens the page and drives it with real mouse
// events, checking the outcome through the server's /api/state and /api/agents and through the
// canvas pixels. Screenshots go to --out. Exits non-zero on the first failed check.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const kChromium = '/usr/bin/chromium';
const kChromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
const kDeadlineMs = 120_000; // the whole run; normally about 25 s
const kMinFps = 30;
const kManyUnits = 20000;

// The default map (include/tide/default_map.hpp): goal (54, 18), gap x = 14..15, y = 18..21.
const kDefaultGoal = [54, 18];
const kGap = { x0: 14, x1: 15, y0: 18, y1: 21 };
const kDraggedGoal = [24, 2];

// Colours the page draws (web/palette.js, as apps/tide/render.cpp).
const kTerrain = { plain: [222, 226, 189], forest: [46, 112, 58], swamp: [130, 112, 58], wall: [34, 38, 48] };
const kUnits = { moving: [30, 80, 200], arrived: [20, 150, 60], noPath: [120, 120, 128], stuck: [235, 120, 20] };

// ---- Arguments and helpers ---------------------------------------------------------------------

function parseArgs(argv) {
    const opts = { tide: null, out: null, webRoot: null, url: null };
    for (let i = 0; i < argv.length; i++) {
        const key = argv[i], value = argv[i + 1];
        if (key === '--tide') opts.tide = value;
        else if (key === '--out') opts.out = value;
        else if (key === '--web-root') opts.webRoot = value;
        else if (key === '--url') opts.url = value;
        else {
            console.error(`e2e: unknown argument '${key}'`);
            process.exit(2);
        }
        i++;
    }
    if ((!opts.tide && !opts.url) || !opts.out) {
        console.error('usage: node run.mjs --tide PATH/TO/tide --out DIR [--web-root DIR] [--url URL]');
        process.exit(2);
    }
    return opts;
}

class CheckFailed extends Error {}

function check(condition, message) {
    if (!condition) throw new CheckFailed(message);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
const results = [];

function pass(name, detail) {
    results.push({ name, ok: true, detail });
    console.log(`e2e: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

/** Starts `tide serve` and resolves with its base URL once it prints its listening line. */
function startServer(opts, port, output) {
    const args = ['serve', '--port', String(port)];
    if (opts.webRoot) args.push('--web-root', opts.webRoot);
    const child = spawn(opts.tide, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new CheckFailed(`tide serve did not report listening within 10 s:\n${output.join('')}`)), 10_000);
        const onData = (chunk) => {
            output.push(chunk.toString());
            const m = /listening on (http:\/\/\S+?)\/?\s/.exec(output.join(''));
            if (m) {
                clearTimeout(timer);
                resolve(`${m[1]}/`);
            }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code, signal) => {
            clearTimeout(timer);
            reject(new CheckFailed(`tide serve exited (${code ?? signal}) before listening:\n${output.join('')}`));
        });
        child.once('error', (err) => reject(new CheckFailed(`cannot start ${opts.tide}: ${err.message}`)));
    });
    return { child, url };
}

async function getJson(base, route) {
    const response = await fetch(new URL(route, base));
    check(response.ok, `GET ${route} answered ${response.status}`);
    return response.json();
}

/** Polls `probe` (async, returns a truthy value when done) every 200 ms until `ms` passes. */
async function waitFor(probe, ms) {
    const end = performance.now() + ms;
    let last;
    for (;;) {
        last = await probe();
        if (last && last.done) return last;
        if (performance.now() > end) return last;
        await sleep(200);
    }
}

/** Counts canvas pixels of each named colour (exact match). */
async function countColours(page, named) {
    return page.evaluate((named) => {
        const canvas = document.getElementById('canvas');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        const counts = Object.fromEntries(Object.keys(named).map((k) => [k, 0]));
        const entries = Object.entries(named).map(([k, [r, g, b]]) => [k, r | (g << 8) | (b << 16)]);
        for (let i = 0; i < data.length; i += 4) {
            const v = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
            for (const [k, c] of entries) if (v === c) counts[k]++;
        }
        return counts;
    }, named);
}

async function cellPoint(page, x, y) {
    const [cx, cy] = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), [x, y]);
    return { x: cx, y: cy };
}

/** Drags with the left button from cell a to cell b in `steps` mouse moves. */
async function dragCells(page, a, b, steps) {
    const p = await cellPoint(page, a[0], a[1]), q = await cellPoint(page, b[0], b[1]);
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.mouse.move(q.x, q.y, { steps });
    await page.mouse.up();
}

/** Paints column strokes over the gap with the tool whose button id is given. */
async function paintGap(page, toolId) {
    await page.click(toolId);
    await page.$eval('#brush', (el) => {
        el.value = '0';
        el.dispatchEvent(new Event('input'));
    });
    for (let x = kGap.x0; x <= kGap.x1; x++) await dragCells(page, [x, kGap.y0], [x, kGap.y1], 12);
}

const speed = (a, i) => Math.hypot(a.vx[i], a.vy[i]);

// ---- The checks ----------------------------------------------------------------------------------

async function checkLoaded(page, out) {
    await page.waitForFunction(() => window.tide && window.tide.ready, null, { timeout: 15_000 })
        .catch(() => { throw new CheckFailed('page not ready within 15 s (no world, fields or agents frame received)'); });
    const world = await page.evaluate(() => window.tide.world);
    check(world.map === 'default' && world.width === 64 && world.height === 40,
        `expected the default 64x40 map, the page has ${world.map} ${world.width}x${world.height}`);
    // Terrain is faded under the flow arrows: sample its colours with the arrows off.
    await page.uncheck('#toggle-arrows');
    await page.waitForTimeout(300);
    const terrain = await countColours(page, kTerrain);
    await page.check('#toggle-arrows');
    await page.waitForTimeout(500);
    for (const [name, minimum] of Object.entries({ plain: 5000, forest: 300, swamp: 300, wall: 300 })) {
        check(terrain[name] >= minimum, `canvas: ${terrain[name]} ${name} pixels, expected at least ${minimum} (${JSON.stringify(terrain)})`);
    }
    const units = await countColours(page, kUnits);
    const unitPixels = Object.values(units).reduce((a, b) => a + b, 0);
    check(unitPixels >= 100, `canvas: ${unitPixels} unit-coloured pixels, expected at least 100 (${JSON.stringify(units)})`);
    const drawn = await page.evaluate(() => window.tide.agentsDrawn);
    check(drawn > 0, `window.tide.agentsDrawn is ${drawn}`);
    await page.screenshot({ path: path.join(out, '01-loaded.png') });
    pass('page loads and draws the map and units', `${drawn} units drawn, ${unitPixels} unit pixels, ${terrain.plain} plain pixels`);
}

async function checkGoalDrag(page, base, out) {
    const state = await getJson(base, '/api/state');
    check(JSON.stringify(state.goals) === JSON.stringify([kDefaultGoal]),
        `/api/state goals ${JSON.stringify(state.goals)}, expected [[${kDefaultGoal}]]`);
    const before = await getJson(base, '/api/agents?limit=100000');
    await dragCells(page, kDefaultGoal, kDraggedGoal, 25);
    const moved = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: JSON.stringify(s.goals) === JSON.stringify([kDraggedGoal]), goals: s.goals };
    }, 3000);
    check(moved.done, `after dragging the goal to (${kDraggedGoal}), /api/state goals are ${JSON.stringify(moved.goals)}`);
    await page.waitForTimeout(400);
    const after = await getJson(base, '/api/agents?limit=100000');
    let compared = 0, changed = 0;
    for (let i = 0; i < Math.min(before.count, after.count); i++) {
        if (before.state[i] !== 0 || after.state[i] !== 0) continue;
        const a = Math.atan2(before.dvy[i], before.dvx[i]), b = Math.atan2(after.dvy[i], after.dvx[i]);
        if (Math.hypot(before.dvx[i], before.dvy[i]) < 1e-3 || Math.hypot(after.dvx[i], after.dvy[i]) < 1e-3) continue;
        compared++;
        let d = Math.abs(a - b);
        if (d > Math.PI) d = 2 * Math.PI - d;
        if (d > (20 * Math.PI) / 180) changed++;
    }
    check(compared >= 30, `only ${compared} agents were moving before and after the goal drag`);
    check(changed > compared / 2, `the goal drag changed the desired direction of ${changed} of ${compared} moving agents (expected a clear majority)`);
    await page.screenshot({ path: path.join(out, '02-goal-dragged.png') });
    pass('dragging the goal re-steers the crowd', `${changed} of ${compared} moving agents changed direction; goal now (${kDraggedGoal})`);
}

async function checkGoalAddRemove(page, base) {
    // Shift-click adds a second goal (nearest-exit behaviour); a plain click on it removes it.
    const extra = [40, 36];
    const p = await cellPoint(page, extra[0], extra[1]);
    await page.keyboard.down('Shift');
    await page.mouse.click(p.x, p.y);
    await page.keyboard.up('Shift');
    const added = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.goals.length === 2, goals: s.goals };
    }, 3000);
    check(added.done && JSON.stringify(added.goals) === JSON.stringify([kDraggedGoal, extra]),
        `after a shift-click at (${extra}), /api/state goals are ${JSON.stringify(added.goals)}`);
    await page.waitForTimeout(300);
    await page.mouse.click(p.x, p.y);
    const removed = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.goals.length === 1, goals: s.goals };
    }, 3000);
    check(removed.done && JSON.stringify(removed.goals) === JSON.stringify([kDraggedGoal]),
        `after clicking the goal at (${extra}), /api/state goals are ${JSON.stringify(removed.goals)}`);
    pass('shift-click adds a goal and a click removes it', `goals ${JSON.stringify(added.goals)} -> ${JSON.stringify(removed.goals)}`);
}

async function checkGap(page, base, out) {
    const behind = (a, i) => a.x[i] < kGap.x0 - 0.5;
    // Respawn (random cells) so that units stand behind the wall again, then seal straight away.
    const count = (await getJson(base, '/api/state')).stats.agents;
    await page.fill('#spawn-count', String(count));
    await page.click('#spawn');
    await page.waitForTimeout(300);
    await paintGap(page, '#tool-wall');
    const sealed = await waitFor(async () => {
        const a = await getJson(base, '/api/agents?limit=100000');
        let n = 0, noPath = 0, still = 0;
        for (let i = 0; i < a.count; i++) {
            if (!behind(a, i)) continue;
            n++;
            if (a.state[i] === 2) noPath++;
            if (speed(a, i) < 0.05) still++;
        }
        return { done: n > 0 && noPath === n && still === n, n, noPath, still };
    }, 5000);
    check(sealed.n > 0, 'no agents behind the wall (x < 14) to check');
    check(sealed.done, `after sealing the gap, of ${sealed.n} agents behind the wall ${sealed.noPath} have no path (state 2) and ${sealed.still} stand still (expected all)`);
    const sealedCost = await page.evaluate(([x, y]) => window.tide.cell(x, y).cost, [kGap.x0, kGap.y0]);
    check(sealedCost === 255, `the page shows cell (${kGap.x0}, ${kGap.y0}) with cost ${sealedCost}, expected a wall`);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, '03-gap-sealed.png') });
    pass('sealing the gap stops the units behind it', `${sealed.n} agents in state 2, speed < 0.05`);

    await paintGap(page, '#tool-erase');
    const reopened = await waitFor(async () => {
        const a = await getJson(base, '/api/agents?limit=100000');
        let n = 0, moving = 0, noPath = 0;
        for (let i = 0; i < a.count; i++) {
            if (!behind(a, i)) continue;
            n++;
            if (a.state[i] === 0 && speed(a, i) > 0.05) moving++;
            if (a.state[i] === 2) noPath++;
        }
        return { done: n > 0 && noPath === 0 && moving >= 0.8 * n, n, moving, noPath };
    }, 5000);
    check(reopened.done, `after reopening the gap, of ${reopened.n} agents behind the wall ${reopened.moving} move (state 0, speed > 0.05) and ${reopened.noPath} still have no path`);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, '04-gap-reopened.png') });
    pass('reopening the gap sets them moving again', `${reopened.moving} of ${reopened.n} moving`);
}

async function checkBadMap(page, base, out) {
    const before = await getJson(base, '/api/state');
    const text = 'tide-map 1\nwidth 3\nheight 2\nmap\n...\n..\n';
    await page.setInputFiles('#map-file', { name: 'bad.tmap', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.waitForSelector('#error-box:not([hidden])', { timeout: 5000 })
        .catch(() => { throw new CheckFailed('#error-box did not appear after loading a malformed map'); });
    const shown = (await page.textContent('#error-text')).trim();
    check(/bad\.tmap:\d+:/.test(shown), `#error-box shows '${shown}', expected the parser's 'bad.tmap:LINE: ...' message`);
    const visible = await page.isVisible('#error-box');
    check(visible, '#error-box is not visible');
    const after = await getJson(base, '/api/state');
    check(after.map === before.map && after.width === before.width && after.height === before.height,
        `the world changed after a refused map: ${before.map} ${before.width}x${before.height} -> ${after.map} ${after.width}x${after.height}`);
    await page.screenshot({ path: path.join(out, '05-bad-map.png') });
    pass('a malformed map file shows the parser error and changes nothing', shown.replace(/\s+/g, ' '));
}

async function checkFrameRate(page, out) {
    await page.fill('#spawn-count', String(kManyUnits));
    await page.click('#spawn');
    const spawned = await page.waitForFunction((n) => window.tide.stats && window.tide.stats.agents === n &&
        window.tide.agentsDrawn >= n * 0.99, kManyUnits, { timeout: 10_000 }).then(() => true, () => false);
    const seen = await page.evaluate(() => [window.tide.stats && window.tide.stats.agents, window.tide.agentsDrawn]);
    check(spawned, `after respawning ${kManyUnits}, stats report ${seen[0]} agents and the page draws ${seen[1]}`);
    await page.waitForTimeout(2000);
    const m = await page.evaluate(() => new Promise((resolve) => {
        let frames = 0, worst = 0, last = 0, start = 0;
        const tick = (t) => {
            if (!start) {
                start = last = t;
            } else {
                frames++;
                worst = Math.max(worst, t - last);
                last = t;
            }
            if (t - start < 5000) requestAnimationFrame(tick);
            else resolve({ fps: (frames * 1000) / (t - start), worst, drawn: window.tide.agentsDrawn, framesIn: window.tide.framesPerSecond });
        };
        requestAnimationFrame(tick);
    }));
    console.log(`e2e: fps with ${kManyUnits} units: ${m.fps.toFixed(1)} (slowest frame ${m.worst.toFixed(0)} ms, ` +
        `${m.drawn} drawn, ${m.framesIn.toFixed(0)} agents frames/s received)`);
    await page.screenshot({ path: path.join(out, '06-20000-units.png') });
    check(m.fps >= kMinFps, `${m.fps.toFixed(1)} fps with ${kManyUnits} units, expected at least ${kMinFps}`);
    pass(`${kManyUnits} units render at >= ${kMinFps} fps`, `${m.fps.toFixed(1)} fps`);
}

// ---- Main ----------------------------------------------------------------------------------------

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const out = path.resolve(opts.out);
    mkdirSync(out, { recursive: true });
    const userData = mkdtempSync(path.join(tmpdir(), 'tide-e2e-'));
    const serverOutput = [];
    const pageErrors = [];
    let server = null, context = null, failed = false;
    const deadline = setTimeout(() => {
        console.log(`e2e: FAIL the run took longer than ${kDeadlineMs / 1000} s`);
        cleanup().finally(() => process.exit(1));
    }, kDeadlineMs);

    async function cleanup() {
        if (context) await context.close().catch(() => {});
        context = null;
        if (server && server.exitCode === null && server.signalCode === null) {
            server.kill('SIGTERM');
            const exited = await Promise.race([new Promise((r) => server.once('exit', () => r(true))), sleep(2000).then(() => false)]);
            if (!exited) server.kill('SIGKILL');
        }
        rmSync(userData, { recursive: true, force: true });
    }
    for (const signal of ['SIGINT', 'SIGTERM']) {
        process.once(signal, () => cleanup().finally(() => process.exit(130)));
    }

    try {
        let base = opts.url;
        if (!base) {
            const started = startServer(opts, 0, serverOutput)  // port 0: the server picks a free one and prints it;
            server = started.child;
            base = await started.url;
        }
        console.log(`e2e: server ${base} [${elapsed()}]`);
        context = await chromium.launchPersistentContext(userData, {
            executablePath: kChromium,
            headless: true,
            args: kChromiumArgs,
            viewport: { width: 1280, height: 800 },
        });
        const page = context.pages()[0] || (await context.newPage());
        page.on('pageerror', (err) => pageErrors.push(err.message));
        page.on('console', (msg) => {
            if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
        });
        await page.goto(base);

        await checkLoaded(page, out);
        await checkGoalDrag(page, base, out);
        await checkGoalAddRemove(page, base);
        await checkGap(page, base, out);
        await checkBadMap(page, base, out);
        await checkFrameRate(page, out);
        const jsErrors = pageErrors.filter((e) => !/the server responded with a status of 400/.test(e));
        check(jsErrors.length === 0, `the page reported errors:\n  ${jsErrors.join('\n  ')}`);
        pass('no script errors on the page');
    } catch (err) {
        failed = true;
        console.log(`e2e: FAIL ${err instanceof CheckFailed ? err.message : err.stack || err}`);
        if (context) {
            const page = context.pages()[0];
            if (page) await page.screenshot({ path: path.join(out, 'failure.png') }).catch(() => {});
        }
        if (pageErrors.length) console.log(`e2e: page errors:\n  ${pageErrors.join('\n  ')}`);
        if (serverOutput.length) console.log(`e2e: server output:\n${serverOutput.join('').trimEnd()}`);
    } finally {
        clearTimeout(deadline);
        await cleanup();
    }
    const passed = results.filter((r) => r.ok).length;
    console.log(`e2e: ${failed ? 'FAILED' : 'ok'}: ${passed} checks passed${failed ? ', 1 failed' : ''} in ${elapsed()}; screenshots in ${out}`);
    process.exit(failed ? 1 : 0);
}

main();
