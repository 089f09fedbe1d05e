// TypeScript declarations of tide.mjs (Tide in WebAssembly). Positions and cells are in cell units:
// cell (x, y) covers [x, x + 1) x [y, y + 1); y grows downward (row-major maps).

/** A cell, as an object or an [x, y] pair. */
export type CellLike = { x: number; y: number } | [number, number];
/** A rectangle of cells, inclusive. */
export interface Rect { x0: number; y0: number; x1: number; y1: number; }

/** An error of the C API: `code` is the tide_status value (1 invalid argument, 2 off the map, 3 on
 *  a wall, 4 not found, 5 parse error, 6 I/O, 7 too large, 8 unsupported, 9 internal, 10 out of
 *  memory), `status` its C name. */
export class TideError extends Error {
    readonly code: number;
    readonly status: string;
}

export const AgentState: Readonly<{ moving: 0; arrived: 1; noPath: 2; queued: 3 }>;
export const OrderFlags: Readonly<{ flee: 1; exit: 2 }>;
export const COST_WALL: 255;
export const DIRECTION_NONE: 8;

export interface LoadOptions {
    /** Where the module finds tide_wasm.wasm (emscripten's locateFile). */
    locateFile?: (path: string, prefix: string) => string;
    /** The .wasm's bytes, when the host fetched them itself. */
    wasmBinary?: ArrayBuffer | Uint8Array;
}
/** Loads the WebAssembly module (once per page or worker is enough). */
export function loadTide(options?: LoadOptions): Promise<Tide>;

export interface FieldParams { diagonal?: number; connectivity?: 4 | 8; }

export interface Tide {
    readonly version: string;
    /** Parses .map (Moving AI) or .tmap (Tide) text; `source` names it in errors. */
    parseMap(text: string, source?: string): TideMap;
    /** A width x height map with one cost everywhere or the given row-major costs. */
    createMap(width: number, height: number, costs?: number | Uint8Array): TideMap;
    /** A built-in map (default, random256, maze, large, huge) and its default goal. */
    builtinMap(name: string): { map: TideMap; goal: { x: number; y: number } };
    /** The field toward `goals`. */
    buildField(map: TideMap, goals: CellLike[], params?: FieldParams): Field;
    /** The flee field of `dangers` (integration <= 0). */
    buildFleeField(map: TideMap, dangers: CellLike[], fleeFactor?: number, params?: FieldParams): Field;
    /** Toward `goals`, keeping away from `dangers`. */
    buildMixedField(map: TideMap, goals: CellLike[], dangers: CellLike[], weight: number, radius: number,
                    params?: FieldParams): Field;
    /** A field service (cache per goal, repair after edits) on a copy of `map`. */
    createService(map: TideMap, options?: { budgetBytes?: number; autoPublish?: boolean; repair?: boolean }): FieldService;
    /** Directions for a host that moves its own units (cell units). */
    createSteering(field: Field, map: TideMap,
                   options?: { radius?: number; size?: number; lookAhead?: number; corners?: boolean }): Steering;
    /** An empty world. */
    createWorld(config?: WorldConfig): World;
    /** Bytes of the module's memory. */
    memoryBytes(): number;
}

interface Disposable {
    /** Frees it now; later calls throw TideError (not_found). */
    dispose(): void;
}

export interface TideMap extends Disposable {
    readonly width: number;
    readonly height: number;
    /** Row-major costs (1..254, 255 wall): a view into the module's memory, valid until the next call. */
    costs(): Uint8Array;
    setCost(x: number, y: number, cost: number): void;
}

export interface Field extends Disposable {
    readonly width: number;
    readonly height: number;
    readonly isFlee: boolean;
    /** Least cost to the goal per cell (Infinity: unreachable); a view, valid until the next call. */
    integration(): Float32Array;
    /** Move of each cell: 0..7, 8 none, 9 goal; a view. */
    directions(): Uint8Array;
    /** Wall-safe unit directions at many positions; all four arrays of one length. */
    sampleBatch(xs: Float32Array, ys: Float32Array, outX: Float32Array, outY: Float32Array): void;
    sample(x: number, y: number): { x: number; y: number };
}

export interface Steering extends Disposable {
    /** Wall-safe directions at many positions. */
    sampleBatch(xs: Float32Array, ys: Float32Array, outX: Float32Array, outY: Float32Array): void;
    /** Straightened directions (line of sight along the field, clear of walls for the radius) for
     *  units 0..n-1; unit i keeps a memory in slot i. */
    steerBatch(xs: Float32Array, ys: Float32Array, outX: Float32Array, outY: Float32Array): void;
    /** Forgets what unit i (or every unit) saw. */
    resetMemory(i?: number): void;
}

export interface Ticket { index: number; generation: number; }
export interface FieldService extends Disposable {
    request(goals: CellLike[]): Ticket;
    /** Hands out what was built; returns how many fields. */
    publish(): number;
    /** The ticket's published field (dispose it). */
    current(ticket: Ticket): Field;
    /** Sets [x0, x1] x [y0, y1] to `cost`; cached fields are repaired. */
    editRect(x0: number, y0: number, x1: number, y1: number, cost: number): void;
    release(ticket: Ticket): void;
}

export interface WorldConfig {
    seed?: number | bigint;
    hierarchyCells?: number | bigint;
    /** Fields published at fixed points: the same run and state hash on every machine. */
    lockstep?: boolean;
    congestion?: boolean;
    unitSpeed?: number;
    unitRadius?: number;
    unitSeparation?: number;
    lineOfSight?: boolean;
    fieldBudgetBytes?: number | bigint;
}
export interface WorldStats {
    tick: number; units: number; arrived: number; noPath: number; stuck: number; exited: number;
    stepMs: number; hierarchical: boolean; terrainVersion: number;
}
export interface TowerCheck {
    blocks: boolean; coversGoal: boolean; coversDanger: boolean;
    unitsCutOff: number; cellsCutOff: number; spawnCellsCutOff: number;
}
export interface WorldGroup {
    id: number; size: number; flee: boolean; exit: boolean; fieldReady: boolean;
    members: number; exited: number; arrived: number; fieldSerial: number;
}
export interface World extends Disposable {
    readonly width: number;
    readonly height: number;
    load(map: TideMap, options: { name?: string; goals: CellLike[]; units?: number; spawnArea?: Rect }): void;
    spawn(count: number, options?: { size?: 1 | 2 | 3; area?: Rect; replace?: boolean }): number;
    orderBox(x0: number, y0: number, x1: number, y1: number, goals: CellLike[], flags?: number): { group: number; units: number };
    setGoals(group: number, goals: CellLike[], flags?: number): void;
    paint(x: number, y: number, radius: number, cost: number): void;
    checkTower(rect: Rect): TowerCheck;
    placeTower(rect: Rect): void;
    removeBox(x0: number, y0: number, x1: number, y1: number): number;
    setUnitParams(speed: number, separation: number, radius: number): void;
    setPaused(paused: boolean): void;
    setLineOfSight(on: boolean): void;
    tick(dt: number): void;
    finishBuilds(): void;
    stats(): WorldStats;
    costs(): Uint8Array;
    /** Every unit: views of buffers the world keeps (valid until the next call). */
    readUnits(): { count: number; positions: Float32Array; states: Uint8Array; groups: Uint32Array };
    groups(): WorldGroup[];
    groupField(group: number): Field;
    /** The lockstep state hash, equal to the native World's for the same commands. */
    stateHash(): bigint;
}
