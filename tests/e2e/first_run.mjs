// End-to-end test of the demo's first five minutes, in headless Chromium:
//
//   node tests/e2e/first_run.mjs --tide build/bin/tide --out build/e2e-first-run
//
// On the default map with 300 units, at 1280x800: the first-run hint shows (naming the gap in the
// left wall), and goes once a goal is moved; the Groups rows and the Live figures are on screen
// without scrolling the panel; the help overlay opens with ? and closes with Esc; the colour bar shows while the heat
// map is on (with the field's largest value), and the values toggle says "zoom in"; 100,000 units
// are refused with the map's room and a suggested count; a goal dragged onto a wall is snapped to
// the nearest open cell with a note; the A* comparison shows its numbers and paths; an Alt+click
// inspects a unit; an uploaded map can be picked again after switching away; the Download .tmap
// link of a painted map gives the text /api/map.tmap gives, and that file loads back identical;
// the hint on an uploaded map says what to try in general words, and names the gap again on the
// default map; the page offers the six presets (not the baselines), each loads and its crowd moves; at 390x844 the panel is a drawer over a
// full-size map, a pinch zooms and a touch drag pans; a page opened on a settled crowd respawns it;
// on a slow link shift+right-click still adds a goal to the order just given.
// Screenshots: first-run.png, help.png, heat.png, goal-snapped.png, astar.png, inspect.png,
// hint-other-map.png, scenario-*.png, narrow.png, narrow-drawer.png.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { check, getJson, runBrowserScript, sleep, waitFor } from './lib.mjs';

const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
let passed = 0;

function pass(name, detail) {
    passed++;
    console.log(`e2e-first-run: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

function parseArgs(argv) {
    const opts = { tide: null, out: null, webRoot: null };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i], value = argv[i + 1];
        if (key === '--tide') opts.tide = value;
        else if (key === '--out') opts.out = value;
        else if (key === '--web-root') opts.webRoot = value;
        else {
            console.error(`e2e-first-run: unknown argument '${key}'`);
            process.exit(2);
        }
    }
    if (!opts.tide || !opts.out) {
        console.error('usage: node first_run.mjs --tide PATH/TO/tide --out DIR [--web-root DIR]');
        process.exit(2);
    }
    return opts;
}

const visible = (page, id) => page.evaluate((id) => {
    const e = document.getElementById(id);
    return !!e && !e.hidden && e.getClientRects().length > 0;
}, id);

async function waitMap(base, name, ms = 20_000) {
    const r = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.map === name, s };
    }, ms);
    check(r.done, `the world did not switch to ${name} (it is on ${r.s && r.s.map})`);
    return r.s;
}

async function getText(base, route) {
    const response = await fetch(new URL(route, base));
    check(response.ok, `GET ${route} answered ${response.status}`);
    return response.text();
}

/** Mean distance the first `n` units moved between two /api/agents answers. */
function meanMove(a, b) {
    const n = Math.min(a.count, b.count);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.hypot(a.x[i] - b.x[i], a.y[i] - b.y[i]);
    return n ? sum / n : 0;
}

async function firstRunAndHelp(page, out) {
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.agentsDrawn > 0, null, { timeout: 15_000 });
    await page.waitForFunction(() => window.tide.hintShown(), null, { timeout: 5000 });
    const hint = await page.textContent('#hint-text');
    check(/drag the G/.test(hint) && /paint a wall/.test(hint) && /right-click/.test(hint), `the hint reads "${hint}"`);
    check(/gap in the left wall/.test(hint), `on the default map the hint does not name its gap: "${hint}"`);
    await page.screenshot({ path: path.join(out, 'first-run.png') });
    pass('the first-run hint shows what to try');

    // At 1280x800 the Groups rows and the Live figures are on screen without scrolling the panel.
    const layout = await page.evaluate(() => {
        const bottom = (id) => document.getElementById(id).getBoundingClientRect().bottom;
        return { height: window.innerHeight, scrolled: document.getElementById('panel').scrollTop, groups: bottom('groups'),
            states: bottom('stat-stuck'), live: bottom('live'), rows: window.tide.groupRows().length };
    });
    check(layout.scrolled === 0 && layout.rows === 1 && layout.groups <= layout.height && layout.states <= layout.height &&
        layout.live <= layout.height, `at 1280x800 the live figures are off screen: ${JSON.stringify(layout)}`);
    pass('the Groups rows and the Live figures are visible without scrolling', JSON.stringify(layout));

    await page.keyboard.press('?');
    await page.waitForFunction(() => !document.getElementById('help').hidden, null, { timeout: 3000 });
    const help = await page.textContent('#help');
    for (const key of ['Wall, Forest, Swamp, Erase', 'pause', 'fit the map', 'Space', 'Tower', 'Danger', 'sectors', 'long-press, then drag']) {
        check(help.includes(key), `the help overlay does not mention "${key}"`);
    }
    await page.screenshot({ path: path.join(out, 'help.png') });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.getElementById('help').hidden, null, { timeout: 3000 });
    await page.click('#help-open');
    await page.waitForFunction(() => !document.getElementById('help').hidden, null, { timeout: 3000 });
    await page.click('#help-close');
    await page.waitForFunction(() => document.getElementById('help').hidden, null, { timeout: 3000 });
    pass('the help overlay opens (? and the ? button) and closes (Esc and ×)');
}

async function legends(page, out) {
    check(!(await visible(page, 'colour-bar')), 'the colour bar shows while the heat map is off');
    const note = await page.textContent('#numbers-note');
    check(note.includes('zoom in to see values'), `at Fit zoom the values toggle says "${note}"`);
    await page.click('#toggle-heat');
    await page.waitForFunction(() => !document.getElementById('colour-bar').hidden, null, { timeout: 3000 });
    const max = Number(await page.textContent('#cb-max'));
    const expected = await page.evaluate(() => {
        let m = 0;
        for (let y = 0; y < window.tide.world.height; y++) {
            for (let x = 0; x < window.tide.world.width; x++) {
                const v = window.tide.cell(x, y).integration;
                if (Number.isFinite(v)) m = Math.max(m, v);
            }
        }
        return m;
    });
    check(max > 0 && Math.abs(max - expected) <= Math.max(0.11, expected * 0.01), `the colour bar's max is ${max}, the field's largest value ${expected}`);
    check((await page.textContent('#colour-bar')).includes('unreachable'), 'the colour bar has no unreachable key');
    await page.screenshot({ path: path.join(out, 'heat.png') });
    await page.click('#toggle-heat');
    await page.waitForFunction(() => document.getElementById('colour-bar').hidden, null, { timeout: 3000 });
    pass('the colour bar shows while the heat map is on', `0..${max}`);
}

async function unitLimit(page, base) {
    const before = (await getJson(base, '/api/state')).stats.agents;
    await page.fill('#spawn-count', '100000');
    await page.click('#spawn');
    await page.waitForFunction(() => !document.getElementById('spawn-note').hidden, null, { timeout: 3000 });
    const note = await page.textContent('#spawn-note');
    const room = await page.evaluate(() => window.tide.world.max_units);
    check(/do not fit/.test(note) && note.includes(room.toLocaleString('en-US')) && /Try [\d,]+/.test(note),
        `the note for 100,000 units reads "${note}" (room ${room})`);
    await sleep(300);
    check((await getJson(base, '/api/state')).stats.agents === before, 'the over-large count was sent anyway');
    await page.fill('#spawn-count', String(before));
    pass('an over-large unit count gets its message', note);
}

async function goalOnWall(page, base, out) {
    const goal = (await getJson(base, '/api/state')).goals[0];
    // The wall cell nearest the goal.
    const wall = await page.evaluate(([gx, gy]) => {
        let best = null, bestD = Infinity;
        for (let y = 0; y < window.tide.world.height; y++) {
            for (let x = 0; x < window.tide.world.width; x++) {
                if (window.tide.cell(x, y).cost !== 255) continue;
                const d = Math.hypot(x - gx, y - gy);
                if (d < bestD && d >= 3) [best, bestD] = [[x, y], d];
            }
        }
        return best;
    }, goal);
    check(wall, 'no wall cell on the default map');
    const from = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), goal);
    const to = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), wall);
    await page.mouse.move(from[0], from[1]);
    await page.mouse.down();
    await page.mouse.move(to[0], to[1], { steps: 8 });
    await page.mouse.up();
    await page.waitForFunction(() => window.tide.lastSnapped, null, { timeout: 5000 });
    const snapped = await page.evaluate(() => window.tide.lastSnapped);
    check(JSON.stringify(snapped.moves[0].from) === JSON.stringify(wall), `snapped ${JSON.stringify(snapped)}, dropped on ${wall}`);
    const toast = await page.textContent('#toast');
    check(toast.includes('nearest open cell'), `the note reads "${toast}"`);
    const landed = snapped.moves[0].to;
    const st = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: JSON.stringify(s.goals) === JSON.stringify([landed]), s };
    }, 5000);
    check(st.done, `the goals are ${JSON.stringify(st.s.goals)}, expected [${landed}]`);
    check((await page.evaluate(([x, y]) => window.tide.cell(x, y).cost, landed)) !== 255, 'the snapped goal is on a wall');
    await page.screenshot({ path: path.join(out, 'goal-snapped.png') });
    pass('a goal dropped on a wall snaps to the nearest open cell with a note', `${wall} -> ${landed}`);
    await page.waitForFunction(() => !window.tide.hintShown(), null, { timeout: 3000 });
    pass('the first-run hint goes once the user moved a goal');
}

async function comparison(page, base, out) {
    await page.click('#astar-compare');
    await page.waitForFunction(() => window.tide.lastAstar && document.getElementById('astar-all'), null, { timeout: 10_000 });
    const a = await page.evaluate(() => window.tide.lastAstar);
    const text = await page.textContent('#astar-box');
    check(a.astar_ms_all > 0 && a.field_ms > 0 && /\d/.test(await page.textContent('#astar-all')), `the comparison reads "${text}"`);
    check(a.paths.length > 0, 'the comparison has no A* paths to draw');
    await page.screenshot({ path: path.join(out, 'astar.png') });
    pass('the A* comparison shows its numbers', text.slice(0, 160));

    const u = await getJson(base, '/api/agents?limit=1');
    const at = await page.evaluate(([x, y]) => window.tide.positionToClient(x, y), [u.x[0], u.y[0]]);
    await page.keyboard.down('Alt');
    await page.mouse.click(at[0], at[1]);
    await page.keyboard.up('Alt');
    await page.waitForFunction(() => !document.getElementById('inspect-box').hidden, null, { timeout: 5000 });
    const box = await page.textContent('#inspect-box');
    for (const k of ['state', 'speed', 'desired', 'cost to go', 'neighbours']) check(box.includes(k), `the inspect box lacks ${k}: "${box}"`);
    await page.screenshot({ path: path.join(out, 'inspect.png') });
    await page.click('#inspect-close');
    await page.click('#astar-clear');
    pass('an Alt+click inspects a unit');
}

const kUpload = 'type octile\nheight 12\nwidth 20\nmap\n' +
    Array.from({ length: 12 }, (_, y) => (y === 0 || y === 11 ? '@'.repeat(20) : `@${y === 5 ? '.'.repeat(18) : '.'.repeat(8) + '@@' + '.'.repeat(8)}@`)).join('\n') + '\n';

async function maps(page, base, out) {
    await page.setInputFiles('#map-file', { name: 'corridor.map', mimeType: 'text/plain', buffer: Buffer.from(kUpload) });
    await waitMap(base, 'corridor.map');
    await page.waitForFunction(() => window.tide.world && window.tide.world.map === 'corridor.map', null, { timeout: 5000 });
    await page.selectOption('#map-select', 'default');
    await waitMap(base, 'default');
    await page.waitForFunction(() => window.tide.world.map === 'default', null, { timeout: 5000 });
    const option = await page.evaluate(() => {
        const o = [...document.getElementById('map-select').options].find((x) => x.value === 'upload:corridor.map');
        return o ? { disabled: o.disabled, label: o.textContent } : null;
    });
    check(option && !option.disabled, `the uploaded map in the list: ${JSON.stringify(option)}`);
    await page.selectOption('#map-select', 'upload:corridor.map');
    await waitMap(base, 'corridor.map');
    pass('an uploaded map can be selected again after switching away');

    // Paint, then download: the link's file is the API's text, and it loads back identical.
    const plain = await getText(base, '/api/map.tmap');
    await page.evaluate(() => window.tide.send({ type: 'paint', x: 3, y: 3, radius: 1, terrain: 'swamp' }));
    const painted = await waitFor(async () => {
        const t = await getText(base, '/api/map.tmap');
        return { done: t !== plain, t };
    }, 5000);
    check(painted.done, 'the painted swamp did not reach /api/map.tmap');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#map-download')]);
    check(download.suggestedFilename() === 'corridor.tmap', `the download is named ${download.suggestedFilename()}`);
    const file = readFileSync(await download.path(), 'utf8');
    check(file === painted.t, 'the downloaded .tmap differs from /api/map.tmap');
    const posted = await fetch(new URL('/api/map?name=roundtrip.tmap', base), { method: 'POST', body: file });
    check(posted.ok, `uploading the downloaded .tmap answered ${posted.status}`);
    await waitMap(base, 'roundtrip.tmap');
    check((await getText(base, '/api/map.tmap')) === file, 'the .tmap loaded back is not identical');
    pass('the downloaded .tmap of a painted map loads back identical', `${file.length} bytes`);
}

/**
 * The first-run hint names the gap in the left wall only where there is one: on an uploaded map it
 * says the same in general words, and it names the gap once the default map is loaded.
 */
async function hintOnOtherMaps(context, base, out) {
    const page = await context.newPage();
    await page.goto(base);
    await page.evaluate(() => localStorage.removeItem('tide.firstRunHintDone'));
    await page.reload();
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.hintShown(), null, { timeout: 10_000 });
    const map = await page.evaluate(() => window.tide.world.map);
    const generic = await page.evaluate(() => window.tide.hintText());
    check(map !== 'default' && /paint a wall/.test(generic) && !/gap/.test(generic), `on ${map} the hint reads "${generic}"`);
    await page.screenshot({ path: path.join(out, 'hint-other-map.png') });
    await page.evaluate(() => window.tide.send({ type: 'load_map', name: 'default' }));
    await page.waitForFunction(() => /gap in the left wall/.test(window.tide.hintText()), null, { timeout: 10_000 });
    await page.click('#hint-close');
    await page.close();
    pass('the first-run hint names the gap only on the default map', `${map}: "${generic}"`);
}

async function scenarios(page, base, out) {
    // The page offers the presets of issue 34 and not the baselines tide sim measures against.
    const offered = await page.evaluate(() => [...document.querySelectorAll('[data-scenario]')].map((b) => b.dataset.scenario));
    // (Tower defense starts with no units, its waves come later: e2e_crowds_meet plays it.)
    const want = ['door', 'counter_flow', 'gap_swap', 'goal_beside_gap', 'evacuation', 'maze'];
    check(JSON.stringify(offered) === JSON.stringify([...want, 'tower_defense']), `the scenario buttons are ${offered}`);
    const names = await page.evaluate(() => window.tide.world.scenarios);
    check(want.every((n) => names.includes(n)), `the world message lists the scenarios ${names}`);
    for (const name of want) {
        await page.click(`[data-scenario="${name}"]`);
        const s = await waitMap(base, `scenario:${name}`);
        check(s.stats.agents > 0, `scenario ${name} has no units`);
        if (name === 'counter_flow' || name === 'gap_swap') check(s.groups.length === 2, `${name} has ${s.groups.length} groups`);
        if (name === 'evacuation') check(s.groups[0].goals.length === 4 && s.groups[0].exit, `evacuation: ${JSON.stringify(s.groups[0])}`);
        const a = await getJson(base, '/api/agents?limit=400');
        const moved = await waitFor(async () => {
            const b = await getJson(base, '/api/agents?limit=400');
            const m = meanMove(a, b);
            return { done: m >= 0.5, m };
        }, 15_000);
        check(moved.done, `the ${name} crowd moved ${moved.m.toFixed(2)} cells on average`);
        if (name !== 'maze') {
            await page.waitForFunction(() => window.tide.agentsDrawn > 0, null, { timeout: 5000 });
            await page.screenshot({ path: path.join(out, `scenario-${name}.png`) });
        }
        pass(`scenario ${name} loads and its crowd moves`, `${s.stats.agents} units, ${moved.m.toFixed(1)} cells`);
    }
    // The maze's cells are under 8 px at Fit zoom: dragging its goal shows the magnifier.
    const goal = (await getJson(base, '/api/state')).goals[0];
    const [gx, gy] = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), goal);
    check(await page.evaluate(() => window.tide.scale() < 8), 'the maze is drawn with cells of 8 px or more');
    await page.mouse.move(gx, gy);
    await page.mouse.down();
    await page.mouse.move(gx - 20, gy - 20, { steps: 4 });
    await page.waitForFunction(() => window.tide.lensShown(), null, { timeout: 3000 });
    await page.screenshot({ path: path.join(out, 'magnifier.png') });
    await page.mouse.up();
    await page.waitForFunction(() => !window.tide.lensShown(), null, { timeout: 3000 });
    pass('dragging a goal on small cells shows the magnifier');
}

async function narrow(page, base, out) {
    await page.selectOption('#map-select', 'default');
    await waitMap(base, 'default');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => window.tide.ready && window.tide.agentsDrawn > 0, null, { timeout: 10_000 });
    // The panel slides out as the window narrows (a short transition).
    await page.waitForFunction(() => document.getElementById('panel').getBoundingClientRect().right <= 1, null, { timeout: 3000 })
        .catch(() => {});
    const layout = await page.evaluate(() => {
        const p = document.getElementById('panel').getBoundingClientRect();
        const c = document.getElementById('canvas').getBoundingClientRect();
        return { panelRight: p.right, canvasW: c.width, canvasH: c.height };
    });
    check(layout.panelRight <= 1 && layout.canvasW >= 380 && layout.canvasH >= 800, `at 390x844: ${JSON.stringify(layout)}`);
    await sleep(300);
    await page.screenshot({ path: path.join(out, 'narrow.png') });
    await page.click('#drawer-toggle');
    await page.waitForFunction(() => document.getElementById('panel').getBoundingClientRect().left >= -1, null, { timeout: 3000 });
    await sleep(300);
    await page.screenshot({ path: path.join(out, 'narrow-drawer.png') });
    await page.mouse.click(370, 420);
    await page.waitForFunction(() => document.getElementById('panel').getBoundingClientRect().right <= 1, null, { timeout: 3000 });
    pass('at 390x844 the panel is a drawer over a full-size map', JSON.stringify(layout));

    // Touch: a two-finger pinch zooms in, a one-finger drag pans (the Select tool).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 });
    const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });
    const scale0 = await page.evaluate(() => window.tide.scale());
    await touch('touchStart', [[160, 420], [230, 420]]);
    for (let k = 1; k <= 6; k++) await touch('touchMove', [[160 - 12 * k, 420], [230 + 12 * k, 420]]);
    await touch('touchEnd', []);
    const scale1 = await page.evaluate(() => window.tide.scale());
    check(scale1 > scale0 * 1.5, `a pinch took the scale from ${scale0} to ${scale1}`);
    const corner0 = await page.evaluate(() => window.tide.positionToClient(0, 0));
    await touch('touchStart', [[200, 500]]);
    for (let k = 1; k <= 5; k++) await touch('touchMove', [[200 + 10 * k, 500 + 6 * k]]);
    await touch('touchEnd', []);
    const corner1 = await page.evaluate(() => window.tide.positionToClient(0, 0));
    check(Math.abs(corner1[0] - corner0[0] - 50) < 2 && Math.abs(corner1[1] - corner0[1] - 30) < 2,
        `a touch drag moved the map from ${corner0} to ${corner1}`);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await cdp.detach();
    pass('pinch zooms and a touch drag pans', `scale ${scale0.toFixed(2)} -> ${scale1.toFixed(2)}`);
    await page.evaluate(() => document.getElementById('fit').click());
    await page.setViewportSize({ width: 1280, height: 800 });
}

async function settledRespawn(context, base) {
    // A small, fast crowd arrives; a page opened then respawns it (and no hint: it was dismissed).
    const page = context.pages()[0];
    await page.evaluate(() => {
        window.tide.send({ type: 'params', speed: 20 });
        window.tide.send({ type: 'spawn', count: 40 });
    });
    const arrived = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.stats.agents === 40 && s.stats.arrived >= 37, s };
    }, 30_000);
    check(arrived.done, `the 40 units did not arrive: ${JSON.stringify(arrived.s.stats)}`);
    // Slow again, so that the respawned crowd is seen flowing (not arriving at once).
    await page.evaluate(() => window.tide.send({ type: 'params', speed: 3 }));
    const second = await context.newPage();
    await second.goto(base);
    await second.waitForFunction(() => window.tide && window.tide.stats, null, { timeout: 10_000 });
    await second.waitForFunction(() => window.tide.firstRunRespawn, null, { timeout: 3000 });
    const flowing = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.stats.arrived < 30, s };
    }, 3000);
    check(flowing.done, `after the respawn ${flowing.s.stats.arrived} of 40 units are still arrived`);
    check(!(await second.evaluate(() => window.tide.hintShown())), 'the hint came back after it was dismissed');
    await second.close();
    pass('a page opened on a settled crowd respawns it; a dismissed hint stays away');
}

/**
 * A slow link (every server message 1.5 s late, in order): Esc, a new box selection and a
 * right-click order go out before the answers to the first two come back, then shift+right-click
 * adds a goal to that order. The late answer clearing the old selection must not count as a new
 * selection (it did: the shift+right-click then sent a fresh order of one goal).
 */
async function slowLinkOrder(context, base, out) {
    const page = await context.newPage();
    let delay = 0;
    await page.routeWebSocket(/\/ws$/, (ws) => {
        const server = ws.connectToServer();
        ws.onMessage((m) => server.send(m));
        server.onMessage((m) => (delay ? setTimeout(() => ws.send(m), delay) : ws.send(m)));
    });
    await page.goto(base);
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.agentsDrawn > 0, null, { timeout: 10_000 });
    await page.evaluate(() => window.tide.send({ type: 'pause', paused: true }));
    // Open cells near four spots of the default map (the nearest by growing squares).
    const open = await page.evaluate(() => [[20, 30], [40, 6], [30, 36], [50, 30]].map(([x0, y0]) => {
        for (let r = 0; r < 8; r++) {
            for (let dy = -r; dy <= r; dy++) {
                for (let dx = -r; dx <= r; dx++) {
                    const c = window.tide.cell(x0 + dx, y0 + dy).cost;
                    if (c > 0 && c !== 255) return [x0 + dx, y0 + dy];
                }
            }
        }
        return null;
    }));
    check(open.every(Boolean), `open cells for the orders: ${JSON.stringify(open)}`);
    const client = (c) => page.evaluate(([x, y]) => window.tide.cellToClient(x, y), c);
    const boxAll = async () => {
        const [x0, y0] = await page.evaluate(() => window.tide.positionToClient(0.2, 0.2));
        const [x1, y1] = await page.evaluate(() => window.tide.positionToClient(63.8, 39.8));
        await page.mouse.move(x0, y0);
        await page.mouse.down();
        await page.mouse.move(x1, y1, { steps: 4 });
        await page.mouse.up();
    };
    const rightClick = async (c, shift = false) => {
        const [x, y] = await client(c);
        if (shift) await page.keyboard.down('Shift');
        await page.mouse.click(x, y, { button: 'right' });
        if (shift) await page.keyboard.up('Shift');
    };
    await boxAll();
    await page.waitForFunction(() => window.tide.selectionCount() > 0, null, { timeout: 5000 });
    await rightClick(open[0]);
    await page.waitForFunction(() => window.tide.lastOrdered, null, { timeout: 5000 });
    delay = 1500;
    await page.keyboard.press('Escape');
    await boxAll();
    await rightClick(open[2]);
    await page.evaluate(() => { window.tide.lastOrdered = null; });
    await sleep(2500); // every late answer is in
    delay = 0;
    await page.evaluate(() => { window.tide.lastOrdered = null; });
    await rightClick(open[3], true);
    await page.waitForFunction(() => window.tide.lastOrdered, null, { timeout: 5000 });
    const last = await page.evaluate(() => window.tide.lastOrdered);
    const group = (await getJson(base, '/api/state')).groups.find((g) => g.id === last.group);
    const want = [open[2], open[3]].sort((p, q) => p[1] - q[1] || p[0] - q[0]);
    check(group && JSON.stringify(group.goals) === JSON.stringify(want),
        `on a slow link, shift+right-click after an order made group ${last.group} with goals ${JSON.stringify(group && group.goals)}, expected ${JSON.stringify(want)}`);
    await page.evaluate(() => window.tide.send({ type: 'pause', paused: false }));
    await page.close();
    pass('on a slow link, shift+right-click still adds a goal to the order just given', JSON.stringify(want));
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    await runBrowserScript({
        tag: 'e2e-first-run', opts, deadlineMs: 170_000, serverArgs: ['--agents', '300'],
        contextOptions: { acceptDownloads: true }, pass,
        summary: () => `${passed} checks passed in ${elapsed()}`,
        body: async ({ page, context, base, out }) => {
            await page.goto(base);
            await firstRunAndHelp(page, out);
            await legends(page, out);
            await unitLimit(page, base);
            await goalOnWall(page, base, out);
            await comparison(page, base, out);
            await maps(page, base, out);
            await hintOnOtherMaps(context, base, out);
            await scenarios(page, base, out);
            await narrow(page, base, out);
            await settledRespawn(context, base);
            await slowLinkOrder(context, base, out);
        },
    });
}

main();
