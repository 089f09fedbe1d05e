// The static demo's simulation (`make web`, docs/web.md): a Web Worker that runs tide serve's own
// loop and protocol compiled to WebAssembly (apps/web/demo_wasm.cpp, tide_demo.mjs next to this
// file) at a fixed tick, and passes the page's messages in and the frames out, as the WebSocket of
// `tide serve` does. net.js's WorkerConnection is its other end.
//
// From the page: {kind: 'start', map, units, tickHz} once; {kind: 'send', text} for each client
// message (docs/protocol.md); {kind: 'upload', id, name, text} for a map file; {kind: 'tmap', id}.
// To the page: {kind: 'ready'} or {kind: 'failed', error}; {kind: 'out', messages: [string |
// ArrayBuffer, ...]} after each tick (the buffers transferred); {kind: 'reply', id, ok, error,
// text} for upload and tmap.

import createTideDemo from './tide_demo.mjs';

let demo = null;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Copies a string into the module's memory (freed by the caller) and returns [pointer, bytes]. */
function toWasm(text) {
    const bytes = encoder.encode(text);
    const ptr = demo._malloc(bytes.length + 1);
    demo.HEAPU8.set(bytes, ptr);
    demo.HEAPU8[ptr + bytes.length] = 0;
    return [ptr, bytes.length];
}

/** Everything the simulation queued since the last drain, to the page in one message. */
function drain() {
    const n = demo._tide_demo_count();
    if (n === 0) return;
    const messages = [];
    const transfer = [];
    for (let i = 0; i < n; ++i) {
        const ptr = demo._tide_demo_data(i), size = demo._tide_demo_size(i);
        const bytes = demo.HEAPU8.slice(ptr, ptr + size);
        if (demo._tide_demo_binary(i)) {
            messages.push(bytes.buffer);
            transfer.push(bytes.buffer);
        } else {
            messages.push(decoder.decode(bytes));
        }
    }
    demo._tide_demo_clear();
    postMessage({ kind: 'out', messages }, transfer);
}

// The fixed-rate loop of tide serve's simulation thread: a tick every period; after falling more
// than 250 ms behind (a long command, a hidden tab) it restarts from now instead of racing.
function run(tickHz) {
    const period = 1000 / tickHz;
    let next = performance.now();
    const tick = () => {
        next += period;
        if (performance.now() - next > 250) next = performance.now();
        demo._tide_demo_step(1 / tickHz);
        drain();
        setTimeout(tick, Math.max(0, next - performance.now()));
    };
    tick();
}

function lastError() {
    return demo.UTF8ToString(demo._tide_demo_error());
}

onmessage = async (event) => {
    const m = event.data;
    if (m.kind === 'start') {
        try {
            demo = await createTideDemo({ print: (s) => console.log(s), printErr: (s) => console.warn(s) });
        } catch (err) {
            postMessage({ kind: 'failed', error: `the WebAssembly module did not load: ${err.message}` });
            return;
        }
        const start = (map, units) => {
            const [name] = toWasm(map);
            const ok = demo._tide_demo_start(name, units) === 0;
            demo._free(name);
            return ok;
        };
        // A map or count the demo refuses (a mistyped ?map=, more units than the map holds): the
        // error is shown and the default map starts instead.
        if (!start(m.map || 'default', m.units ?? 1000)) {
            postMessage({ kind: 'failed', error: `${lastError()}; starting the default map with 1,000 units` });
            if (!start('default', 1000)) {
                postMessage({ kind: 'failed', error: lastError() });
                return;
            }
        }
        postMessage({ kind: 'ready' });
        drain();
        run(m.tickHz || 60);
    } else if (!demo) {
        // Messages before the start: nothing to apply them to.
    } else if (m.kind === 'send') {
        const [ptr, size] = toWasm(m.text);
        demo._tide_demo_message(ptr, size);
        demo._free(ptr);
        drain();  // pongs and parse errors go at once
    } else if (m.kind === 'upload') {
        const [name] = toWasm(m.name);
        const [body, size] = toWasm(m.text);
        const ok = demo._tide_demo_upload(name, body, size) === 0;
        demo._free(name);
        demo._free(body);
        postMessage({ kind: 'reply', id: m.id, ok, error: ok ? null : lastError() });
    } else if (m.kind === 'tmap') {
        const ptr = demo._tide_demo_tmap();
        postMessage({ kind: 'reply', id: m.id, ok: ptr !== 0, text: ptr ? demo.UTF8ToString(ptr) : null,
            error: ptr ? null : lastError() });
    }
};
