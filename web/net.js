// The WebSocket connection to `tide serve` (docs/protocol.md): JSON text frames both ways, binary
// agents (type 1), fields (type 2), selection (type 3), sectors (type 4), sector fields (type 5),
// terrain (type 6) and fields patch (type 7) frames from the server. Reconnects on its own.

/** State codes of the agents frame (format 3): what a user can read of a unit. */
export const kUnitStateMoving = 0, kUnitStateArrived = 1, kUnitStateNoPath = 2, kUnitStateQueued = 3, kUnitStateStuck = 4;

const kAgentsFrame = 1, kFieldsFrame = 2, kSelectionFrame = 3, kSectorsFrame = 4, kSectorFieldsFrame = 5,
    kTerrainFrame = 6, kFieldsPatchFrame = 7;

/**
 * Decodes a binary server frame into typed-array views over the received buffer (no copy, no
 * per-agent objects). Returns null for an unknown or truncated frame.
 */
export function decodeFrame(buffer) {
    if (buffer.byteLength < 8) return null;
    const dv = new DataView(buffer);
    const type = dv.getUint8(0);
    if (type === kAgentsFrame) {
        if (buffer.byteLength < 20) return null;
        const count = dv.getUint32(4, true);
        if (buffer.byteLength < 20 + 6 * count) return null;
        // Format 2 (byte 1) adds a size byte per unit; format 1 frames draw every unit at size 1.
        const format = dv.getUint8(1);
        const sized = format >= 2 && buffer.byteLength >= 20 + 7 * count;
        // Format 3: states 0 moving, 1 arrived, 2 no path, 3 queued, 4 stuck (kUnitState*). Older
        // formats had 3 for stuck and no queued state.
        let states = new Uint8Array(buffer, 20 + 4 * count, count);
        if (format < 3) states = states.map((s) => (s === 3 ? kUnitStateStuck : s));
        return {
            kind: 'agents',
            count,
            tick: dv.getUint32(8, true),
            scaleX: dv.getFloat32(12, true),
            scaleY: dv.getFloat32(16, true),
            positions: new Uint16Array(buffer, 20, 2 * count), // x0, y0, x1, y1, ...
            states, // 0 moving, 1 arrived, 2 no path, 3 queued, 4 stuck
            groups: new Uint8Array(buffer, 20 + 5 * count, count), // group id & 255
            sizes: sized ? new Uint8Array(buffer, 20 + 6 * count, count) : null, // cells a side, 1..3 (null: all 1)
        };
    }
    if (type === kFieldsFrame) {
        if (buffer.byteLength < 28) return null;
        const width = dv.getUint32(4, true), height = dv.getUint32(8, true);
        // Byte 1: cells between two samples (0 or 1: every cell); big maps are sampled down.
        const stride = Math.max(1, dv.getUint8(1));
        const sampleWidth = Math.ceil(width / stride), sampleHeight = Math.ceil(height / stride);
        const n = sampleWidth * sampleHeight;
        if (buffer.byteLength < 28 + 4 * n) return null;
        return {
            kind: 'fields',
            width,
            height,
            stride,
            sampleWidth,
            sampleHeight,
            version: dv.getUint32(12, true),
            integrationScale: dv.getFloat32(16, true),
            flee: dv.getUint8(2) === 1, // a flee field: value = -q * integrationScale
            buildMs: dv.getFloat32(20, true),
            group: dv.getUint32(24, true), // the group whose field this is
            integration: new Uint16Array(buffer, 28, n), // 65535 = unreachable or wall
            costs: new Uint8Array(buffer, 28 + 2 * n, n), // 1..254, 255 = wall
            // 0..7 moves, 8 goal, 9 unreachable, 10 wall, 11 not planned yet (hierarchical maps)
            directions: new Uint8Array(buffer, 28 + 3 * n, n),
        };
    }
    if (type === kFieldsPatchFrame) {
        // The samples of a rectangle that changed since the fields frame of version baseVersion.
        if (buffer.byteLength < 48) return null;
        const x0 = dv.getUint32(32, true), y0 = dv.getUint32(36, true);
        const w = dv.getUint32(40, true), h = dv.getUint32(44, true), m = w * h;
        if (buffer.byteLength < 48 + 4 * m) return null;
        return {
            kind: 'fieldsPatch',
            width: dv.getUint32(4, true),
            height: dv.getUint32(8, true),
            stride: Math.max(1, dv.getUint8(1)),
            version: dv.getUint32(12, true),
            baseVersion: dv.getUint32(28, true),
            integrationScale: dv.getFloat32(16, true),
            buildMs: dv.getFloat32(20, true),
            group: dv.getUint32(24, true),
            x0, y0, w, h,
            integration: new Uint16Array(buffer, 48, m),
            costs: new Uint8Array(buffer, 48 + 2 * m, m),
            directions: new Uint8Array(buffer, 48 + 3 * m, m),
        };
    }
    if (type === kSectorsFrame) {
        if (buffer.byteLength < 32) return null;
        const portalCount = dv.getUint32(24, true);
        if (buffer.byteLength < 32 + 12 * portalCount) return null;
        return {
            kind: 'sectors',
            width: dv.getUint32(4, true),
            height: dv.getUint32(8, true),
            sectorSize: dv.getUint32(12, true),
            unitSize: dv.getUint32(16, true), // the graph of units of this size
            version: dv.getUint32(20, true), // changes when the terrain edits change the portals
            portalCount,
            nodeCount: dv.getUint32(28, true),
            // Per portal: node a (x, y), node b (x, y), first and last border position (row of a
            // vertical border, column of a horizontal one); a and b on either side of the border.
            portals: new Uint16Array(buffer, 32, 6 * portalCount),
        };
    }
    if (type === kSectorFieldsFrame) {
        if (buffer.byteLength < 24) return null;
        const sectorCount = dv.getUint32(12, true);
        const bytes = Math.ceil(sectorCount / 8);
        if (buffer.byteLength < 24 + bytes) return null;
        return {
            kind: 'sectorFields',
            group: dv.getUint32(4, true),
            unitSize: dv.getUint32(8, true),
            sectorCount,
            built: dv.getUint32(16, true),
            fieldBytes: dv.getUint32(20, true),
            bits: new Uint8Array(buffer, 24, bytes), // bit s (byte s >> 3, bit s & 7): sector s has a field
        };
    }
    if (type === kTerrainFrame) {
        if (buffer.byteLength < 28) return null;
        const w = dv.getUint32(20, true), h = dv.getUint32(24, true);
        if (buffer.byteLength < 28 + w * h) return null;
        return {
            kind: 'terrain',
            width: dv.getUint32(4, true), // the map
            height: dv.getUint32(8, true),
            x0: dv.getUint32(12, true), // the rectangle this frame holds
            y0: dv.getUint32(16, true),
            w,
            h,
            costs: new Uint8Array(buffer, 28, w * h), // row-major, 1..254, 255 = wall
        };
    }
    if (type === kSelectionFrame) {
        if (buffer.byteLength < 16) return null;
        const rosterSize = dv.getUint32(8, true);
        const bytes = Math.ceil(rosterSize / 8);
        if (buffer.byteLength < 16 + bytes) return null;
        return {
            kind: 'selection',
            count: dv.getUint32(4, true),
            rosterSize,
            group: dv.getUint32(12, true), // the group most selected units belong to, 0 when none
            bits: new Uint8Array(buffer, 16, bytes), // bit i (byte i >> 3, bit i & 7): roster index i selected
        };
    }
    return null;
}

/**
 * One connection that reopens itself after a close (0.5 s, doubling up to 4 s).
 * handlers: onMessage(json), onFrame(decoded), onStatus(connected: boolean).
 */
export class Connection {
    constructor(url, handlers) {
        this.url = url;
        this.handlers = handlers;
        this.socket = null;
        this.connected = false;
        this.retryMs = 500;
    }

    open() {
        const socket = new WebSocket(this.url);
        socket.binaryType = 'arraybuffer';
        this.socket = socket;
        socket.onopen = () => {
            this.connected = true;
            this.retryMs = 500;
            this.handlers.onStatus(true);
        };
        socket.onmessage = (event) => {
            if (typeof event.data === 'string') {
                let message;
                try {
                    message = JSON.parse(event.data);
                } catch {
                    return;
                }
                this.handlers.onMessage(message);
            } else {
                const frame = decodeFrame(event.data);
                if (frame) this.handlers.onFrame(frame);
            }
        };
        socket.onclose = () => {
            if (this.socket !== socket) return;
            this.socket = null;
            if (this.connected) this.handlers.onStatus(false);
            this.connected = false;
            setTimeout(() => this.open(), this.retryMs);
            this.retryMs = Math.min(this.retryMs * 2, 4000);
        };
        socket.onerror = () => socket.close();
    }

    /** Sends one client message; false when not connected (the message is dropped). */
    send(message) {
        if (!this.connected || !this.socket) return false;
        this.socket.send(JSON.stringify(message));
        return true;
    }
}

/**
 * The static demo's transport (`make web`): the simulation runs in a Web Worker on the
 * WebAssembly build (worker.js), with the handlers and send() of Connection. The world starts
 * with `options.map` and `options.units` (the page's ?map= and ?units=, as tide serve's --map
 * and --agents). upload() and tmap() stand in for POST /api/map and GET /api/map.tmap.
 */
export class WorkerConnection {
    constructor(handlers, options = {}) {
        this.handlers = handlers;
        this.options = options;
        this.worker = null;
        this.connected = false;
        this.replies = new Map();
        this.nextId = 1;
    }

    open() {
        const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
        this.worker = worker;
        worker.onmessage = (event) => {
            const m = event.data;
            if (m.kind === 'out') {
                for (const data of m.messages) {
                    if (typeof data === 'string') {
                        let message;
                        try {
                            message = JSON.parse(data);
                        } catch {
                            continue;
                        }
                        this.handlers.onMessage(message);
                    } else {
                        const frame = decodeFrame(data);
                        if (frame) this.handlers.onFrame(frame);
                    }
                }
            } else if (m.kind === 'ready') {
                this.connected = true;
                this.handlers.onStatus(true);
            } else if (m.kind === 'failed') {
                this.handlers.onMessage({ type: 'error', message: `the simulation could not start as asked: ${m.error}` });
            } else if (m.kind === 'reply') {
                const resolve = this.replies.get(m.id);
                this.replies.delete(m.id);
                if (resolve) resolve(m);
            }
        };
        worker.onerror = (event) => {
            this.connected = false;
            this.handlers.onStatus(false);
            this.handlers.onMessage({ type: 'error', message: `the simulation worker failed: ${event.message || 'unknown error'}` });
        };
        worker.postMessage({ kind: 'start', map: this.options.map, units: this.options.units, tickHz: 60 });
    }

    /** Sends one client message; false when the worker has not started yet (the message is dropped). */
    send(message) {
        if (!this.connected) return false;
        this.worker.postMessage({ kind: 'send', text: JSON.stringify(message) });
        return true;
    }

    request(message) {
        const id = this.nextId++;
        return new Promise((resolve) => {
            this.replies.set(id, resolve);
            this.worker.postMessage({ ...message, id });
        });
    }

    /** Loads a map file's text: resolves {ok, error} (the error names the file and line). */
    upload(name, text) {
        return this.request({ kind: 'upload', name, text });
    }

    /** The current map as a .tmap: resolves {ok, text} (first line the file name) or {ok: false, error}. */
    tmap() {
        return this.request({ kind: 'tmap' });
    }
}
