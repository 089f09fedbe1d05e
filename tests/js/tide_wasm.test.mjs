// The WebAssembly build and its JavaScript package (bindings/js), under Node's test runner:
//   TIDE_WASM_PACKAGE=build-wasm/package TIDE_CLI=build/bin/tide node --test tests/js/
// (ctest js.wasm_package runs it; make test builds the package first with make wasm).
// - fields of the test maps equal the native CLI's byte for byte (integration and directions);
// - the World's order loop of examples/world_loop.c ends with the native state hash;
// - bad input throws TideError with the C status; disposed objects refuse calls; building and
//   disposing fields in a loop does not grow the module's memory, nor do forgotten objects once the
//   garbage collector has run (their batch buffers included).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = path.resolve(process.env.TIDE_WASM_PACKAGE ?? path.join(root, 'build-wasm/package'));
const cli = process.env.TIDE_CLI ?? path.join(root, 'build/bin/tide');
const exampleWorld = process.env.TIDE_EXAMPLE_WORLD ?? path.join(root, 'build/bin/tide_example_world');
if (!existsSync(path.join(pkg, 'tide.mjs')) || !existsSync(path.join(pkg, 'tide_wasm.wasm'))) {
    throw new Error(`no WebAssembly package in ${pkg}: run make wasm first (or set TIDE_WASM_PACKAGE)`);
}
if (!existsSync(cli)) throw new Error(`no native tide CLI at ${cli} (set TIDE_CLI)`);
const { loadTide, TideError, COST_WALL } = await import(pathToFileURL(path.join(pkg, 'tide.mjs')));
const tide = await loadTide();
const work = mkdtempSync(path.join(tmpdir(), 'tide-wasm-'));

// A field built by the native CLI (tide field --raw) and by the WebAssembly module from the same
// map text: the two layers must be the same bytes.
function sameField(mapPath, args, buildWasm) {
    const raw = path.join(work, `${path.basename(mapPath)}-${args.join('_').replace(/[^a-z0-9_.-]/gi, '')}.bin`);
    execFileSync(cli, ['field', '--map', mapPath, ...args, '--raw', raw], { stdio: ['ignore', 'ignore', 'inherit'] });
    const native = readFileSync(raw);
    const map = mapPath === '@default' ? tide.builtinMap('default').map : tide.parseMap(readFileSync(mapPath, 'utf8'), mapPath);
    const field = buildWasm(map);
    try {
        const n = field.width * field.height;
        assert.equal(native.length, 5 * n, 'raw file size');
        const integration = Buffer.from(field.integration().buffer, field.integration().byteOffset, 4 * n);
        const directions = Buffer.from(field.directions().buffer, field.directions().byteOffset, n);
        assert.ok(integration.equals(native.subarray(0, 4 * n)), `${mapPath} ${args.join(' ')}: integration bytes differ`);
        assert.ok(directions.equals(native.subarray(4 * n)), `${mapPath} ${args.join(' ')}: direction bytes differ`);
        return n;
    } finally {
        field.dispose();
        map.dispose();
    }
}

test('goal, flee and mixed fields equal the native CLI byte for byte', () => {
    const generated = path.join(work, 'gen.tmap');
    execFileSync(cli, ['gen', '--width', '181', '--height', '123', '--seed', '7', '--out', generated], { stdio: 'ignore' });
    const arena = path.join(root, 'examples/arena.map');
    // Open cells of the generated map nearest the points the cases name (its walls are random).
    const gen = tide.parseMap(readFileSync(generated, 'utf8'), generated);
    const costs = gen.costs().slice();
    const open = (x, y) => {
        for (let r = 0; r < 50; ++r)
            for (let dy = -r; dy <= r; ++dy)
                for (let dx = -r; dx <= r; ++dx) {
                    const cx = x + dx, cy = y + dy;
                    if (cx >= 0 && cy >= 0 && cx < gen.width && cy < gen.height && costs[cy * gen.width + cx] !== COST_WALL) return [cx, cy];
                }
        throw new Error('no open cell');
    };
    const [gx, gy] = open(90, 60), [hx, hy] = open(10, 10);
    gen.dispose();
    let cells = 0;
    cells += sameField('@default', ['--goal', '54,18'], (m) => tide.buildField(m, [[54, 18]]));
    cells += sameField('@default', ['--goal', '54,18', '--goal', '3,3'], (m) => tide.buildField(m, [[54, 18], [3, 3]]));
    cells += sameField(arena, ['--goal', '22,6'], (m) => tide.buildField(m, [{ x: 22, y: 6 }]));
    const g = `${gx},${gy}`, h = `${hx},${hy}`;
    cells += sameField(generated, ['--goal', g], (m) => tide.buildField(m, [[gx, gy]]));
    cells += sameField(generated, ['--goal', g, '--connectivity', '4'], (m) => tide.buildField(m, [[gx, gy]], { connectivity: 4 }));
    cells += sameField(generated, ['--goal', g, '--diagonal', '1.5'], (m) => tide.buildField(m, [[gx, gy]], { diagonal: 1.5 }));
    cells += sameField(generated, ['--flee', g, '--flee-factor', '1.5'], (m) => tide.buildFleeField(m, [[gx, gy]], 1.5));
    cells += sameField(generated, ['--goal', h, '--danger', g, '--danger-weight', '20', '--danger-radius', '12'],
        (m) => tide.buildMixedField(m, [[hx, hy]], [[gx, gy]], 20, 12));
    assert.ok(cells > 80000);
});

test("the World's order loop ends with the native state hash", () => {
    const world = tide.createWorld({ lockstep: true });
    const { map, goal } = tide.builtinMap('default');
    world.load(map, { name: 'default', goals: [goal], units: 1000 });
    map.dispose();
    const order = world.orderBox(32, 0, 64, 40, [{ x: 8, y: 30 }]);
    assert.equal(order.units, 479);
    world.paint(22, 20, 3, COST_WALL);
    let tick = 0;
    for (; tick < 90 * 60; ++tick) {
        const s = world.stats();
        if (s.arrived === s.units) break;
        world.tick(1 / 60);
    }
    const hash = world.stateHash().toString(16).padStart(16, '0');
    const { count, positions } = world.readUnits();
    assert.equal(count, 1000);
    assert.ok(positions.every(Number.isFinite));
    world.dispose();
    // The C example (examples/world_loop.c) runs the same calls natively; its figures are also
    // asserted by the C++ and C# tests.
    let native = { ticks: 2392, hash: '537f51b7808d8072' };
    if (existsSync(exampleWorld)) {
        const out = execFileSync(exampleWorld, { encoding: 'utf8' });
        native = { ticks: Number(/after (\d+) ticks/.exec(out)[1]), hash: /state hash ([0-9a-f]{16})/.exec(out)[1] };
    }
    assert.equal(tick, native.ticks, 'ticks until every unit arrived');
    assert.equal(hash, native.hash, 'state hash');
});

test('a field service repairs its fields after an edit', () => {
    const { map } = tide.builtinMap('default');
    const service = tide.createService(map);
    const ticket = service.request([[54, 18]]);
    service.publish();
    const before = service.current(ticket);
    const far = before.integration()[30 * before.width + 8];
    before.dispose();
    service.editRect(20, 0, 20, 39, COST_WALL);  // a wall down the whole map: the left side is cut off
    service.publish();
    const after = service.current(ticket);
    assert.ok(Number.isFinite(far));
    assert.equal(after.integration()[30 * after.width + 8], Infinity);
    const fresh = (() => {
        // The same wall on a copy of the map (the service keeps its own terrain), built from scratch.
        const copy = tide.createMap(map.width, map.height, map.costs().slice());
        for (let y = 0; y < 40; ++y) copy.setCost(20, y, COST_WALL);
        const f = tide.buildField(copy, [[54, 18]]);
        const bytes = Buffer.from(f.integration().slice().buffer);
        f.dispose();
        copy.dispose();
        return bytes;
    })();
    assert.ok(Buffer.from(after.integration().slice().buffer).equals(fresh), 'repaired field differs from a fresh build');
    after.dispose();
    service.dispose();
    map.dispose();
});

test('bad input throws TideError with the C status and message', () => {
    const { map } = tide.builtinMap('default');
    const expectError = (fn, code, pattern) => {
        assert.throws(fn, (e) => e instanceof TideError && e.code === code && pattern.test(e.message), `expected code ${code}`);
    };
    expectError(() => tide.buildField(map, [[99, 5]]), 2, /outside the 64x40 map/);
    const wall = map.costs().indexOf(COST_WALL);
    expectError(() => tide.buildField(map, [[wall % map.width, Math.floor(wall / map.width)]]), 3, /wall/);
    expectError(() => tide.buildField(map, []), 1, /goal/);
    expectError(() => tide.parseMap('type octile\nheight 2\nwidth 2\nmap\n..\n.', 'bad.map'), 5, /bad\.map/);
    expectError(() => tide.builtinMap('nowhere'), 4, /nowhere/);
    expectError(() => tide.createMap(0, 5), 1, /size/);
    const world = tide.createWorld();
    world.load(map, { goals: [[54, 18]], units: 10 });
    expectError(() => world.tick(-1), 1, /time step/);
    expectError(() => world.tick(NaN), 1, /time step/);
    expectError(() => world.orderBox(0, 0, 64, 40, [[-1, 3]]), 2, /outside/);
    world.dispose();
    expectError(() => world.tick(1 / 60), 4, /after dispose/);
    map.dispose();
    expectError(() => map.width, 4, /after dispose/);
});

test('building and disposing fields does not grow memory', () => {
    const { map, goal } = tide.builtinMap('random256');
    const warm = tide.buildField(map, [goal]);
    warm.dispose();
    const start = tide.memoryBytes();
    for (let i = 0; i < 200; ++i) {
        const f = tide.buildField(map, [goal]);
        f.sample(10.5, 10.5);
        f.dispose();
    }
    map.dispose();
    assert.ok(tide.memoryBytes() <= start + (1 << 20), `memory grew from ${start} to ${tide.memoryBytes()} bytes`);
});

test('forgotten objects and their scratch buffers are freed by the garbage collector', async () => {
    // The FinalizationRegistry frees a forgotten Field, Steering or World and the buffers it kept
    // for batch calls (Handle.owned). Each round below leaves 3.2 MB of scratch behind (200,000
    // positions through sampleBatch and steerBatch); 40 rounds not freed would grow the memory by
    // 128 MB.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    const { map, goal } = tide.builtinMap('default');
    const n = 100000;
    const xs = new Float32Array(n).fill(5.5), ys = new Float32Array(n).fill(5.5);
    const ox = new Float32Array(n), oy = new Float32Array(n);
    const round = () => {
        const f = tide.buildField(map, [goal]);
        f.sampleBatch(xs, ys, ox, oy);
        const s = tide.createSteering(f, map);
        s.steerBatch(xs, ys, ox, oy);
        const w = tide.createWorld();
        w.load(map, { goals: [goal], units: 100 });
        w.readUnits();
    };
    const settle = async () => {
        for (let k = 0; k < 5; ++k) {
            gc();
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    };
    for (let i = 0; i < 5; ++i) round();
    await settle();
    const start = tide.memoryBytes();
    for (let i = 0; i < 40; ++i) {
        round();
        if (i % 5 === 4) await settle();
    }
    await settle();
    map.dispose();
    assert.ok(tide.memoryBytes() <= start + (16 << 20), `memory grew from ${start} to ${tide.memoryBytes()} bytes`);
});

test('sampleBatch gives a unit direction on every cell with a move', () => {
    const { map, goal } = tide.builtinMap('default');
    const field = tide.buildField(map, [goal]);
    const n = 64 * 40;
    const xs = new Float32Array(n), ys = new Float32Array(n), ox = new Float32Array(n), oy = new Float32Array(n);
    for (let i = 0; i < n; ++i) { xs[i] = (i % 64) + 0.5; ys[i] = Math.floor(i / 64) + 0.5; }
    field.sampleBatch(xs, ys, ox, oy);
    const dirs = field.directions();
    const integ = field.integration();
    for (let i = 0; i < n; ++i) {
        const len = Math.hypot(ox[i], oy[i]);
        if (dirs[i] < 8 && integ[i] !== Infinity) assert.ok(Math.abs(len - 1) < 1e-3, `cell ${i}: |dir| = ${len}`);
    }
    field.dispose();
    map.dispose();
});

test("a host's own units steered by steerBatch reach the goal and never enter a wall", () => {
    // The default map's gap and walls; 300 units at random open cells, moved by the host's own
    // integrator at 3 cells/s along steerBatch's directions (radius 0.16).
    const { map, goal } = tide.builtinMap('default');
    const field = tide.buildField(map, [goal]);
    const steering = tide.createSteering(field, map, { radius: 0.16 });
    const costs = map.costs().slice(), integ = field.integration().slice();
    const w = map.width;
    const n = 300, xs = new Float32Array(n), ys = new Float32Array(n), dx = new Float32Array(n), dy = new Float32Array(n);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    for (let i = 0; i < n; ++i) {
        let c;
        do c = Math.floor(rand() * costs.length); while (costs[c] === COST_WALL || !Number.isFinite(integ[c]));
        xs[i] = (c % w) + 0.5;
        ys[i] = Math.floor(c / w) + 0.5;
    }
    let inWall = 0;
    for (let step = 0; step < 60 * 40; ++step) {
        steering.steerBatch(xs, ys, dx, dy);
        for (let i = 0; i < n; ++i) {
            xs[i] += dx[i] * 3 / 60;
            ys[i] += dy[i] * 3 / 60;
            if (costs[Math.floor(ys[i]) * w + Math.floor(xs[i])] === COST_WALL) ++inWall;
        }
    }
    let near = 0;
    for (let i = 0; i < n; ++i) near += Math.hypot(xs[i] - goal.x - 0.5, ys[i] - goal.y - 0.5) < 1.5 ? 1 : 0;
    assert.equal(inWall, 0, 'unit-steps inside a wall cell');
    assert.ok(near >= n * 0.95, `${near} of ${n} units within 1.5 cells of the goal after 40 s`);
    steering.dispose();
    field.dispose();
    map.dispose();
});
