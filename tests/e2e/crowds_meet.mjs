// End-to-end test of two crowds that meet in the default map's gap, in headless Chromium:
//
//   node tests/e2e/crowds_meet.mjs --tide build/bin/tide --out build/e2e-crowds-meet
//
// What the first-run hint suggests, with two groups: `tide serve --agents 1500` on the default map
// at 1280x800; the hint names the gap in the left wall. A box drag selects the units right of the
// wall, a right-click just left of the gap (cell 12,19) orders them there; the units left of the
// wall keep their goal on the right, so the two groups cross in the 4-cell gap. /api/state is
// polled until every unit of both groups is arrived (at most kArriveMs; the counts per group are
// printed every 10 s and in the failure). On the way the page must tell the states apart: queued
// units in the agents frame (state 3) and drawn in the dark shade of their group's colour, the
// Groups rows and the Live counts equal to the stats message they come from. Then the Gap swap and
// Evacuation presets load and show their groups (the evacuation's exit group counts the units that
// left), the Tower defense preset refuses a sealing tower and counts the units that got through,
// and a wedge ordered with the Formation selector stands in shape at its goal. Screenshots:
// hint.png, ordered.png, jam.png (the groups in the gap), arrived.png, gap-swap.png,
// evacuation.png, tower-defense.png, formation.png.

import path from 'node:path';

import { groupColour, unitColour } from '../../web/palette.js';
import { check, countColours, dragPositions, getJson, nextFrames, runBrowserScript, sleep, waitFor } from './lib.mjs';

const kUnits = 1500;
const kGoal = [12, 19]; // just left of the gap (x = 14..15, y = 18..21)
const kRightGoal = [54, 18]; // the default map's goal
const kArriveMs = 200_000; // every unit arrives in about 65 s simulated (tide sim --scenario gap_swap)
const kStateQueued = 3;
const kJamShotMs = 18_000; // jam.png: the two groups in the gap

const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
let passed = 0;

function pass(name, detail) {
    passed++;
    console.log(`e2e-crowds-meet: PASS ${name}${detail ? ` (${detail})` : ''} [${elapsed()}]`);
}

function parseArgs(argv) {
    const opts = { tide: null, out: null, webRoot: null };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i], value = argv[i + 1];
        if (key === '--tide') opts.tide = value;
        else if (key === '--out') opts.out = value;
        else if (key === '--web-root') opts.webRoot = value;
        else {
            console.error(`e2e-crowds-meet: unknown argument '${key}'`);
            process.exit(2);
        }
    }
    if (!opts.tide || !opts.out) {
        console.error('usage: node crowds_meet.mjs --tide PATH/TO/tide --out DIR [--web-root DIR]');
        process.exit(2);
    }
    return opts;
}

/** [r, g, b] of a packed palette colour (0xAABBGGRR). */
const rgbOf = (c) => [c & 255, (c >>> 8) & 255, (c >>> 16) & 255];

/** Per group: "id: arrived/members (queued q, stuck s, no path n)". */
function describe(s) {
    const by = new Map((s.stats.group_states || []).map((g) => [g.id, g]));
    return s.groups.map((g) => {
        const c = by.get(g.id) || {};
        return `group ${g.id} -> ${JSON.stringify(g.goals)}: ${c.arrived}/${g.members} arrived (moving ${c.moving}, queued ${c.queued}, ` +
            `stuck ${c.stuck}, no path ${c.no_path})`;
    }).join('; ');
}

const fmt = (v) => (v < 10000 ? v.toLocaleString('en-US') : `${(v / 1000).toFixed(v < 100000 ? 1 : 0)}k`);

/**
 * The Groups rows and the Live counts the page shows agree with the stats message they were drawn
 * from (the page's last one, read in the same evaluation).
 */
async function panelMatchesStats(page) {
    const seen = await page.evaluate(() => ({ rows: window.tide.groupRows(), stats: window.tide.stats,
        live: ['moving', 'queued', 'arrived', 'no-path', 'stuck'].map((k) => document.getElementById(`stat-${k}`).textContent) }));
    for (const g of seen.stats.group_states) {
        const row = seen.rows.find((r) => r.id === g.id);
        check(row, `the Groups panel has no row for group ${g.id}: ${JSON.stringify(seen.rows)}`);
        const members = g.moving + g.arrived + g.queued + g.stuck + g.no_path;
        const want = { units: members, arrived: g.arrived, queued: g.queued, stuck: g.stuck, 'no path': g.no_path };
        for (const [label, v] of Object.entries(want)) {
            check(row.columns[label] === fmt(v), `group ${g.id}'s row shows ${label} '${row.columns[label]}', its stats ${v}: ${JSON.stringify(row)}`);
        }
    }
    const s = seen.stats;
    const moving = s.group_states.reduce((n, g) => n + g.moving, 0);
    const want = [moving, s.queued, s.arrived, s.no_path, s.stuck].map((v) => v.toLocaleString('en-US'));
    check(JSON.stringify(seen.live) === JSON.stringify(want), `the Live counts read ${seen.live}, the stats ${want}`);
    return seen;
}

async function gapSwap(page, base, out) {
    await page.waitForFunction(() => window.tide && window.tide.ready && window.tide.agentsDrawn > 0, null, { timeout: 15_000 });
    await page.waitForFunction(() => window.tide.hintShown(), null, { timeout: 5000 });
    const hint = await page.evaluate(() => window.tide.hintText());
    check(/drag a box/.test(hint) && /right-click/.test(hint) && /gap in the left wall/.test(hint), `the hint reads "${hint}"`);
    await page.screenshot({ path: path.join(out, 'hint.png') });
    pass('the first-run hint names the gap on the default map', hint);

    // Box-select the units right of the wall (x >= 16) and right-click just left of the gap. The
    // drag goes from the bottom right corner up, as a user would start it clear of the hint.
    await dragPositions(page, [63.95, 39.95], [16.05, 0.05], 6);
    await page.waitForFunction(() => window.tide.selectionCount() > 0, null, { timeout: 5000 });
    const selected = await page.evaluate(() => window.tide.selectionCount());
    const [gx, gy] = await page.evaluate(([x, y]) => window.tide.cellToClient(x, y), kGoal);
    await page.mouse.click(gx, gy, { button: 'right' });
    await page.waitForFunction(() => window.tide.lastOrdered, null, { timeout: 5000 });
    const ordered = await page.evaluate(() => window.tide.lastOrdered);
    const orderedAt = performance.now();
    check(ordered.units === selected && selected > kUnits / 2, `ordered ${ordered.units} units, ${selected} selected`);
    const st = await waitFor(async () => {
        const s = await getJson(base, '/api/state');
        return { done: s.groups.length === 2 && s.groups.some((g) => g.id === ordered.group), s };
    }, 5000);
    check(st.done, `after the order /api/state has groups ${JSON.stringify(st.s.groups)}`);
    const mine = st.s.groups.find((g) => g.id === ordered.group), left = st.s.groups.find((g) => g.id !== ordered.group);
    check(JSON.stringify(mine.goals) === JSON.stringify([kGoal]), `the ordered group's goals are ${JSON.stringify(mine.goals)}`);
    check(JSON.stringify(left.goals) === JSON.stringify([kRightGoal]), `the units left of the wall go to ${JSON.stringify(left.goals)}`);
    check(!(await page.evaluate(() => window.tide.hintShown())), 'the hint stayed after the order');
    await page.screenshot({ path: path.join(out, 'ordered.png') });
    pass('a box right of the wall and a right-click left of the gap make two groups that cross',
        `group ${mine.id}: ${mine.members} units to ${kGoal}; group ${left.id}: ${left.members} units keep ${kRightGoal}`);

    // Until every unit has arrived: the panel agrees with its stats, queued units are drawn apart.
    let queuedDrawn = null, panelChecks = 0, lastLog = 0, s = null, jamShot = false;
    const colours = Object.fromEntries(st.s.groups.map((g) => [g.id, rgbOf(unitColour(groupColour(g.id), kStateQueued).fill)]));
    for (;;) {
        s = await getJson(base, '/api/state');
        const waited = performance.now() - orderedAt;
        if (s.stats.agents === kUnits && s.stats.arrived === kUnits) break;
        if (waited > kArriveMs) break;
        if (waited - lastLog >= 10_000) {
            lastLog = waited;
            console.log(`e2e-crowds-meet: ${(waited / 1000).toFixed(0)} s after the order: ${describe(s)}`);
        }
        if (!queuedDrawn) {
            const states = await page.evaluate(() => window.tide.unitStates());
            if (states[kStateQueued] >= 20) {
                await nextFrames(page, 2);
                const counts = await countColours(page, colours);
                const pixels = Object.values(counts).reduce((a, b) => a + b, 0);
                if (pixels > 0) queuedDrawn = { units: states[kStateQueued], pixels, at: waited };
            }
        }
        if (!jamShot && waited >= kJamShotMs) {
            jamShot = true;
            await page.screenshot({ path: path.join(out, 'jam.png') });
        }
        if (panelChecks < 5 && waited > 5000 * panelChecks) {
            await panelMatchesStats(page);
            panelChecks++;
        }
        await sleep(1000);
    }
    const took = (performance.now() - orderedAt) / 1000;
    check(s.stats.agents === kUnits && s.stats.arrived === kUnits,
        `not every unit arrived within ${kArriveMs / 1000} s: ${s.stats.arrived} of ${s.stats.agents} arrived; ${describe(s)}`);
    for (const g of s.stats.group_states) check(g.arrived === s.groups.find((x) => x.id === g.id).members, `group ${g.id}: ${describe(s)}`);
    check(queuedDrawn, 'no queued units were drawn in their group\'s dark shade while the groups crossed');
    check(panelChecks >= 3, `the panel was compared with its stats ${panelChecks} times`);
    await nextFrames(page, 2);
    await page.screenshot({ path: path.join(out, 'arrived.png') });
    pass('both groups arrive: every unit, each at its own goal', `${took.toFixed(1)} s after the order; ${describe(s)}`);
    pass('queued units are sent as state 3 and drawn apart; the Groups rows and Live counts follow the stats',
        `${queuedDrawn.units} queued at ${(queuedDrawn.at / 1000).toFixed(0)} s, ${queuedDrawn.pixels} pixels of the queued shade; ${panelChecks} panel checks`);
}

async function presets(page, base, out) {
    const load = async (name) => {
        await page.click(`[data-scenario="${name}"]`);
        const r = await waitFor(async () => {
            const s = await getJson(base, '/api/state');
            return { done: s.map === `scenario:${name}`, s };
        }, 20_000);
        check(r.done, `the ${name} preset did not load (the map is ${r.s && r.s.map})`);
        await page.waitForFunction((n) => window.tide.world && window.tide.world.map === `scenario:${n}`, name, { timeout: 5000 });
        return r.s;
    };

    const swap = await load('gap_swap');
    check(swap.groups.length === 2 && swap.stats.agents === kUnits, `gap swap: ${JSON.stringify(swap.groups)}`);
    const rows = await waitFor(async () => {
        const r = await page.evaluate(() => window.tide.groupRows());
        const ids = r.map((x) => x.id).sort().join(), want = swap.groups.map((g) => g.id).sort().join();
        return { done: ids === want && r.every((x) => Number(x.columns.units.replace(/,/g, '')) > 0), r };
    }, 5000);
    check(rows.done, `the Groups panel shows ${JSON.stringify(rows.r)} for the gap swap's groups ${JSON.stringify(swap.groups.map((g) => g.id))}`);
    const goals = swap.groups.map((g) => JSON.stringify(g.goals)).sort();
    check(JSON.stringify(goals) === JSON.stringify([JSON.stringify([kGoal]), JSON.stringify([kRightGoal])].sort()), `gap swap goals ${goals}`);
    await sleep(1500);
    await page.screenshot({ path: path.join(out, 'gap-swap.png') });
    pass('the Gap swap preset loads its two groups and the panel shows them', rows.r.map((r) => `group ${r.id}: ${r.columns.units}`).join(', '));

    const evac = await load('evacuation');
    const g = evac.groups[0];
    check(evac.groups.length === 1 && g.exit === true && g.goals.length === 4, `evacuation: ${JSON.stringify(evac.groups)}`);
    const left = await waitFor(async () => {
        const seen = await page.evaluate(() => ({ rows: window.tide.groupRows(), exited: document.getElementById('stat-exited').textContent,
            shown: !document.getElementById('exited-item').hidden, stats: window.tide.stats }));
        const row = seen.rows[0];
        return { done: seen.shown && Number(seen.exited.replace(/,/g, '')) > 0 && row && Number((row.columns.left || '0').replace(/,/g, '')) > 0 &&
            /4 exits/.test(row.note), seen };
    }, 20_000);
    check(left.done, `the page does not show units leaving the evacuation: ${JSON.stringify({ ...left.seen, stats: left.seen && left.seen.stats.exited })}`);
    const st = await getJson(base, '/api/state');
    check(st.stats.exited > 0 && st.stats.agents + st.stats.exited === 1200, `evacuation: ${st.stats.agents} units, ${st.stats.exited} left`);
    await page.screenshot({ path: path.join(out, 'evacuation.png') });
    pass('the Evacuation preset loads its exit group and the page counts the units that left',
        `${left.seen.exited} left (Live), row ${JSON.stringify(left.seen.rows[0].columns)}, ${left.seen.rows[0].note}`);

    // Tower defense: waves from the west edge to the exit through two lines of towers. A tower that
    // would close the first line's gap is refused while the lane is still empty (the spawner's area
    // must keep its way out); one beside the way is built; the Live panel's waves line counts the
    // units spawned and those that got through, as the stats message does.
    const td = await load('tower_defense');
    check(td.stats.spawners && td.stats.spawners.length === 1, `tower defense: spawners ${JSON.stringify(td.stats.spawners)}`);
    check(await page.evaluate(() => window.tide.cell(30, 1).cost === 255 && window.tide.cell(30, 33).cost !== 255),
        'the first line of towers is not on the map with its gap at the bottom');
    await page.evaluate(() => {
        window.tide.lastError = null;
        window.tide.send({ type: 'place_tower', x0: 30, y0: 33, x1: 31, y1: 38 });
    });
    const sealed = await page.waitForFunction(() => window.tide.lastError, null, { timeout: 3000 }).then((h) => h.jsonValue(), () => null);
    check(sealed && /spawner's area/.test(sealed), `the tower over the first line's gap: the page's last error is ${JSON.stringify(sealed)}`);
    await page.evaluate(() => window.tide.send({ type: 'place_tower', x0: 40, y0: 18, x1: 41, y1: 19 }));
    const built = await page.waitForFunction(() => window.tide.cell(40, 18).cost === 255, null, { timeout: 3000 }).then(() => true, () => false);
    check(built, 'a tower beside the way was not built');
    const through = await waitFor(async () => {
        const seen = await page.evaluate(() => ({ text: document.getElementById('waves').textContent,
            shown: !document.getElementById('waves').hidden, sp: (window.tide.stats.spawners || [])[0] }));
        const m = /([\d,]+) spawned, ([\d,]+) got through/.exec(seen.text || '');
        const shownSunk = m ? Number(m[2].replace(/,/g, '')) : -1;
        return { done: seen.shown && seen.sp && seen.sp.sunk > 0 && shownSunk > 0 && Number(m[1].replace(/,/g, '')) >= shownSunk, seen };
    }, 90_000);
    check(through.done, `no unit got through the tower defense (the page shows ${JSON.stringify(through.seen)})`);
    await page.screenshot({ path: path.join(out, 'tower-defense.png') });
    pass('the Tower defense preset: a sealing tower is refused, another built, and the waves line counts units that got through',
        `'${sealed}'; ${through.seen.text}`);

    // Formations: the gap scenario's map with its 100 units; the page's Formation selector set to
    // wedge, nothing selected, a right-click sends everyone there in a wedge: the stats carry its
    // slots, the page draws them as rings, and the units stand in the wedge at the goal.
    await page.evaluate(() => window.tide.send({ type: 'scenario', name: 'formation_gap' }));
    await page.waitForFunction(() => window.tide.world && window.tide.world.map === 'scenario:formation_gap', null, { timeout: 20_000 });
    await page.keyboard.press('Escape');
    await page.selectOption('#formation', 'wedge');
    const [fx, fy] = await page.evaluate(() => window.tide.cellToClient(80, 20));
    await page.mouse.click(fx, fy, { button: 'right' });
    const wedge = await waitFor(async () => {
        const seen = await page.evaluate(() => ({ drawn: window.tide.formations(), stats: window.tide.stats }));
        const f = seen.drawn.find((x) => x.slots === 100);
        return { done: !!f && f.arrived && seen.stats.arrived === seen.stats.agents, seen };
    }, 90_000);
    check(wedge.done, `the wedge did not arrive in shape: ${JSON.stringify({ drawn: wedge.seen.drawn, arrived: wedge.seen.stats.arrived, agents: wedge.seen.stats.agents })}`);
    const fst = await getJson(base, '/api/state');
    check(fst.stats.formations.length === 1 && fst.stats.formations[0].error < 0.5, `formation stats ${JSON.stringify(fst.stats.formations.map((f) => ({ group: f.group, error: f.error, arrived: f.arrived })))}`);
    await nextFrames(page, 2);
    await page.screenshot({ path: path.join(out, 'formation.png') });
    pass('a wedge order from the Formation selector marches, is drawn as ring slots, and stands in shape at the goal',
        `error ${fst.stats.formations[0].error}, ${fst.stats.arrived} of ${fst.stats.agents} arrived`);
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    await runBrowserScript({
        tag: 'e2e-crowds-meet', opts, deadlineMs: 300_000, serverArgs: ['--agents', String(kUnits)], pass,
        summary: () => `${passed} checks passed in ${elapsed()}`,
        body: async ({ page, base, out }) => {
            await page.goto(base);
            await gapSwap(page, base, out);
            await presets(page, base, out);
        },
    });
}

main();
