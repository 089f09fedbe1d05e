// The WebAssembly build against the native one, in one run (docs/web.md "Figures"):
//   node scripts/wasm-bench.mjs [build-wasm/package] [build/bin/tide]
// - a field build on the 256x256 benchmark map (tide gen's default map, goal at its centre):
//   median of 30 in WASM (this process) and natively (tide field --repeat 30), interleaved in
//   three rounds so a busy spell of the shared machine hits both;
// - a crowd step of 5,000 and 20,000 units on that map: the World's mean step over 300 ticks in
//   WASM (one thread) and natively (tide sim --threads 1 --lockstep, the same map, goal and count);
// - the package's file sizes, raw and gzipped.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const pkg = path.resolve(process.argv[2] ?? 'build-wasm/package');
const cli = path.resolve(process.argv[3] ?? 'build/bin/tide');
const { loadTide } = await import(pathToFileURL(path.join(pkg, 'tide.mjs')));
const tide = await loadTide();
const work = mkdtempSync(path.join(tmpdir(), 'tide-wasm-bench-'));
const mapFile = path.join(work, 'random256.tmap');
execFileSync(cli, ['gen', '--out', mapFile], { stdio: 'ignore' });
const map = tide.parseMap(readFileSync(mapFile, 'utf8'), mapFile);
const costs = map.costs().slice();
let goal = null;
for (let r = 0; r < 64 && !goal; ++r)
    for (let dy = -r; dy <= r && !goal; ++dy)
        for (let dx = -r; dx <= r && !goal; ++dx)
            if (costs[(128 + dy) * 256 + 128 + dx] !== 255) goal = [128 + dx, 128 + dy];
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

console.log(`tide ${tide.version}: WebAssembly (Node ${process.versions.node}, V8 ${process.versions.v8}) against the native CLI ${cli}`);
const wasmMs = [], nativeMs = [];
for (let round = 0; round < 3; ++round) {
    const times = [];
    for (let i = 0; i < 31; ++i) {
        const t0 = performance.now();
        const f = tide.buildField(map, [goal]);
        const t = performance.now() - t0;
        f.dispose();
        if (i > 0) times.push(t);
    }
    wasmMs.push(median(times));
    const out = execFileSync(cli, ['field', '--map', mapFile, '--goal', goal.join(','), '--repeat', '30'], { encoding: 'utf8' });
    nativeMs.push(Number(/build_ms_median=([0-9.]+)/.exec(out)[1]));
}
const w = median(wasmMs), n = median(nativeMs);
console.log(`field build, 256x256 benchmark map, goal ${goal}: WASM ${w.toFixed(3)} ms, native ${n.toFixed(3)} ms: ${(w / n).toFixed(2)}x (target 1.5x; rounds WASM ${wasmMs.map((x) => x.toFixed(3)).join(' ')}, native ${nativeMs.map((x) => x.toFixed(3)).join(' ')})`);

for (const units of [5000, 20000]) {
    const world = tide.createWorld({ lockstep: true });
    world.load(map, { name: 'random256', goals: [goal], units });
    world.finishBuilds();
    const ticks = 300;
    let sum = 0;  // the World's own measure of each crowd step, as tide sim's mean_step_ms
    for (let i = 0; i < ticks; ++i) {
        world.tick(1 / 60);
        sum += world.stats().stepMs;
    }
    world.dispose();
    const json = path.join(work, `sim-${units}.json`);
    execFileSync(cli, ['sim', '--map', mapFile, '--goal', goal.join(','), '--agents', String(units), '--seconds', String(ticks / 60),
        '--threads', '1', '--lockstep', '--json', json], { stdio: 'ignore' });
    const report = JSON.parse(readFileSync(json, 'utf8'));
    const native = report.mean_step_ms;
    const wasm = sum / ticks;
    console.log(`crowd step, ${units} units, ${ticks} ticks: WASM ${wasm.toFixed(3)} ms, native ${Number(native).toFixed(3)} ms: ${(wasm / native).toFixed(2)}x`);
}

for (const file of readdirSync(pkg).filter((f) => /\.(mjs|wasm)$/.test(f)).sort()) {
    const bytes = readFileSync(path.join(pkg, file));
    console.log(`${file}: ${(statSync(path.join(pkg, file)).size / 1024).toFixed(0)} KB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(0)} KB gzipped`);
}
map.dispose();
