// End-to-end test of the demo on a map that plans hierarchically, in headless Chromium:
//
//   node tests/e2e/hierarchy.mjs --tide build/bin/tide --out build/e2e-hierarchy [--huge] [--seconds S]
//
// By default the 256x256 benchmark map is forced to plan hierarchically (`--hierarchy-cells 0
// --sector-size 32`), so the run takes seconds; `--huge` serves the built-in 4096x4096 map with the
// default settings instead (its sector graph takes several seconds to build). Checks: the page
// says the map is hierarchical (the Sectors toggle on; the Tower tool on, as on flat maps); the O key turns the
// sector overlay on, the sectors frame (portals) and sector fields frame (sectors with a field)
// arrive and the canvas shows the portals; units spawned in one corner move toward the goal and
// only the sectors on their way have fields; an order makes a new plan whose sectors the page
// shows; a wall painted changes the graph (a new sectors frame). Screenshots go to --out
// (`hierarchy.png`: the overlay after the units moved for --seconds; with --huge also
// `hierarchy-zoom.png`, zoomed in on the units with the portals drawn).

import path from 'node:path';

import { check, countColours, getJson, nextFrames, runBrowserScript, sleep, waitFor } from './lib.mjs';

const kPortal = [255, 140, 0]; // web/view.js drawSectors
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
let passed = 0;

function pass(name, detail) {
    passed++;
    console.log(`e2e-hierarchy: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

function parseArgs(argv) {
    const opts = { tide: null, out: null, webRoot: null, huge: false, seconds: 3 };
    for (let i = 0; i < argv.length; i++) {
        const key = argv[i];
        if (key === '--huge') {
            opts.huge = true;
            continue;
        }
        const value = argv[++i];
        if (key === '--tide') opts.tide = value;
        else if (key === '--out') opts.out = value;
        else if (key === '--web-root') opts.webRoot = value;
        else if (key === '--seconds') opts.seconds = Number(value);
        else {
            console.error(`e2e-hierarchy: unknown argument '${key}'`);
            process.exit(2);
        }
    }
    if (!opts.tide || !opts.out || !(opts.seconds >= 0)) {
        console.error('usage: node hierarchy.mjs --tide PATH/TO/tide --out DIR [--huge] [--seconds S] [--web-root DIR]');
        process.exit(2);
    }
    return opts;
}

const mean = (v) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
/** Mean distance of the units (an /api/agents answer) to cell `c`. */
const meanDistance = (a, c) => mean(Array.from({ length: a.count }, (_, i) => Math.hypot(a.x[i] - c[0] - 0.5, a.y[i] - c[1] - 0.5)));

/** Waits for the page's sector overlay to satisfy `test(summary)`; returns the last summary. */
async function waitSectors(page, test, ms, what) {
    const last = await waitFor(async () => {
        const s = await page.evaluate(() => window.tide.sectors());
        return { done: !!s && test(s), s };
    }, ms);
    check(last.done, `${what}: the page's sector overlay is ${JSON.stringify(last.s && { ...last.s, builtIds: last.s.builtIds.length })}`);
    return last.s;
}

async function run(page, base, opts, out) {
    const timeout = opts.huge ? 30_000 : 5000;
    await page.waitForFunction(() => window.tide && window.tide.ready, null, { timeout });
    const world = await page.evaluate(() => window.tide.world);
    check(world.planner === 'hierarchical', `the world message says planner '${world.planner}'`);
    check(!(await page.isDisabled('#tool-tower')), 'the Tower tool is disabled on a hierarchical map (towers are checked there too)');
    check(!(await page.isDisabled('#toggle-sectors')), 'the Sectors toggle is disabled on a hierarchical map');
    const stride = world.field_stride;
    check(opts.huge ? stride === 4 : stride === 1, `fields frames sample every ${stride} cells`);
    pass('the page shows a hierarchical map', `${world.width}x${world.height}, sectors of ${world.sector_size}, field stride ${stride}`);

    // Wall margins and congestion are flat-map settings: the server refuses them here, and their
    // boxes go back to what the groups plan with.
    for (const [id, refusal] of [['toggle-margin', /wall margins are not available/], ['toggle-congestion', /congestion is not available/]]) {
        check(!(await page.isChecked(`#${id}`)), `#${id} is ticked on a hierarchical map before any click`);
        await page.evaluate(() => { window.tide.lastError = null; });
        await page.click(`#${id}`);
        await page.waitForFunction((re) => new RegExp(re).test(window.tide.lastError || ''), refusal.source, { timeout });
        await page.waitForFunction((id) => !document.getElementById(id).checked, id, { timeout: 3000 })
            .catch(() => check(false, `#${id} stayed ticked after the server refused it: ${refusal}`));
    }
    const params = (await getJson(base, '/api/state')).params;
    check(params.wall_margin[0] === 0 && params.congestion === false, `/api/state params ${JSON.stringify(params)}`);
    pass('the wall-margin and congestion boxes untick when the server refuses them on a hierarchical map');

    // Units in one corner (the huge map starts them there), so that only the sectors on their way get fields.
    const goal = world.goals[0];
    if (!opts.huge) {
        tideSend(page, { type: 'spawn', count: 300, area: [0, 0, 47, 47] });
        await waitFor(async () => ({ done: (await getJson(base, '/api/agents?limit=0')).total === 300 }), 3000);
    }
    await page.keyboard.press('KeyO');
    check(await page.evaluate(() => window.tide.showSectors()), 'the O key did not turn the sector overlay on');
    const first = await waitSectors(page, (s) => s.portals > 0 && s.built > 0 && s.sectorSize === world.sector_size,
        timeout, 'after O');
    check(first.built < first.sectorCount, `every sector (${first.built}) has a field: expected only those on the units' way`);
    if (opts.huge) {
        // At fit a sector is a few pixels: the overlay draws portals only once zoomed in.
        // Zoom in where a sector with a field borders one without (the edge of the units' route).
        const p = await page.evaluate(() => {
            const s = window.tide.sectors(), w = window.tide.world, n = s.sectorSize, across = Math.ceil(w.width / n);
            const built = new Set(s.builtIds);
            const edge = s.builtIds.find((id) => id % across < across - 1 && !built.has(id + 1)) ?? s.builtIds[0];
            return window.tide.cellToClient((edge % across + 1) * n, Math.floor(edge / across) * n + n / 2);
        });
        await page.mouse.move(p[0], p[1]);
        for (let k = 0; k < 40 && (await page.evaluate(() => window.tide.scale())) < 4; k++) await page.mouse.wheel(0, -400);
    }
    await nextFrames(page, 3);
    const portalPixels = (await countColours(page, { portal: kPortal })).portal;
    check(portalPixels > 50, `the canvas shows ${portalPixels} portal-coloured pixels`);
    check(!(await page.isHidden('#sectors-line')), 'the sector line under the toggles is hidden');
    pass('the sector overlay arrives and is drawn', `${first.portals} portals, ${first.built} of ${first.sectorCount} sectors with a field, ${portalPixels} portal pixels`);

    const before = await getJson(base, '/api/agents?limit=2000');
    await sleep(opts.seconds * 1000);
    const after = await getJson(base, '/api/agents?limit=2000');
    const d0 = meanDistance(before, goal), d1 = meanDistance(after, goal);
    const moving = after.state.filter((s) => s === 0).length;
    check(d1 < d0 - Math.min(3, opts.seconds), `units did not close on the goal: mean distance ${d0.toFixed(1)} -> ${d1.toFixed(1)}`);
    const stats = (await getJson(base, '/api/state')).stats;
    check(stats.planner === 'hierarchical' && stats.sector_fields > 0, `stats: ${JSON.stringify(stats)}`);
    await nextFrames(page, 3);
    if (opts.huge) {
        await page.screenshot({ path: path.join(out, 'hierarchy-zoom.png') });
        await page.keyboard.press('KeyF');
        await nextFrames(page, 3);
    }
    await page.screenshot({ path: path.join(out, 'hierarchy.png') });
    pass('units head for the goal', `mean distance ${d0.toFixed(1)} -> ${d1.toFixed(1)} in ${opts.seconds} s, ${moving} moving, ` +
        `${stats.sector_fields} sector fields, tick route ${stats.tick_route_ms.toFixed(3)} ms`);

    // An order: a new plan for the units in a box, shown when the page looks at its group.
    const box = opts.huge ? [128, 128, 383, 383] : [0, 0, 23, 47];
    const target = opts.huge ? [600, 3000] : [10, 240];
    const ordered = await page.evaluate(([box, target]) => {
        window.tide.lastOrdered = null;
        window.tide.send({ type: 'order', select: box, goals: [target] });
        return new Promise((resolve) => {
            const poll = () => (window.tide.lastOrdered ? resolve(window.tide.lastOrdered) : setTimeout(poll, 50));
            setTimeout(() => resolve(window.tide.lastError), 5000);
            poll();
        });
    }, [box, target]);
    check(ordered && ordered.group > 0 && ordered.units > 0, `the order was answered with ${JSON.stringify(ordered)}`);
    tideSend(page, { type: 'view', group: ordered.group });
    const mine = await waitSectors(page, (s) => s.group === ordered.group && s.built > 0, timeout, `after the order to group ${ordered.group}`);
    const state = await getJson(base, '/api/state');
    check(state.stats.route_ms > 0, `route_ms ${state.stats.route_ms} after an order`);
    pass('an order makes a plan whose sectors the page shows', `group ${ordered.group}: ${ordered.units} units, ` +
        `${mine.built} sectors with a field, routed in ${state.stats.route_ms.toFixed(1)} ms`);

    // A wall across a portal: the graph changes and a new sectors frame comes.
    const version = mine.version;
    const n = world.sector_size;
    tideSend(page, { type: 'paint', x: n, y: Math.floor(n / 2), radius: 4, terrain: 'wall' });
    await waitSectors(page, (s) => s.version > version, timeout, 'after a wall across a sector border');
    const painted = (await getJson(base, '/api/state')).stats;
    pass('a painted wall updates the graph', `graph update ${painted.graph_update_ms.toFixed(2)} ms`);
    await page.screenshot({ path: path.join(out, 'hierarchy-order.png') });
}

function tideSend(page, message) {
    return page.evaluate((m) => window.tide.send(m), message);
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const extra = opts.huge ? ['--map', '@huge'] : ['--map', '@random256', '--hierarchy-cells', '0', '--sector-size', '32', '--agents', '0'];
    await runBrowserScript({
        tag: 'e2e-hierarchy', opts, deadlineMs: 180_000, serverArgs: extra, serverMs: opts.huge ? 120_000 : 10_000, pass,
        summary: () => `${passed} checks passed in ${elapsed()}`,
        body: async ({ page, base, out, serverOutput }) => {
            const load = /loaded map \S+ in .*/.exec(serverOutput.join(''));
            console.log(`e2e-hierarchy: server ${base}${load ? `: ${load[0]}` : ''} [${elapsed()}]`);
            await page.goto(base);
            await run(page, base, opts, out);
        },
    });
}

main();
