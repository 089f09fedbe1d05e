// Tide for JavaScript: the C API (include/tide/tide.h, tide_world.h) compiled to WebAssembly, wrapped
// in classes. Errors throw TideError with the C status and message; every object has dispose(), and
// a FinalizationRegistry frees what a program forgets (later, when the garbage collector runs).
//
// Views (Field.integration(), World.positions(), ...) are typed arrays over the module's memory:
// no copy, but valid only until the next call into Tide that may allocate (the memory can grow,
// which detaches them). Read them at once, or copy them (view.slice()).
//
// Struct layouts used below are checked at build time (tide_js_layout.cpp).

import createTideWasm from './tide_wasm.mjs';

/** An error of the C API: `code` is the tide_status value, `status` its name. */
export class TideError extends Error {
    constructor(code, status, message) {
        super(message ? `${status}: ${message}` : status);
        this.name = 'TideError';
        this.code = code;
        this.status = status;
    }
}

/** Agent states (TIDE_AGENT_*). */
export const AgentState = Object.freeze({ moving: 0, arrived: 1, noPath: 2, queued: 3 });
/** Order flags (TIDE_ORDER_*). */
export const OrderFlags = Object.freeze({ flee: 1, exit: 2 });
/** The wall cost. */
export const COST_WALL = 255;
/** Direction codes of Field.directions(): 0..7 moves (east, then clockwise on a y-down grid), 8 none, 9 goal. */
export const DIRECTION_NONE = 8;

// A forgotten object: its handle, then the scratch buffers it owned (Handle.owned: name -> pointer).
const registry = new FinalizationRegistry(({ free, ptr, owned, m }) => {
    free(ptr);
    for (const p of Object.values(owned)) if (p) m._free(p);
});

/** Loads the WebAssembly module; `options` go to the emscripten factory (locateFile, wasmBinary).
 *  In a page or worker the module fetches tide_wasm.wasm next to tide_wasm.mjs; under Node (no
 *  fetch of file URLs) the .wasm is read from there unless `wasmBinary` is given. */
export async function loadTide(options = {}) {
    const opts = { ...options };
    if (!opts.wasmBinary && typeof process === 'object' && process.versions?.node && typeof window === 'undefined') {
        const fs = await import('node:fs/promises');
        opts.wasmBinary = await fs.readFile(new URL('./tide_wasm.wasm', import.meta.url));
    }
    const m = await createTideWasm(opts);
    if (m._tide_js_layout_check() !== 1) throw new Error('tide: module built with other struct layouts');
    return new Tide(m);
}

class Tide {
    constructor(m) {
        this.m = m;
        this.version = m.UTF8ToString(m._tide_version());
    }

    // ---- memory helpers ----
    /** @private */ alloc(bytes) {
        const p = this.m._malloc(Math.max(8, bytes));
        if (!p) throw new TideError(10, 'out_of_memory', 'malloc failed');
        return p;
    }
    /** @private */ free(p) { if (p) this.m._free(p); }
    /** @private */ check(status) {
        if (status === 0) return;
        const m = this.m;
        throw new TideError(status, m.UTF8ToString(m._tide_status_name(status)), m.UTF8ToString(m._tide_last_error()));
    }
    /** @private */ cells(list) {  // [{x, y}] or [[x, y]] -> malloc'd tide_cell array
        const p = this.alloc(8 * list.length);
        const v = new Int32Array(this.m.HEAP32.buffer, p, 2 * list.length);
        list.forEach((c, i) => {
            v[2 * i] = Array.isArray(c) ? c[0] : c.x;
            v[2 * i + 1] = Array.isArray(c) ? c[1] : c.y;
        });
        return p;
    }
    /** @private */ string(s) {
        const n = this.m.lengthBytesUTF8(s) + 1;
        const p = this.alloc(n);
        this.m.stringToUTF8(s, p, n);
        return p;
    }
    /** @private */ fieldParams(params) {
        if (!params) return 0;
        const p = this.alloc(16);
        new Float64Array(this.m.HEAPF64.buffer, p, 1)[0] = params.diagonal ?? Math.SQRT2;
        new Int32Array(this.m.HEAP32.buffer, p + 8, 1)[0] = params.connectivity ?? 8;
        return p;
    }
    /** @private */ out(fn) {  // calls fn(outPtr) with a pointer slot; returns the pointer written there
        const slot = this.alloc(8);
        try {
            this.check(fn(slot));
            return this.m.HEAPU32[slot >> 2];
        } finally {
            this.free(slot);
        }
    }
    /** @private */ withScratch(bytes, fn) {
        const p = this.alloc(bytes);
        try { return fn(p); } finally { this.free(p); }
    }

    // ---- maps ----
    /** Parses a map (.map or .tmap text); `source` names it in errors. */
    parseMap(text, source = '<text>') {
        const bytes = new TextEncoder().encode(text);
        const t = this.alloc(bytes.length + 1);
        const s = this.string(source);
        try {
            this.m.HEAPU8.set(bytes, t);
            return new TideMap(this, this.out((o) => this.m._tide_map_parse(t, bytes.length, s, o)));
        } finally {
            this.free(t);
            this.free(s);
        }
    }
    /** A map of width x height cells, all `costs` (a Uint8Array of width * height, or one cost). */
    createMap(width, height, costs = 1) {
        const n = width * height;
        if (!(Number.isInteger(n) && n > 0)) throw new TideError(1, 'invalid_argument', `map size ${width}x${height}`);
        const c = this.alloc(n);
        try {
            if (typeof costs === 'number') this.m.HEAPU8.fill(costs, c, c + n);
            else if (costs.length !== n) throw new TideError(1, 'invalid_argument', `costs hold ${costs.length} cells, not ${n}`);
            else this.m.HEAPU8.set(costs, c);
            return new TideMap(this, this.out((o) => this.m._tide_map_create(width, height, c, o)));
        } finally {
            this.free(c);
        }
    }
    /** A built-in map (default, random256, maze, large, huge) and its default goal. */
    builtinMap(name) {
        const s = this.string(name);
        const g = this.alloc(8);
        try {
            const map = new TideMap(this, this.out((o) => this.m._tide_map_builtin(s, o, g)));
            const v = new Int32Array(this.m.HEAP32.buffer, g, 2);
            return { map, goal: { x: v[0], y: v[1] } };
        } finally {
            this.free(s);
            this.free(g);
        }
    }

    // ---- fields ----
    /** The field toward `goals` ([{x, y}] or [[x, y]]) on `map`; params {diagonal, connectivity}. */
    buildField(map, goals, params) {
        return this.fieldCall((o, pp) => {
            const g = this.cells(goals);
            try { return this.m._tide_field_build(map.handle(), g, goals.length, pp, o); } finally { this.free(g); }
        }, params);
    }
    /** The flee field of `dangers` (integration <= 0; DIRECTION goal marks safe spots). */
    buildFleeField(map, dangers, fleeFactor = 1.2, params) {
        return this.fieldCall((o, pp) => {
            const d = this.cells(dangers);
            try { return this.m._tide_field_build_flee(map.handle(), d, dangers.length, fleeFactor, pp, o); } finally { this.free(d); }
        }, params);
    }
    /** Toward `goals`, keeping away from `dangers` (cost + weight x (radius - D) / radius near them). */
    buildMixedField(map, goals, dangers, weight, radius, params) {
        return this.fieldCall((o, pp) => {
            const g = this.cells(goals), d = this.cells(dangers);
            try {
                return this.m._tide_field_build_mixed(map.handle(), g, goals.length, d, dangers.length, weight, radius, pp, o);
            } finally {
                this.free(g);
                this.free(d);
            }
        }, params);
    }
    /** @private */ fieldCall(fn, params) {
        const pp = this.fieldParams(params);
        try { return new Field(this, this.out((o) => fn(o, pp))); } finally { this.free(pp); }
    }

    // ---- the field service and the world ----
    /** A field service on a copy of `map`: cached fields per goal, repaired after edits. Builds run
     *  inside the calls (no threads in this build); call publish() to hand out what was built. */
    createService(map, { budgetBytes, autoPublish = false, repair = true } = {}) {
        return new FieldService(this, map, { budgetBytes, autoPublish, repair });
    }
    /** Directions for a host that moves its own units over `field` (built on `map`), in cell units:
     *  options {radius, size, lookAhead, corners} as tide_steer_params. */
    createSteering(field, map, options = {}) { return new Steering(this, field, map, options); }
    /** An empty world (load a map next); settings as tide_world_config. */
    createWorld(config = {}) { return new World(this, config); }
    /** Bytes of the module's memory (it grows, never shrinks). */
    memoryBytes() { return this.m.HEAPU8.length; }
}

/** @private base of the handle classes */
class Handle {
    constructor(tide, ptr, destroy) {
        this.tide = tide;
        this.ptr = ptr;
        this.token = {};
        // Buffers of the module's memory this object keeps between calls (set with own()): freed
        // with it, by dispose() or by the FinalizationRegistry.
        this.owned = {};
        registry.register(this, { free: destroy, ptr, owned: this.owned, m: tide.m }, this.token);
        this.destroyFn = destroy;
    }
    handle() {
        if (!this.ptr) throw new TideError(4, 'not_found', `${this.constructor.name} used after dispose()`);
        return this.ptr;
    }
    /** @private Replaces the owned buffer `name` by a new one of `bytes` (the old one freed). */
    own(name, bytes) {
        if (this.owned[name]) this.tide.free(this.owned[name]);
        this.owned[name] = 0;
        this.owned[name] = this.tide.alloc(bytes);
        return this.owned[name];
    }
    /** Frees it now (calls after this throw). */
    dispose() {
        if (!this.ptr) return;
        registry.unregister(this.token);
        for (const k of Object.keys(this.owned)) {
            this.tide.free(this.owned[k]);
            this.owned[k] = 0;
        }
        this.destroyFn(this.ptr);
        this.ptr = 0;
    }
}

export class TideMap extends Handle {
    constructor(tide, ptr) { super(tide, ptr, (p) => tide.m._tide_map_destroy(p)); }
    get width() { return this.tide.m._tide_map_width(this.handle()); }
    get height() { return this.tide.m._tide_map_height(this.handle()); }
    /** The costs, row-major (a view: see the file comment). */
    costs() {
        const m = this.tide.m;
        return new Uint8Array(m.HEAPU8.buffer, m._tide_map_costs(this.handle()), this.width * this.height);
    }
    /** Sets one cell's cost (1..254, or COST_WALL). */
    setCost(x, y, cost) { this.tide.check(this.tide.m._tide_map_set_cost(this.handle(), x, y, cost)); }
}

export class Field extends Handle {
    constructor(tide, ptr) {
        super(tide, ptr, (p) => tide.m._tide_field_destroy(p));
        this.scratch = 0;
        this.scratchCount = 0;
    }
    get width() { return this.tide.m._tide_field_width(this.handle()); }
    get height() { return this.tide.m._tide_field_height(this.handle()); }
    get isFlee() { return this.tide.m._tide_field_is_flee(this.handle()) !== 0; }
    /** Least cost to the goal per cell (Infinity: unreachable or wall); flee values for a flee field. */
    integration() {
        const m = this.tide.m;
        return new Float32Array(m.HEAPF32.buffer, m._tide_field_integration(this.handle()), this.width * this.height);
    }
    /** The move of each cell (0..7, DIRECTION_NONE, 9 goal). */
    directions() {
        const m = this.tide.m;
        return new Uint8Array(m.HEAPU8.buffer, m._tide_field_directions(this.handle()), this.width * this.height);
    }
    /** Wall-safe directions at many positions (cell units): xs, ys in; outX, outY out (Float32Arrays
     *  of one length). Positions off the map or on walls get (0, 0). */
    sampleBatch(xs, ys, outX, outY) {
        const n = xs.length;
        if (ys.length !== n || outX.length !== n || outY.length !== n) {
            throw new TideError(1, 'invalid_argument', 'sampleBatch: the four arrays must have one length');
        }
        const t = this.tide, m = t.m;
        if (this.scratchCount < n) {
            this.scratch = this.own('scratch', 16 * n);
            this.scratchCount = n;
        }
        const p = this.scratch;
        m.HEAPF32.set(xs, p >> 2);
        m.HEAPF32.set(ys, (p >> 2) + n);
        t.check(m._tide_field_sample_batch(this.handle(), p, p + 4 * n, n, p + 8 * n, p + 12 * n));
        outX.set(m.HEAPF32.subarray((p >> 2) + 2 * n, (p >> 2) + 3 * n));
        outY.set(m.HEAPF32.subarray((p >> 2) + 3 * n, (p >> 2) + 4 * n));
    }
    /** The wall-safe direction at one position, {x, y}. */
    sample(x, y) {
        const ox = new Float32Array(1), oy = new Float32Array(1);
        this.sampleBatch(Float32Array.of(x), Float32Array.of(y), ox, oy);
        return { x: ox[0], y: oy[0] };
    }
    dispose() {
        this.scratch = 0;
        this.scratchCount = 0;
        super.dispose();
    }
}

export class FieldService extends Handle {
    constructor(tide, map, { budgetBytes, autoPublish, repair }) {
        const m = tide.m;
        const cfg = tide.alloc(32);  // tide_service_config: u64 budget, i32 parallel, i32 auto, i32 repair, (pad), i64 hierarchy
        let ptr;
        try {
            m._tide_service_config_default(cfg);
            if (budgetBytes) m.HEAPU64[cfg >> 3] = BigInt(budgetBytes);
            m.HEAP32[(cfg + 12) >> 2] = autoPublish ? 1 : 0;
            m.HEAP32[(cfg + 16) >> 2] = repair ? 1 : 0;
            ptr = tide.out((o) => m._tide_service_create(map.handle(), cfg, 0, o));
        } finally {
            tide.free(cfg);
        }
        super(tide, ptr, (p) => m._tide_service_destroy(p));
    }
    /** Asks for the field toward `goals`; returns a ticket ({index, generation}). */
    request(goals) {
        const t = this.tide, m = t.m;
        const g = t.cells(goals);
        try {
            return t.withScratch(8, (o) => {
                t.check(m._tide_service_request(this.handle(), g, goals.length, 0, o));
                return { index: m.HEAPU32[o >> 2], generation: m.HEAPU32[(o >> 2) + 1] };
            });
        } finally {
            t.free(g);
        }
    }
    /** Hands out the fields built since the last call; returns how many. */
    publish() { return this.tide.m._tide_service_publish(this.handle()); }
    /** The ticket's published field (a Field to dispose). */
    current(ticket) {
        const t = this.tide;
        return t.withScratch(8, (tk) => {
            t.m.HEAPU32[tk >> 2] = ticket.index;
            t.m.HEAPU32[(tk >> 2) + 1] = ticket.generation;
            return new Field(t, t.out((o) => t.m._tide_service_current(this.handle(), tk, o)));
        });
    }
    /** Sets the cells of [x0, x1] x [y0, y1] to `cost`; cached fields are repaired, tickets get
     *  their new fields at the next publish(). */
    editRect(x0, y0, x1, y1, cost) { this.tide.check(this.tide.m._tide_service_edit_rect(this.handle(), x0, y0, x1, y1, cost)); }
    /** Gives a ticket up. */
    release(ticket) {
        const t = this.tide;
        t.withScratch(8, (tk) => {
            t.m.HEAPU32[tk >> 2] = ticket.index;
            t.m.HEAPU32[(tk >> 2) + 1] = ticket.generation;
            t.check(t.m._tide_service_release(this.handle(), tk));
        });
    }
}

export class Steering extends Handle {
    constructor(tide, field, map, { radius, size, lookAhead, corners } = {}) {
        const m = tide.m;
        const p = tide.alloc(16);
        let ptr;
        try {
            m._tide_steer_params_default(p);
            if (radius !== undefined) m.HEAPF32[p >> 2] = radius;
            if (size !== undefined) m.HEAP32[(p + 4) >> 2] = size;
            if (lookAhead !== undefined) m.HEAP32[(p + 8) >> 2] = lookAhead;
            if (corners !== undefined) m.HEAP32[(p + 12) >> 2] = corners ? 1 : 0;
            ptr = tide.out((o) => m._tide_steering_create(field.handle(), map.handle(), p, 0, o));
        } finally {
            tide.free(p);
        }
        super(tide, ptr, (q) => m._tide_steering_destroy(q));
        this.buf = 0;
        this.bufCount = 0;
        this.memory = 0;  // tide_steer_memory per unit, for steerBatch
        this.memoryCount = 0;
    }
    /** @private */ io(xs, ys, outX, outY) {
        const n = xs.length;
        if (ys.length !== n || outX.length !== n || outY.length !== n) {
            throw new TideError(1, 'invalid_argument', 'the four arrays must have one length');
        }
        const t = this.tide;
        if (this.bufCount < n) {
            this.buf = this.own('buf', 16 * n);
            this.bufCount = n;
        }
        t.m.HEAPF32.set(xs, this.buf >> 2);
        t.m.HEAPF32.set(ys, (this.buf >> 2) + n);
        return n;
    }
    /** @private */ collect(n, outX, outY) {
        const h = this.tide.m.HEAPF32, b = this.buf >> 2;
        outX.set(h.subarray(b + 2 * n, b + 3 * n));
        outY.set(h.subarray(b + 3 * n, b + 4 * n));
    }
    /** Wall-safe directions (the field's bilinear sample) at many positions. */
    sampleBatch(xs, ys, outX, outY) {
        const n = this.io(xs, ys, outX, outY), b = this.buf;
        this.tide.check(this.tide.m._tide_steering_sample_batch(this.handle(), b, b + 4 * n, n, b + 8 * n, b + 12 * n));
        this.collect(n, outX, outY);
    }
    /** Directions straightened by line of sight along the field, clear of walls for the radius, for
     *  units 0..n-1 (unit i keeps a memory in slot i: keep the order stable, or resetMemory()). */
    steerBatch(xs, ys, outX, outY) {
        const t = this.tide, m = t.m;
        const n = this.io(xs, ys, outX, outY), b = this.buf;
        if (this.memoryCount < n) {
            const grown = t.alloc(16 * n);
            if (this.memoryCount) m.HEAPU8.copyWithin(grown, this.memory, this.memory + 16 * this.memoryCount);
            t.free(this.memory);
            this.memory = this.owned.memory = grown;
            for (let i = this.memoryCount; i < n; ++i) m._tide_steer_memory_empty(grown + 16 * i);
            this.memoryCount = n;
        }
        t.check(m._tide_steering_steer_batch(this.handle(), b, b + 4 * n, n, this.memory, b + 8 * n, b + 12 * n));
        this.collect(n, outX, outY);
    }
    /** Forgets what unit i (or every unit) saw: after a teleport or a change of field. */
    resetMemory(i) {
        const m = this.tide.m;
        if (i === undefined) for (let k = 0; k < this.memoryCount; ++k) m._tide_steer_memory_empty(this.memory + 16 * k);
        else if (i >= 0 && i < this.memoryCount) m._tide_steer_memory_empty(this.memory + 16 * i);
    }
    dispose() {
        if (!this.ptr) return;
        this.buf = this.memory = 0;
        this.bufCount = this.memoryCount = 0;
        super.dispose();
    }
}

export class World extends Handle {
    constructor(tide, config) {
        const m = tide.m;
        const cfg = tide.alloc(48);
        let ptr;
        try {
            m._tide_world_config_default(cfg);
            const i32 = (off, v) => { if (v !== undefined) m.HEAP32[(cfg + off) >> 2] = v ? (v === true ? 1 : v) : 0; };
            const f32 = (off, v) => { if (v !== undefined) m.HEAPF32[(cfg + off) >> 2] = v; };
            if (config.seed !== undefined) m.HEAPU64[cfg >> 3] = BigInt(config.seed);
            if (config.hierarchyCells !== undefined) m.HEAP64[(cfg + 8) >> 3] = BigInt(config.hierarchyCells);
            i32(16, config.lockstep);
            i32(20, config.congestion);
            f32(24, config.unitSpeed);
            f32(28, config.unitRadius);
            f32(32, config.unitSeparation);
            i32(36, config.lineOfSight);
            if (config.fieldBudgetBytes !== undefined) m.HEAPU64[(cfg + 40) >> 3] = BigInt(config.fieldBudgetBytes);
            ptr = tide.out((o) => m._tide_world_create(cfg, 0, 0, o));
        } finally {
            tide.free(cfg);
        }
        super(tide, ptr, (p) => m._tide_world_destroy(p));
        this.units = { capacity: 0, positions: 0, states: 0, groups: 0, ids: 0 };
        this.statsBuf = this.own('stats', 72);
    }
    /** Loads a copy of `map`: one group toward `goals`, `units` at random open cells (in
     *  `spawnArea` {x0, y0, x1, y1} when given). */
    load(map, { name = 'map', goals, units = 0, spawnArea } = {}) {
        const t = this.tide, m = t.m;
        const g = t.cells(goals), s = t.string(name);
        const a = spawnArea ? t.alloc(16) : 0;
        try {
            if (a) m.HEAP32.set([spawnArea.x0, spawnArea.y0, spawnArea.x1, spawnArea.y1], a >> 2);
            t.check(m._tide_world_load(this.handle(), map.handle(), s, g, goals.length, units, a));
        } finally {
            t.free(g);
            t.free(s);
            t.free(a);
        }
    }
    /** Adds `count` units of `size` as a new group; returns its id. */
    spawn(count, { size = 1, area, replace = false } = {}) {
        const t = this.tide, m = t.m;
        const a = area ? t.alloc(16) : 0;
        try {
            if (a) m.HEAP32.set([area.x0, area.y0, area.x1, area.y1], a >> 2);
            return t.withScratch(4, (o) => {
                t.check(m._tide_world_spawn(this.handle(), count, size, a, replace ? 1 : 0, o));
                return m.HEAPU32[o >> 2];
            });
        } finally {
            t.free(a);
        }
    }
    /** Orders the units in [x0, x1) x [y0, y1) to `goals`; returns {group, units}. `flags`: OrderFlags. */
    orderBox(x0, y0, x1, y1, goals, flags = 0) {
        const t = this.tide, m = t.m;
        const g = t.cells(goals);
        try {
            return t.withScratch(8, (o) => {
                t.check(m._tide_world_order_box(this.handle(), x0, y0, x1, y1, g, goals.length, flags, o, o + 4));
                return { group: m.HEAPU32[o >> 2], units: m.HEAPU32[(o >> 2) + 1] };
            });
        } finally {
            t.free(g);
        }
    }
    /** Sets a group's goals (group 0: every unit into one group). */
    setGoals(group, goals, flags = 0) {
        const t = this.tide;
        const g = t.cells(goals);
        try { t.check(t.m._tide_world_set_goals(this.handle(), group, g, goals.length, flags)); } finally { t.free(g); }
    }
    /** Paints a round brush (cost 1..254 or COST_WALL); the fields are repaired. */
    paint(x, y, radius, cost) { this.tide.check(this.tide.m._tide_world_paint(this.handle(), x, y, radius, cost)); }
    /** What a tower over `rect` would do: {blocks, coversGoal, coversDanger, unitsCutOff, cellsCutOff, spawnCellsCutOff}. */
    checkTower(rect) {
        const t = this.tide, m = t.m;
        return t.withScratch(56, (p) => {
            m.HEAP32.set([rect.x0, rect.y0, rect.x1, rect.y1], p >> 2);
            t.check(m._tide_world_check_tower(this.handle(), p, p + 16));
            const q = p + 16;
            return {
                blocks: m.HEAP32[q >> 2] !== 0, coversGoal: m.HEAP32[(q >> 2) + 1] !== 0, coversDanger: m.HEAP32[(q >> 2) + 2] !== 0,
                unitsCutOff: Number(m.HEAPU64[(q + 16) >> 3]), cellsCutOff: Number(m.HEAPU64[(q + 24) >> 3]),
                spawnCellsCutOff: Number(m.HEAPU64[(q + 32) >> 3]),
            };
        });
    }
    /** Walls `rect` unless that would cut units off (then throws, naming why). */
    placeTower(rect) {
        const t = this.tide, m = t.m;
        t.withScratch(16, (p) => {
            m.HEAP32.set([rect.x0, rect.y0, rect.x1, rect.y1], p >> 2);
            t.check(m._tide_world_place_tower(this.handle(), p));
        });
    }
    /** Removes the units in [x0, x1) x [y0, y1); returns how many. */
    removeBox(x0, y0, x1, y1) {
        const t = this.tide;
        return t.withScratch(4, (o) => {
            t.check(t.m._tide_world_remove_box(this.handle(), x0, y0, x1, y1, o));
            return t.m.HEAPU32[o >> 2];
        });
    }
    /** Unit settings of every unit. */
    setUnitParams(speed, separation, radius) { this.tide.check(this.tide.m._tide_world_set_unit_params(this.handle(), speed, separation, radius)); }
    setPaused(paused) { this.tide.check(this.tide.m._tide_world_set_paused(this.handle(), paused ? 1 : 0)); }
    setLineOfSight(on) { this.tide.check(this.tide.m._tide_world_set_line_of_sight(this.handle(), on ? 1 : 0)); }
    /** Advances by dt seconds (0 < dt <= 10). */
    tick(dt) { this.tide.check(this.tide.m._tide_world_tick(this.handle(), dt)); }
    /** Builds and publishes every field in flight. */
    finishBuilds() { this.tide.check(this.tide.m._tide_world_finish_builds(this.handle())); }
    /** Counters: {tick, units, arrived, noPath, stuck, exited, stepMs, hierarchical, terrainVersion}. */
    stats() {
        const t = this.tide, m = t.m, p = this.statsBuf;
        t.check(m._tide_world_get_stats(this.handle(), p));
        const u = (off) => Number(m.HEAPU64[(p + off) >> 3]);
        return {
            tick: u(0), units: u(8), arrived: u(16), noPath: u(24), stuck: u(32), exited: u(40),
            stepMs: m.HEAPF64[(p + 48) >> 3], hierarchical: m.HEAP32[(p + 56) >> 2] !== 0, terrainVersion: u(64),
        };
    }
    get width() { return this.tide.m._tide_world_width(this.handle()); }
    get height() { return this.tide.m._tide_world_height(this.handle()); }
    /** The terrain, row-major (a view). */
    costs() {
        const m = this.tide.m;
        return new Uint8Array(m.HEAPU8.buffer, m._tide_world_costs(this.handle()), this.width * this.height);
    }
    /** Reads every unit into buffers the world keeps and returns views of them: {count, positions
     *  (Float32Array x, y pairs), states (Uint8Array of AgentState), groups (Uint32Array)}. */
    readUnits() {
        const t = this.tide, m = t.m, u = this.units;
        const n = m._tide_world_unit_count(this.handle());
        if (u.capacity < n) {
            u.capacity = Math.max(n, 2 * u.capacity, 64);
            u.positions = this.own('positions', 8 * u.capacity);
            u.states = this.own('states', u.capacity);
            u.groups = this.own('groups', 4 * u.capacity);
        }
        const count = t.withScratch(4, (o) => {
            t.check(m._tide_world_read_units(this.handle(), 0, u.positions, 0, u.states, u.groups, 0, u.capacity, o));
            return m.HEAPU32[o >> 2];
        });
        return {
            count,
            positions: new Float32Array(m.HEAPF32.buffer, u.positions, 2 * count),
            states: new Uint8Array(m.HEAPU8.buffer, u.states, count),
            groups: new Uint32Array(m.HEAPU32.buffer, u.groups, count),
        };
    }
    /** The groups: [{id, size, flee, exit, fieldReady, members, exited, arrived, fieldSerial}]. */
    groups() {
        const t = this.tide, m = t.m;
        const n = m._tide_world_group_count(this.handle());
        return t.withScratch(56 * n + 8, (p) => {
            const o = p + 56 * n;
            t.check(m._tide_world_read_groups(this.handle(), p, n, o));
            const out = [];
            for (let i = 0; i < m.HEAPU32[o >> 2]; ++i) {
                const q = p + 56 * i;
                const u = (off) => Number(m.HEAPU64[(q + off) >> 3]);
                out.push({
                    id: m.HEAPU32[q >> 2], size: m.HEAP32[(q + 4) >> 2], flee: m.HEAP32[(q + 8) >> 2] !== 0,
                    exit: m.HEAP32[(q + 12) >> 2] !== 0, fieldReady: m.HEAP32[(q + 16) >> 2] !== 0,
                    members: u(24), exited: u(32), arrived: u(40), fieldSerial: u(48),
                });
            }
            return out;
        });
    }
    /** The field a group follows now (a Field to dispose; flat maps only). */
    groupField(group) { return new Field(this.tide, this.tide.out((o) => this.tide.m._tide_world_group_field(this.handle(), group, o))); }
    /** The lockstep state hash (a BigInt), the same as the native World's for the same commands. */
    stateHash() { return BigInt.asUintN(64, BigInt(this.tide.m._tide_world_state_hash(this.handle()))); }
    dispose() {
        if (!this.ptr) return;
        const u = this.units;
        u.positions = u.states = u.groups = 0;
        u.capacity = 0;
        this.statsBuf = 0;
        super.dispose();
    }
}
