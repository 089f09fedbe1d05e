// Tide demo page: wires the connection (net.js), the canvas (view.js) and the controls (ui.js).
// Tests read `window.tide` (fps, frames received per second, units drawn, the last world and stats
// messages, the last server error, readiness).

import { Connection } from './net.js';
import { View } from './view.js';
import { CanvasInput, isTyping, throttled } from './ui.js';

const $ = (id) => document.getElementById(id);
const kMaxSpawn = 100000;
const kMaxUploadBytes = 64 * 1024 * 1024;
const kTerrainNames = { 1: 'plain', 3: 'forest', 6: 'swamp', 255: 'wall' };

const view = new View($('canvas'));
const state = {
    world: null,
    goals: [],
    dragging: false,
    paused: false,
    maxAgents: kMaxSpawn,
    haveFields: false,
    haveAgents: false,
};

const tide = {
    fps: 0, // browser frames per second (requestAnimationFrame rate)
    framesPerSecond: 0, // agents frames received per second
    agentsDrawn: 0,
    world: null,
    stats: null,
    lastError: null,
    ready: false,
    connected: false,
    /** Client coordinates of a cell's centre (for tests driving the mouse). */
    cellToClient: (x, y) => view.cellToClient(x, y),
    /** Current goals as the page draws them. */
    goals: () => state.goals.map((g) => [...g]),
    /** What the page knows of a cell: terrain cost (255 wall) and integration value (Infinity when unreachable). */
    cell: (x, y) => ({ cost: view.costAt(x, y), integration: view.integrationAt(x, y) }),
    /** Sends a raw client message (debugging and tests). */
    send: (message) => send(message),
    /** Device pixels per cell. */
    scale: () => view.scale,
};
window.tide = tide;

// ---- Connection ----------------------------------------------------------------------------------

const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const conn = new Connection(`${scheme}//${location.host}/ws`, {
    onMessage: handleMessage,
    onFrame: handleFrame,
    onStatus: (connected) => {
        tide.connected = connected;
        const badge = $('conn-badge');
        badge.className = `badge ${connected ? 'connected' : 'disconnected'}`;
        badge.textContent = connected ? 'live' : 'disconnected';
        $('disconnected').hidden = connected;
        if (!connected) log('connection lost, reconnecting…', 'info');
    },
});

function send(message) {
    if (!conn.send(message)) log(`not connected: ${message.type} dropped`, 'info');
}

function handleMessage(m) {
    switch (m.type) {
        case 'world': {
            const changed = !state.world || state.world.map !== m.map || state.world.width !== m.width ||
                state.world.height !== m.height;
            state.world = m;
            tide.world = m;
            state.goals = m.goals.map((g) => [...g]);
            state.maxAgents = Math.min(kMaxSpawn, m.max_agents ?? kMaxSpawn);
            view.setWorld(m.width, m.height, state.goals, changed);
            fillMaps(m.maps || [], m.map);
            setParams(m.params || {});
            setPaused(!!m.paused);
            const count = $('spawn-count');
            count.max = String(state.maxAgents);
            if (document.activeElement !== count && typeof m.agents === 'number') count.value = String(m.agents);
            break;
        }
        case 'goals':
            if (tide.world) tide.world.goals = m.goals;
            // Echoes of the intermediate positions of a drag that has just ended would make the marker
            // jump back for a moment: wait (briefly) for the echo of the final position.
            if (state.awaitGoals && performance.now() < state.awaitGoals.until &&
                JSON.stringify(m.goals) !== state.awaitGoals.json) {
                break;
            }
            state.awaitGoals = null;
            if (!state.dragging) {
                state.goals = m.goals.map((g) => [...g]);
                view.setGoals(state.goals);
            }
            break;
        case 'params':
            setParams(m.params || {});
            break;
        case 'paused':
            setPaused(!!m.paused);
            break;
        case 'stats':
            tide.stats = m;
            showStats(m);
            break;
        case 'error':
            tide.lastError = m.message;
            log(m.request ? `${m.request}: ${m.message}` : m.message);
            toast(m.message);
            break;
        default:
            break;
    }
}

let agentFrames = 0;
function handleFrame(frame) {
    if (frame.kind === 'fields') {
        view.setFields(frame);
        state.haveFields = true;
        showHover();
    } else if (frame.kind === 'agents') {
        view.setAgents(frame);
        state.haveAgents = true;
        agentFrames++;
    }
}

// ---- Panel ---------------------------------------------------------------------------------------

function fillMaps(names, current) {
    const select = $('map-select');
    const all = names.includes(current) ? names : [...names, current];
    const existing = [...select.options].map((o) => o.value).join('\n');
    if (existing !== all.join('\n')) {
        select.replaceChildren(...all.map((name) => {
            const option = new Option(names.includes(name) ? name : `${name} (uploaded)`, name);
            option.disabled = !names.includes(name);
            return option;
        }));
    }
    select.value = current;
}

const paramInputs = ['speed', 'separation', 'radius'];
function setParams(params) {
    for (const name of paramInputs) {
        if (typeof params[name] !== 'number') continue;
        const input = $(`param-${name}`);
        if (document.activeElement !== input) input.value = String(params[name]);
        $(`param-${name}-out`).textContent = fmtParam(Number(input.value));
    }
    if (typeof params.radius === 'number') view.setOption('unitRadius', params.radius);
}

function fmtParam(v) {
    return v < 1 ? v.toFixed(2) : String(Math.round(v * 10) / 10);
}

function setPaused(paused) {
    state.paused = paused;
    const button = $('pause');
    button.textContent = paused ? 'Resume' : 'Pause';
    button.classList.toggle('paused', paused);
    $('step').disabled = !paused;
}

function fmtMs(v) {
    return typeof v === 'number' ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : '–';
}

function fmtInt(v) {
    return typeof v === 'number' ? v.toLocaleString('en-US') : '–';
}

function showStats(s) {
    $('stat-agents').textContent = fmtInt(s.agents);
    $('stat-arrived').textContent = fmtInt(s.arrived);
    $('stat-no-path').textContent = fmtInt(s.no_path);
    $('stat-stuck').textContent = fmtInt(s.stuck);
    $('stat-field-ms').textContent = fmtMs(s.field_ms);
    $('stat-step-ms').textContent = fmtMs(s.step_ms);
    $('stat-tick-hz').textContent = typeof s.tick_hz === 'number' ? `${s.tick_hz.toFixed(1)} Hz` : '–';
    $('stat-clients').textContent = fmtInt(s.clients);
}

function log(text, kind = 'error') {
    const list = $('log');
    const item = document.createElement('li');
    item.className = kind;
    item.textContent = `${new Date().toLocaleTimeString('en-GB')} ${text}`;
    list.prepend(item);
    while (list.children.length > 30) list.lastElementChild.remove();
}

let toastTimer = 0;
/** Shows a server error over the canvas for a few seconds (the log keeps it). */
function toast(text) {
    const box = $('toast');
    box.textContent = text;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
        box.hidden = true;
    }, 4000);
}

function showError(text) {
    $('error-text').textContent = text;
    $('error-box').hidden = !text;
}

// Tools.
let tool = 'wall';
function selectTool(button) {
    for (const b of document.querySelectorAll('.tool')) b.classList.toggle('selected', b === button);
    tool = button.dataset.tool;
}
for (const button of document.querySelectorAll('.tool')) button.addEventListener('click', () => selectTool(button));

const brush = $('brush');
const showBrush = () => {
    const r = Number(brush.value);
    $('brush-out').textContent = r === 0 ? '1 cell' : `r ${r}`;
};
brush.addEventListener('input', showBrush);
showBrush();

// Toggles.
const toggles = { 'toggle-heat': 'showHeat', 'toggle-numbers': 'showNumbers', 'toggle-arrows': 'showArrows', 'toggle-trails': 'showTrails' };
for (const [id, option] of Object.entries(toggles)) {
    const box = $(id);
    view.setOption(option, box.checked);
    box.addEventListener('change', () => view.setOption(option, box.checked));
}

// View buttons.
$('fit').addEventListener('click', () => view.fit());
const zoomCentre = (factor) => {
    const r = view.canvas.getBoundingClientRect();
    view.zoomAt(r.left + r.width / 2, r.top + r.height / 2, factor);
};
$('zoom-in').addEventListener('click', () => zoomCentre(1.5));
$('zoom-out').addEventListener('click', () => zoomCentre(1 / 1.5));

// Crowd.
const respawn = () => {
    const input = $('spawn-count');
    const count = Math.max(0, Math.min(state.maxAgents, Math.floor(Number(input.value) || 0)));
    input.value = String(count);
    view.clearTrails();
    send({ type: 'spawn', count });
};
$('spawn').addEventListener('click', respawn);
$('spawn-count').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') respawn();
});
for (const name of paramInputs) {
    const input = $(`param-${name}`);
    const push = throttled((value) => send({ type: 'params', [name]: value }));
    input.addEventListener('input', () => {
        const value = Number(input.value);
        $(`param-${name}-out`).textContent = fmtParam(value);
        if (name === 'radius') view.setOption('unitRadius', value);
        push(value);
    });
}
$('pause').addEventListener('click', () => send({ type: 'pause', paused: !state.paused }));
$('step').addEventListener('click', () => send({ type: 'step' }));

// Maps.
$('map-select').addEventListener('change', (e) => {
    showError('');
    send({ type: 'load_map', name: e.target.value });
});
$('error-close').addEventListener('click', () => showError(''));
$('map-file').addEventListener('change', async (e) => {
    const input = e.target;
    const file = input.files && input.files[0];
    input.value = '';
    if (!file) return;
    if (file.size > kMaxUploadBytes) {
        showError(`${file.name}: ${file.size.toLocaleString('en-US')} bytes, the server takes at most 64 MiB`);
        return;
    }
    try {
        const text = await file.text();
        const response = await fetch(`/api/map?name=${encodeURIComponent(file.name)}`, {
            method: 'POST',
            headers: { 'Content-Type': 'text/plain; charset=utf-8' },
            body: text,
        });
        let answer = null;
        try {
            answer = await response.json();
        } catch {
            answer = null;
        }
        if (response.ok && answer && answer.ok) {
            showError('');
            log(`loaded ${file.name}`, 'info');
        } else {
            const message = (answer && answer.error) || `${file.name}: the server answered ${response.status}`;
            showError(message);
            tide.lastError = message;
        }
    } catch (err) {
        showError(`${file.name}: ${err.message}`);
    }
});

// Keyboard shortcuts.
window.addEventListener('keydown', (e) => {
    if (isTyping(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    const tools = { Digit1: 'tool-wall', Digit2: 'tool-forest', Digit3: 'tool-swamp', Digit4: 'tool-erase' };
    if (tools[e.code]) selectTool($(tools[e.code]));
    else if (e.code === 'KeyP') $('pause').click();
    else if (e.code === 'KeyS' && state.paused) $('step').click();
    else if (e.code === 'KeyF') view.fit();
});

// ---- Canvas --------------------------------------------------------------------------------------

const hoverBox = $('hover');
let hoverCell = null;
new CanvasInput($('canvas'), view, {
    send,
    log,
    tool: () => tool,
    brush: () => Number(brush.value),
    goals: () => state.goals,
    setLocalGoals: (goals) => {
        state.goals = goals;
        view.setGoals(goals);
    },
    setDragging: (dragging) => {
        state.dragging = dragging;
        state.awaitGoals = dragging ? null : { json: JSON.stringify(state.goals), until: performance.now() + 1000 };
    },
    hover: (cell) => {
        hoverCell = cell;
        showHover();
    },
});

/** The cell under the mouse, described in the corner of the canvas (refreshed when fields change). */
function showHover() {
    const cell = hoverCell;
    if (!cell || !view.contains(cell[0], cell[1])) {
        hoverBox.textContent = '';
        return;
    }
    const [x, y] = cell;
    const cost = view.costAt(x, y);
    const value = view.integrationAt(x, y);
    const terrain = kTerrainNames[cost] || `cost ${cost}`;
    const distance = cost === 255 ? '' : Number.isFinite(value) ? ` · distance ${value.toFixed(1)}` : ' · unreachable';
    hoverBox.textContent = `(${x}, ${y}) ${terrain}${distance}`;
}

new ResizeObserver(() => view.resize()).observe($('canvas'));
view.resize();

// ---- Animation and rates -------------------------------------------------------------------------

let frames = 0, rateFrom = performance.now();
function animate(now) {
    view.render();
    frames++;
    tide.agentsDrawn = view.agentsDrawn;
    if (!tide.ready && state.world && state.haveFields && state.haveAgents) tide.ready = true;
    const elapsed = now - rateFrom;
    if (elapsed >= 500) {
        tide.fps = (frames * 1000) / elapsed;
        tide.framesPerSecond = (agentFrames * 1000) / elapsed;
        frames = 0;
        agentFrames = 0;
        rateFrom = now;
        $('stat-frames').textContent = `${tide.framesPerSecond.toFixed(0)} /s`;
        $('stat-fps').textContent = `${tide.fps.toFixed(0)} fps`;
    }
    requestAnimationFrame(animate);
}
requestAnimationFrame(animate);
conn.open();
