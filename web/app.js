// Tide demo page: wires the connection (net.js), the canvas (view.js) and the controls (ui.js).
// Tests read `window.tide` (fps, frames received per second, units drawn, the last world and stats
// messages, the last server error, readiness, the selection, the groups, the field shown, unit
// sizes, the tower stamp and the sector overlay).

import { Connection, WorkerConnection } from './net.js';
import { colours, css, groupColour, kUnitStates, mix, unitColour, viridis } from './palette.js';
import { kArrowMinCell, kNumbersMinCell, View } from './view.js';
import { CanvasInput, isTyping, throttled, TowerProbe, towerKey } from './ui.js';

const $ = (id) => document.getElementById(id);
const kMaxSpawn = 100000;
const kMaxUploadBytes = 64 * 1024 * 1024;
const kTerrainNames = { 1: 'plain', 3: 'forest', 6: 'swamp', 255: 'wall' };
const kUnitsPerFreeCell = 10; // the server's limit (tide/limits.hpp kMaxUnitsPerFreeCell)
const kSlowTickHz = 50; // below this server tick rate the badge shows
const kHintDoneKey = 'tide.firstRunHintDone';
// The mouse hint names the gap in the left wall only on maps that have it (the default map, and the
// scenarios built on it); elsewhere it says the same thing in general words.
const kGapMaps = new Set(['default', 'scenario:gap_swap', 'scenario:goal_beside_gap']);
const mouseHint = (where) => `Try this: <b>drag the G</b> to move the goal · press <b>1</b> and <b>paint a wall</b> ${where} · ` +
    '<b>drag a box</b> around units, then <b>right-click</b> to send them · <b>?</b> lists every control';
const kHintText = mouseHint('across the gap in the left wall');
const kGenericHintText = mouseHint("across the units' way");
// On a touch screen (a finger is the main pointer): the gestures instead of the mouse buttons and keys.
const kTouchHintText = 'Try this: <b>drag the G</b> · <b>long-press, then drag</b> a box around units, ' +
    '<b>tap</b> to send them there · <button class="hint-help" title="Controls and gestures">?</button> lists every gesture';
const touchFirst = () => matchMedia('(pointer: coarse)').matches;

const view = new View($('canvas'));
const state = {
    world: null,
    serverGroups: [], // the groups as the server last sent them
    groups: [], // the groups as drawn: the server's, with the goals of a group being dragged replaced
    localGoals: new Map(), // group id -> goals set here and not yet echoed by the server
    dragging: 0, // the group whose goal marker is being dragged
    awaitGoals: null, // {group, key, until}: the echo of the goals last set here
    selection: { count: 0, rosterSize: 0, group: 0, bits: null, serial: 0 },
    viewChoice: 0, // the group this client asked to see (`view`), 0 = automatic
    shownGroup: 0, // the group of the field on screen (the fields frame's header)
    unitCount: 0,
    paused: false,
    maxAgents: kMaxSpawn,
    haveFields: false,
    haveAgents: false,
    syncSpawnCount: false,
    tower: null, // the tower stamp under the cursor: {x0, y0, x1, y1} cells, inclusive
    towerVerdict: null, // the server's `tower` answer for that stamp (null while none came)
    loading: null, // the built-in map asked for and not yet loaded (big maps take seconds)
    wallMargin: [0, 0], // the wall margin the groups plan with [radius, extra] (params echo)
    congestion: null, // whether the groups plan around the crowd (params echo; null before one)
    pendingSelects: 0, // `select` messages sent whose selection frame has not come back yet
    firstStats: true, // no stats message yet since the page loaded
    heatChosen: false, // the user flipped the heat map: no automatic choice any more
    slowTicks: 0, // consecutive stats messages under kSlowTickHz
    inspectTimer: 0, // refreshes the inspected unit while its box is open
    groupStates: new Map(), // group id -> its units by state (the stats message's group_states)
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
    lastOrdered: null, // the last `ordered` reply
    lastTower: null, // the last `tower` answer (to tower_check)
    lastTowerPlaced: null, // the last `tower_placed` reply
    lastSnapped: null, // the last `snapped` reply (goals moved off walls)
    lastAstar: null, // the last `astar` reply (the A* comparison)
    fieldPatches: 0, // fields patch frames applied (the rectangle that changed, instead of a whole frame)
    lastInspected: null, // the last `inspected` reply
    firstRunRespawn: false, // the page respawned a settled crowd when it loaded
    /** Whether the magnifier is drawn (a goal dragged while cells are small). */
    lensShown: () => !!view.lens,
    /** Whether the first-run hint is on screen. */
    hintShown: () => !$('hint').hidden,
    /** Client coordinates of a cell's centre (for tests driving the mouse). */
    cellToClient: (x, y) => view.cellToClient(x, y),
    /** Client coordinates of a position in cell units (cell x spans x..x+1). */
    positionToClient: (x, y) => view.positionToClient(x, y),
    /** The position in cell units under client coordinates. */
    clientToPosition: (x, y) => view.positionAt(x, y),
    /** Every group's goals as the page draws them, flattened. */
    goals: () => state.groups.flatMap((g) => g.goals.map((c) => [...c])),
    /** The groups as the page draws them: [{id, goals, members, field_ready, order_ms}]. */
    groups: () => state.groups.map((g) => ({ ...g, goals: g.goals.map((c) => [...c]) })),
    /** Units selected (the last selection frame). */
    selectionCount: () => state.selection.count,
    /** Roster indices of the selected units. */
    selectedIndices: () => selectedIndices(),
    /** The group most selected units belong to (0 when none). */
    selectionGroup: () => state.selection.group,
    /** The group whose field is on screen (the fields frame's header). */
    shownGroup: () => state.shownGroup,
    /** The group this client asked to see, 0 for automatic. */
    viewChoice: () => state.viewChoice,
    /** The selection box being drawn ({x0, y0, x1, y1} in cell units), or null. */
    selectBand: () => (view.band ? { ...view.band } : null),
    /** Whether the long-press ring is on screen (a touch long press registered). */
    pressShown: () => !!view.press,
    /** The first-run hint's text (plain). */
    hintText: () => $('hint-text').textContent,
    /** The box of the last `select` the canvas sent ([x0, y0, x1, y1] in cell units, or null). */
    lastSelectBox: () => input.lastSelectBox,
    /** What the page knows of a cell: terrain cost (255 wall) and integration value (Infinity when unreachable). */
    cell: (x, y) => ({ cost: view.costAt(x, y), integration: view.integrationAt(x, y) }),
    /** The formations the page draws as ghost slots: [{group, slots: count, arrived}]. */
    formations: () => view.formations.map((f) => ({ group: f.group, slots: f.slots.length / 2, arrived: f.arrived })),
    /** Sends a raw client message (debugging and tests). */
    send: (message) => send(message),
    /** Device pixels per cell. */
    scale: () => view.scale,
    /** Units of each size in the last agents frame: {1: n, 2: n, 3: n}. */
    unitSizes: () => unitSizeCounts(),
    /**
     * The last agents frame as plain arrays (tests; the static demo has no /api/agents): {tick,
     * x, y (cell units), state, group (id & 255)}.
     */
    units: () => {
        const f = view.agents;
        if (!f) return null;
        const x = [], y = [];
        for (let i = 0; i < f.count; i++) {
            x.push(f.positions[2 * i] * f.scaleX);
            y.push(f.positions[2 * i + 1] * f.scaleY);
        }
        return { tick: f.tick, x, y, state: [...f.states], group: [...f.groups] };
    },
    /** Units in each state in the last agents frame: [moving, arrived, no path, queued, stuck]. */
    unitStates: () => unitStateCounts(),
    /** The Groups panel as shown: [{id, columns: {units, arrived, queued, stuck, 'no path', left}}] (numbers as text). */
    groupRows: () => groupRows(),
    /** The tower stamp under the cursor and its verdict: {x0, y0, x1, y1, state: 'pending' | 'free' | 'blocks', answer}, or null. */
    towerStamp: () => (state.tower ? { ...state.tower, state: towerState(), answer: state.towerVerdict } : null),
    /** Whether the sector overlay is on. */
    showSectors: () => view.showSectors,
    /**
     * What the page knows of the sector overlay (hierarchical maps): {sectorSize, portals, nodes,
     * version, unitSize, group, built, sectorCount, builtIds}; null before any sectors frame.
     */
    sectors: () => sectorSummary(),
    /** Whether the field on screen is a flee field (its values are <= 0). */
    fieldIsFlee: () => !!(view.fields && view.fields.flee),
    /** The wall margin the groups plan with, [radius, extra] ([0, 0]: none). */
    wallMargin: () => [...state.wallMargin],
    /** Whether the groups' fields count the crowd's density (params echo; null before one came). */
    congestion: () => state.congestion,
    /**
     * Test hook: how many background pixels differ from a background coloured and drawn afresh
     * (0 when the partial redraws after fields patches are right).
     */
    backgroundDiff: () => {
        view.render();
        const drawn = view.bg32.slice();
        view.colourCache = null;
        view.dirty = true;
        view.render();
        let differ = 0;
        for (let i = 0; i < drawn.length; i++) differ += drawn[i] !== view.bg32[i];
        return differ;
    },
    /**
     * Times n frames drawn in a row (tests/e2e/rendertime.mjs): the whole of view.render() (which
     * reuses the composed units while nothing changed) and its parts done in full (background copy,
     * units, putImageData, overlay), medians in ms.
     */
    timeRender: (n) => {
        const parts = { copy: [], units: [], put: [], overlay: [] }, all = [];
        const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
        for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            view.render();
            all.push(performance.now() - t0);
            const t1 = performance.now();
            view.frame32.set(view.bg32);
            const t2 = performance.now();
            view.stampUnits(view.frame32);
            const t3 = performance.now();
            view.ctx.putImageData(view.frame, 0, 0);
            const t4 = performance.now();
            view.drawOverlay();
            const t5 = performance.now();
            parts.copy.push(t2 - t1);
            parts.units.push(t3 - t2);
            parts.put.push(t4 - t3);
            parts.overlay.push(t5 - t4);
        }
        const sorted = [...all].sort((x, y) => x - y);
        return { median: med(all), p90: sorted[Math.floor(n * 0.9)],
            parts: Object.entries(parts).map(([k, v]) => `${k} ${med(v).toFixed(2)}`).join(', ') };
    },
};
window.tide = tide;

// ---- Connection ----------------------------------------------------------------------------------

// tide serve's page talks to it over a WebSocket; the static demo (make web: its index.html says
// "worker") runs the same simulation in a Web Worker on the WebAssembly build. ?transport=worker
// or =websocket overrides; ?map=NAME and ?units=N start the worker's world (tide serve: --map, --agents).
const pageQuery = new URLSearchParams(location.search);
const transport = pageQuery.get('transport') ||
    document.querySelector('meta[name="tide-transport"]')?.content || 'websocket';
tide.transport = transport;
if (transport === 'worker') {
    $('sub').innerHTML = 'flow-field pathfinding and crowd, running in this page (WebAssembly, no server)';
    $('disconnected').textContent = 'starting the simulation…';
    $('astar-compare').title = 'Plan every unit of the shown group with A* in this page, and compare with one field build (C)';
}
const connectionHandlers = {
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
};
const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const conn = transport === 'worker'
    ? new WorkerConnection(connectionHandlers, {
        map: pageQuery.get('map') || 'default',
        units: Math.max(0, Math.min(kMaxSpawn, Number(pageQuery.get('units') ?? 1000) || 0)),
    })
    : new Connection(`${scheme}//${location.host}/ws`, connectionHandlers);

// Messages that mean the user has found their way around: the first-run hint goes.
const kHintDoneBy = new Set(['set_goals', 'paint', 'order', 'place_tower']);
function send(message) {
    if (kHintDoneBy.has(message.type)) dismissHint();
    const sent = conn.send(message);
    if (sent && message.type === 'select') state.pendingSelects++;
    if (!sent) log(`not connected: ${message.type} dropped`, 'info');
    return sent;
}

function handleMessage(m) {
    switch (m.type) {
        case 'world': {
            const changed = !state.world || state.world.map !== m.map || state.world.width !== m.width ||
                state.world.height !== m.height;
            state.world = m;
            tide.world = m;
            state.maxAgents = Math.min(kMaxSpawn, m.max_agents ?? kMaxSpawn);
            view.setWorld(m.width, m.height, changed);
            // A new map (or a new connection): the server has cleared this client's selection and view.
            state.localGoals.clear();
            state.awaitGoals = null;
            state.viewChoice = 0;
            setSelection({ count: 0, rosterSize: 0, group: 0, bits: null }, true);
            setGroups(m.groups || []);
            fillMaps(m.maps || [], m.map, m.uploads || []);
            if (changed) {
                clearComparison();
                closeInspect();
                autoHeat();
            }
            setParams(m.params || {});
            setPaused(!!m.paused);
            const count = $('spawn-count');
            count.max = String(state.maxAgents);
            if (document.activeElement !== count && typeof m.agents === 'number') count.value = String(m.agents);
            // The world message a new connection gets may predate the last respawn: the next stats
            // message has the current count.
            state.syncSpawnCount = true;
            if (state.loading) {
                $('toast').hidden = true;
                log(`loaded ${m.map} (${m.width}×${m.height}, ${m.planner || 'flat'})`, 'info');
            }
            state.loading = null;
            setPlanner(m);
            if (!$('hint').hidden) showHint(hintText()); // the gap is named only on maps that have it
            towerProbe.recheck();
            break;
        }
        case 'groups':
            setGroups(m.groups || []);
            towerProbe.recheck(); // units or goals changed: what a tower would cut off may have too
            break;
        case 'tower':
            tide.lastTower = m;
            towerProbe.answer(m);
            break;
        case 'tower_placed':
            tide.lastTowerPlaced = m;
            log(`tower placed at (${m.x0}, ${m.y0})-(${m.x1}, ${m.y1})`, 'info');
            towerProbe.recheck();
            break;
        case 'snapped': {
            tide.lastSnapped = m;
            const moves = (m.moves || []).map((v) => `(${v.from[0]}, ${v.from[1]}) → (${v.to[0]}, ${v.to[1]})`);
            const text = `goal on a wall moved to the nearest open cell: ${moves.join(', ')}`;
            log(text, 'info');
            toast(text, 4000, 'info');
            break;
        }
        case 'astar':
            tide.lastAstar = m;
            showComparison(m);
            break;
        case 'inspected':
            tide.lastInspected = m;
            showInspected(m);
            break;
        case 'ordered':
            tide.lastOrdered = m;
            log(`ordered ${fmtInt(m.units)} units: group ${m.group}`, 'info');
            break;
        case 'params':
            setParams(m.params || {});
            break;
        case 'paused':
            setPaused(!!m.paused);
            break;
        case 'stats':
            tide.stats = m;
            view.setFormations(Array.isArray(m.formations) ? m.formations : []);
            showStats(m);
            if (state.firstStats) {
                state.firstStats = false;
                firstRun(m);
            }
            showTickBadge(m);
            if (state.syncSpawnCount && typeof m.agents === 'number') {
                state.syncSpawnCount = false;
                const count = $('spawn-count');
                if (document.activeElement !== count) count.value = String(m.agents);
            }
            break;
        case 'error':
            tide.lastError = m.message;
            log(m.request ? `${m.request}: ${m.message}` : m.message);
            if (m.request === 'tower_check') {
                towerProbe.answer(null); // a hover question: logged, not worth a toast
                break;
            }
            toast(m.message);
            if (m.request === 'spawn') showSpawnNote(m.message);
            if (m.request === 'astar_compare') $('astar-box').hidden = true;
            // A refused setting (the wall margin or congestion on a hierarchical map): the boxes show
            // what the groups plan with, not what was asked for.
            if (m.request === 'wall_margin' || m.request === 'congestion') showPlanningToggles();
            if (m.request === 'set_goals' && !state.dragging) {
                // Refused: draw the server's goals again.
                state.localGoals.clear();
                state.awaitGoals = null;
                refreshGroups();
            }
            break;
        default:
            break;
    }
}

let agentFrames = 0;
/**
 * The fields frame `patch` makes of the one on screen (a copy with the patch's rectangle of samples
 * written), or null when it does not apply (another group or base version: the server then sends
 * whole frames).
 */
function patchedFields(patch) {
    const f = view.fields;
    if (!f || f.group !== patch.group || f.version !== patch.baseVersion || f.width !== patch.width ||
        f.height !== patch.height || f.stride !== patch.stride) {
        return null;
    }
    const integration = f.integration.slice(), costs = f.costs.slice(), directions = f.directions.slice();
    for (let r = 0; r < patch.h; r++) {
        const to = (patch.y0 + r) * f.sampleWidth + patch.x0, from = r * patch.w;
        integration.set(patch.integration.subarray(from, from + patch.w), to);
        costs.set(patch.costs.subarray(from, from + patch.w), to);
        directions.set(patch.directions.subarray(from, from + patch.w), to);
    }
    return { ...f, version: patch.version, integrationScale: patch.integrationScale, buildMs: patch.buildMs,
        integration, costs, directions };
}

function handleFrame(frame) {
    let patch = null; // the rectangle of samples a patch rewrote: only that is drawn again
    if (frame.kind === 'fieldsPatch') {
        const whole = patchedFields(frame);
        if (!whole) {  // ask for a whole frame of the field chosen
            send({ type: 'view', group: state.viewChoice });
            return;
        }
        tide.fieldPatches++;
        patch = { x0: frame.x0, y0: frame.y0, w: frame.w, h: frame.h };
        frame = whole;
    }
    if (frame.kind === 'fields') {
        view.setFields(frame, patch);
        showColourBar();
        state.haveFields = true;
        state.shownGroup = frame.group;
        towerProbe.recheck(); // the terrain or a field changed
        showHover();
        showGroups();
    } else if (frame.kind === 'agents') {
        view.setAgents(frame);
        state.haveAgents = true;
        state.unitCount = frame.count;
        agentFrames++;
    } else if (frame.kind === 'selection') {
        setSelection(frame);
    } else if (frame.kind === 'terrain') {
        view.setTerrain(frame);
        showHover();
    } else if (frame.kind === 'sectors') {
        view.setSectors(frame);
        showSectorsLine();
    } else if (frame.kind === 'sectorFields') {
        view.setSectorFields(frame);
        showSectorsLine();
    }
}

/** The sector overlay as the page knows it (window.tide.sectors()). */
function sectorSummary() {
    const sec = view.sectors, built = view.sectorFields;
    if (!sec) return null;
    const builtIds = [];
    if (built) for (let i = 0; i < built.sectorCount; i++) if (built.bits[i >> 3] & (1 << (i & 7))) builtIds.push(i);
    return { sectorSize: sec.sectorSize, portals: sec.portalCount, nodes: sec.nodeCount, version: sec.version,
        unitSize: sec.unitSize, group: built ? built.group : 0, built: built ? built.built : 0,
        sectorCount: built ? built.sectorCount : 0, builtIds };
}

/** The overlay's legend line: sectors with a field, portals. */
function showSectorsLine() {
    const out = $('sectors-line');
    const s = sectorSummary();
    if (!s || !view.showSectors) {
        out.hidden = true;
        return;
    }
    out.hidden = false;
    const built = view.sectorFields;
    out.textContent = `${s.sectorSize}×${s.sectorSize} sectors: ${fmtInt(s.built)} of ${fmtInt(s.sectorCount)} with a field for group ${s.group}` +
        `${built ? ` (${fmtMb(built.fieldBytes)})` : ''} · ${fmtInt(s.portals)} portals`;
}

/** Flat or hierarchical map: the Sectors toggle and the Tower tool follow (towers are flat-only). */
function setPlanner(world) {
    const hierarchical = world.planner === 'hierarchical';
    $('toggle-sectors').disabled = !hierarchical;
    $('sectors-label').title = hierarchical
        ? 'Sector borders, portals (orange) and the sectors with a field for the group shown (O)'
        : 'Only maps that plan hierarchically have sectors';
    $('hier-row').hidden = !hierarchical;
    const tower = $('tool-tower');
    tower.disabled = false;
    tower.title = 'Tower: click to wall a square; green where it leaves every unit a way to its goal, red where it would cut units off (refused) (T)';
    showSectorsLine();
}

// ---- Groups and selection ------------------------------------------------------------------------

/** Takes a groups list from the server; goals being dragged (or just dropped) keep their local value. */
function setGroups(groups) {
    state.serverGroups = groups;
    if (tide.world) tide.world.goals = groups.flatMap((g) => g.goals);
    const wait = state.awaitGoals;
    if (wait) {
        // Echoes of goals sent before the last local change (the intermediate positions of a drag)
        // would make a marker jump back for a moment: wait (briefly) for the echo of the last one.
        const echo = groups.find((g) => g.id === wait.group);
        if (!echo || performance.now() >= wait.until || goalsKey(echo.goals) === wait.key) {
            state.awaitGoals = null;
        }
    }
    for (const id of [...state.localGoals.keys()]) {
        if (id !== state.dragging && (!state.awaitGoals || state.awaitGoals.group !== id)) state.localGoals.delete(id);
    }
    refreshGroups();
    if (state.viewChoice !== 0 && !groups.some((g) => g.id === state.viewChoice)) setView(0);
}

/** Rebuilds the drawn groups from the server's list and the local goals. */
function refreshGroups() {
    state.groups = state.serverGroups.map((g) => ({
        id: g.id,
        goals: (state.localGoals.get(g.id) || g.goals).map((c) => [c[0], c[1]]),
        members: g.members,
        size: g.size || 1,
        field_ready: g.field_ready,
        flee: !!g.flee,
        exit: !!g.exit,
        exited: g.exited || 0,
        order_ms: g.order_ms,
    }));
    view.setMarkers(state.groups);
    showGroups();
}

/** A goal set's identity, whatever the order (the server lists goals by row, then column). */
function goalsKey(goals) {
    return JSON.stringify([...goals].sort((a, b) => a[1] - b[1] || a[0] - b[0]));
}

/** Goals of `group` changed here (and sent): drawn at once, until the server's echo. */
function setLocalGoals(group, goals) {
    state.localGoals.set(group, goals.map((c) => [c[0], c[1]]));
    state.awaitGoals = { group, key: goalsKey(goals), until: performance.now() + 1000 };
    refreshGroups();
}

/**
 * A selection frame (or, `local`, the selection cleared here after a world message). `serial` names
 * a selection: it changes when this client sends `select` (select()) and when the server clears the
 * selection on its own (a roster change); a frame answering a `select` of ours does not change it,
 * however late it comes, so an order and a shift+right-click after it agree on the selection.
 */
function setSelection(frame, local = false) {
    const previous = state.selection.count;
    const answer = !local && state.pendingSelects > 0;
    if (answer) state.pendingSelects--;
    if (local) state.pendingSelects = 0;
    const cleared = !answer && frame.count === 0 && previous > 0;
    state.selection = { count: frame.count, rosterSize: frame.rosterSize, group: frame.group, bits: frame.bits,
        serial: state.selection.serial + (cleared ? 1 : 0) };
    view.setSelection(frame.count > 0 ? frame : null);
    const out = $('selection-count');
    out.textContent = frame.count > 0 ? `${fmtInt(frame.count)} selected` : 'nothing selected';
    out.classList.toggle('some', frame.count > 0);
    $('selection-clear').disabled = frame.count === 0;
    showGroups();
}

/** Sends `select` for a box ([x0, y0, x1, y1] in cell units) or null; a new selection. */
function select(box) {
    state.selection.serial++;
    send({ type: 'select', box });
}

function selectedIndices() {
    const s = state.selection, out = [];
    if (!s.bits) return out;
    for (let i = 0; i < s.rosterSize; i++) if (s.bits[i >> 3] & (1 << (i & 7))) out.push(i);
    return out;
}

/** Asks for the field of `group` (0: automatic). */
function setView(group) {
    state.viewChoice = group;
    send({ type: 'view', group });
    showGroups();
}

let groupsHtml = '';
/**
 * The Groups list: a row per group with its units by state (members, arrived, queued, stuck, no
 * path, and on maps with exits the units that left), plus "auto"; the chosen row marked, the one
 * on screen named.
 */
function showGroups() {
    // Exit groups never arrive (their units leave): "left" instead of "arrived" when every group
    // is one, beside it when some are.
    const exits = state.groups.some((g) => g.exit), goals = !state.groups.length || state.groups.some((g) => !g.exit);
    const columns = [['members', 'units', 'Units in the group'],
        ...(goals ? [['arrived', 'arrived', 'At the goal, or in the pack round it']] : []),
        ...(exits ? [['exited', 'left', 'Units that left the map by an exit']] : []),
        ['queued', 'queued', 'Waiting their turn behind other units'], ['stuck', 'stuck', 'Wedged: no progress with free room ahead'],
        ['no_path', 'no path', 'Cut off from every goal']];
    const auto = state.viewChoice === 0 ? 'chosen' : '';
    const autoTitle = "Show the field of the selection's group, else of the largest group";
    const head = columns.map(([, label, title]) => `<span class="n" title="${title}">${label}</span>`).join('');
    const rows = [`<li class="head"><span class="name">group</span>${head}</li>`,
        `<li data-group="0" class="${auto}" title="${autoTitle}">` +
        '<span class="name">auto</span><span class="note">selection, else largest</span></li>'];
    for (const g of state.groups) {
        const classes = [g.id === state.viewChoice ? 'chosen' : '', g.id === state.shownGroup ? 'shown' : '']
            .join(' ').trim();
        // The counts of one stats message (members too, so that a row adds up); a group too new
        // for them shows its members from the groups message.
        const counts = state.groupStates.get(g.id);
        const members = counts ? counts.moving + counts.arrived + counts.queued + counts.stuck + counts.no_path : g.members;
        const value = (key) => (key === 'members' ? members : counts ? counts[key] : key === 'exited' ? g.exited : undefined);
        const cells = columns.map(([key]) => {
            const v = value(key);
            return `<span class="n${v ? '' : ' zero'}">${fmtCount(v)}</span>`;
        }).join('');
        const n = g.goals.length;
        const goals = g.exit ? `${n} exit${n === 1 ? '' : 's'}` : g.flee ? `flees ${n} danger${n === 1 ? '' : 's'}` : `${n} goal${n === 1 ? '' : 's'}`;
        const notes = [g.size > 1 ? `${g.size}×${g.size} units` : '', n > 1 || g.exit || g.flee ? goals : '',
            g.field_ready ? '' : 'building field…'].filter(Boolean);
        const title = `Group ${g.id}: ${goals}${g.size > 1 ? `, units of ${g.size}×${g.size} cells` : ''}. Show its field (click again: auto)`;
        rows.push(`<li data-group="${g.id}" class="${classes}" title="${title}">` +
            `<span class="name"><i class="sw" style="background:${css(groupColour(g.id))}"></i>${g.id}</span>${cells}` +
            `${notes.length ? `<span class="note">${notes.join(' · ')}</span>` : ''}</li>`);
    }
    const html = rows.join('');
    if (html !== groupsHtml) {
        groupsHtml = html;
        const list = $('groups');
        list.classList.toggle('cols6', columns.length === 6);
        list.innerHTML = html;
    }
    const shown = state.shownGroup;
    $('field-shown').textContent = shown ? `group ${shown}${state.viewChoice === 0 ? ' (auto)' : ''}` : '–';
    $('field-swatch').style.background = shown ? css(groupColour(shown)) : 'transparent';
    showLegendColours(shown || 1);
}

let legendGroup = 0;
/** The legend's moving, queued and arrived dots in the colours of the group shown. */
function showLegendColours(group) {
    if (group === legendGroup) return;
    legendGroup = group;
    const panel = $('panel');
    for (const [name, s] of [['moving', 0], ['arrived', 1], ['queued', 3]]) {
        const u = unitColour(groupColour(group), s);
        panel.style.setProperty(`--dot-${name}`, css(u.fill));
        panel.style.setProperty(`--dot-${name}-rim`, css(u.rim));
    }
}

// Pointer down rather than click: the list is rebuilt when the groups change, which may happen
// between the press and the release.
$('groups').addEventListener('pointerdown', (e) => {
    const row = e.button === 0 && e.target.closest('li[data-group]');
    if (!row) return;
    const group = Number(row.dataset.group);
    setView(group === state.viewChoice ? 0 : group);
});
$('selection-clear').addEventListener('click', () => select(null));

// ---- Panel ---------------------------------------------------------------------------------------

/**
 * The map list: the built-in maps, then the maps uploaded (the server keeps the last few; each can
 * be picked again), then a scenario's map while one is loaded (not selectable: use its button).
 */
function fillMaps(names, current, uploads) {
    const select = $('map-select');
    const entries = [...names.map((n) => ({ value: n, label: n, kind: 'builtin' })),
        ...uploads.filter((n) => !names.includes(n)).map((n) => ({ value: `upload:${n}`, label: `${n} (uploaded)`, kind: 'upload', name: n }))];
    const currentValue = names.includes(current) ? current : uploads.includes(current) ? `upload:${current}` : `other:${current}`;
    if (!entries.some((e) => e.value === currentValue)) {
        const scenario = current.startsWith('scenario:');
        const button = scenario && document.querySelector(`[data-scenario="${CSS.escape(current.slice(9))}"]`);
        const label = !scenario ? current : `${button ? button.textContent : current.slice(9).replaceAll('_', ' ')} (scenario)`;
        entries.push({ value: currentValue, label, kind: 'other' });
    }
    const key = entries.map((e) => `${e.value}|${e.kind}`).join('\n');
    if (select.dataset.key !== key) {
        select.dataset.key = key;
        select.replaceChildren(...entries.map((e) => {
            const option = new Option(e.label, e.value);
            option.dataset.kind = e.kind;
            if (e.name) option.dataset.name = e.name;
            option.disabled = e.kind === 'other';
            return option;
        }));
    }
    select.value = currentValue;
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
    if (typeof params.line_of_sight === 'boolean') $('toggle-sight').checked = params.line_of_sight;
    if (Array.isArray(params.wall_margin)) state.wallMargin = params.wall_margin;
    if (typeof params.congestion === 'boolean') state.congestion = params.congestion;
    showPlanningToggles();
}

/** The wall-margin and congestion boxes as the server last said the groups plan. */
function showPlanningToggles() {
    $('toggle-margin').checked = state.wallMargin[0] > 0 && state.wallMargin[1] > 0;
    if (state.congestion !== null) $('toggle-congestion').checked = state.congestion;
}

// Line of sight: units that see far along their field steer straight there (off: they follow the
// field's 8 directions cell by cell).
$('toggle-sight').addEventListener('change', (e) => {
    send({ type: 'line_of_sight', on: e.target.checked });
});

// Wall margin: every group plans with cells within 2 cells of a wall costing 4 more.
$('toggle-margin').addEventListener('change', (e) => {
    const on = e.target.checked;
    send({ type: 'wall_margin', radius: on ? 2 : 0, extra: on ? 4 : 0 });
});

// Congestion: the groups' fields count the crowd's density (the server refreshes them).
$('toggle-congestion').addEventListener('change', (e) => {
    send({ type: 'congestion', on: e.target.checked });
});

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
    if (typeof v !== 'number') return '–';
    if (v > 0 && v < 0.1) return `${(v * 1000).toFixed(0)} µs`;  // repairs often take microseconds
    return `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
}

/** A count for a narrow column: 12,345 as 12.3k, 123,456 as 123k. */
function fmtCount(v) {
    if (typeof v !== 'number') return '–';
    if (v < 10000) return v.toLocaleString('en-US');
    return `${(v / 1000).toFixed(v < 100000 ? 1 : 0)}k`;
}

function fmtInt(v) {
    return typeof v === 'number' ? v.toLocaleString('en-US') : '–';
}

function fmtMb(bytes) {
    if (typeof bytes !== 'number') return '–';
    const mb = bytes / (1024 * 1024);
    return `${mb.toFixed(mb < 10 ? 2 : 1)} MB`;
}

function showStats(s) {
    $('stat-agents').textContent = fmtInt(s.agents);
    $('stat-groups').textContent = fmtInt(s.groups);
    $('stat-order-ms').textContent = fmtMs(s.order_ms);
    $('stat-hits').textContent = fmtInt(s.cache_hits);
    $('stat-misses').textContent = fmtInt(s.cache_misses);
    $('stat-builds').textContent = fmtInt(s.builds);
    $('stat-repairs').textContent = fmtInt(s.repairs);
    $('stat-repair-ms').textContent = s.repairs > 0 ? fmtMs(s.repair_ms) : '–';
    $('stat-cancelled').textContent = fmtInt(s.builds_cancelled);
    $('stat-cached').textContent = fmtMb(s.cached_bytes);
    $('stat-published').textContent = fmtInt(s.fields_published);
    // Units by state: the legend's counts (every group), the Groups rows per group.
    const perGroup = Array.isArray(s.group_states) ? s.group_states : [];
    state.groupStates = new Map(perGroup.map((g) => [g.id, g]));
    const moving = perGroup.length ? perGroup.reduce((n, g) => n + g.moving, 0)
        : s.agents - s.arrived - s.no_path - (s.queued || 0) - s.stuck;
    $('stat-moving').textContent = fmtInt(moving);
    $('stat-queued').textContent = fmtInt(s.queued);
    $('stat-arrived').textContent = fmtInt(s.arrived);
    $('stat-no-path').textContent = fmtInt(s.no_path);
    $('stat-stuck').textContent = fmtInt(s.stuck);
    const exits = state.serverGroups.some((g) => g.exit) || s.exited > 0;
    $('exited-item').hidden = !exits;
    $('stat-exited').textContent = fmtInt(s.exited);
    showSpawners(Array.isArray(s.spawners) ? s.spawners : []);
    showGroups();
    $('stat-field-ms').textContent = fmtMs(s.field_ms);
    $('stat-step-ms').textContent = fmtMs(s.step_ms);
    $('stat-tick-hz').textContent = typeof s.tick_hz === 'number' ? `${s.tick_hz.toFixed(1)} Hz` : '–';
    $('stat-clients').textContent = fmtInt(s.clients);
    if (s.planner === 'hierarchical') {
        $('stat-graph-ms').textContent = fmtMs(s.graph_ms);
        $('stat-sector-fields').textContent = fmtInt(s.sector_fields);
        $('stat-sector-mb').textContent = fmtMb(s.sector_bytes);
        $('stat-route-ms').textContent = fmtMs(s.route_ms);
        $('stat-tick-route-ms').textContent = fmtMs(s.tick_route_ms);
    }
}

/** The spawners' line of the Live panel (tower defense): waves, units spawned and got through. */
function showSpawners(spawners) {
    const line = $('waves');
    line.hidden = spawners.length === 0;
    if (line.hidden) return;
    line.textContent = spawners.map((sp) => {
        const waves = sp.waves > 0 ? `wave ${Math.min(sp.waves_done + (sp.done ? 0 : 1), sp.waves)} of ${sp.waves}`
            : 'endless';
        const next = sp.done ? 'done' : sp.next_s > 0.5 ? `next in ${sp.next_s.toFixed(0)} s` : 'sending';
        return `${waves} (${next}): ${fmtInt(sp.spawned)} spawned, ${fmtInt(sp.sunk)} got through`;
    }).join(' · ');
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
function toast(text, ms = 4000, kind = 'error') {
    const box = $('toast');
    box.textContent = text;
    box.className = kind === 'info' ? 'info' : '';
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
        box.hidden = true;
    }, ms);
}

function showError(text) {
    $('error-text').textContent = text;
    $('error-box').hidden = !text;
}

// Tools.
let tool = 'select';
function selectTool(button) {
    for (const b of document.querySelectorAll('.tool')) b.classList.toggle('selected', b === button);
    tool = button.dataset.tool;
    if (tool === 'select') view.brush = null;
    input.refreshHover();
}
for (const button of document.querySelectorAll('.tool')) button.addEventListener('click', () => selectTool(button));
$('tower-size').addEventListener('change', () => {
    if (!$('tool-tower').disabled) selectTool($('tool-tower'));
    input.refreshHover();
});

const brush = $('brush');
const showBrush = () => {
    const r = Number(brush.value);
    $('brush-out').textContent = r === 0 ? '1 cell' : `r ${r}`;
};
brush.addEventListener('input', showBrush);
showBrush();

// Toggles.
const toggles = { 'toggle-heat': 'showHeat', 'toggle-numbers': 'showNumbers', 'toggle-arrows': 'showArrows',
    'toggle-trails': 'showTrails', 'toggle-sectors': 'showSectors' };
for (const [id, option] of Object.entries(toggles)) {
    const box = $(id);
    view.setOption(option, box.checked);
    box.addEventListener('change', (e) => {
        view.setOption(option, box.checked);
        if (option === 'showSectors') showSectorsLine();
        if (option === 'showHeat') {
            if (e.isTrusted || !e.detail?.auto) state.heatChosen = true;
            showColourBar();
        }
    });
}
/** Flips the sector overlay (the O key), when the map has sectors. */
function toggleSectors() {
    const box = $('toggle-sectors');
    if (box.disabled) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change'));
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
/** Respawns (or, with `add`, adds) the number of units in the count box, of the size chosen. */
const spawn = (add) => {
    const input = $('spawn-count');
    const count = Math.max(0, Math.min(state.maxAgents, Math.floor(Number(input.value) || 0)));
    input.value = String(count);
    const size = Number($('spawn-size').value) || 1;
    const problem = spawnProblem(count, size, add);
    showSpawnNote(problem);
    if (problem) return;
    if (!add) view.clearTrails();
    send(add ? { type: 'spawn', count, size, add: true } : { type: 'spawn', count, size });
};

/**
 * Why `count` units of `size` cannot be spawned on this map ('' when they can): at most
 * kUnitsPerFreeCell units per free cell (a unit of size s counts s x s cells), the server's limit,
 * with the largest count that fits. The server checks again (it knows the spawn area).
 */
function spawnProblem(count, size, add) {
    const w = state.world;
    if (!w || typeof w.free_cells !== 'number') return '';
    const cells = size * size;
    const room = Math.floor((w.free_cells * kUnitsPerFreeCell) / cells);
    const have = add ? (tide.stats ? tide.stats.agents : 0) : 0;
    const fit = Math.max(0, Math.min(room - have, state.maxAgents - have));
    if (count <= fit) return '';
    const what = `${fmtInt(count)} unit${count === 1 ? '' : 's'}${size > 1 ? ` of size ${size}` : ''}`;
    return `${what} do not fit on this map: its ${fmtInt(w.free_cells)} free cells hold at most ${fmtInt(room)}` +
        `${size > 1 ? ` units of size ${size}` : ''} (${kUnitsPerFreeCell} per cell${size > 1 ? `, ${cells} cells each` : ''})` +
        `${add ? `, ${fmtInt(have)} are already there` : ''}. Try ${fmtInt(fit)}${w.width * w.height < 100000 ? ', or a larger map' : ''}.`;
}

function showSpawnNote(text) {
    const note = $('spawn-note');
    note.textContent = text || '';
    note.hidden = !text;
}
$('spawn-count').addEventListener('input', () => showSpawnNote(''));
$('spawn').addEventListener('click', () => spawn(false));
$('spawn-add').addEventListener('click', () => spawn(true));
$('spawn-count').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') spawn(false);
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
    const option = e.target.selectedOptions[0];
    const uploaded = option && option.dataset.kind === 'upload';
    const name = uploaded ? option.dataset.name : e.target.value;
    if (send(uploaded ? { type: 'load_map', name, uploaded: true } : { type: 'load_map', name })) {
        // Big maps take seconds (the sector graph): say so until the world message comes.
        state.loading = name;
        log(`loading ${name}…`, 'info');
        toast(`loading ${name}…`, 60000, 'info');
    }
});
for (const button of document.querySelectorAll('[data-scenario]')) {
    button.addEventListener('click', () => {
        showError('');
        view.clearTrails();
        if (send({ type: 'scenario', name: button.dataset.scenario })) {
            state.loading = `scenario:${button.dataset.scenario}`;
            toast(`loading the ${button.textContent} scenario…`, 60000, 'info');
        }
        closeDrawer();
    });
}
$('error-close').addEventListener('click', () => showError(''));
// The static demo has no /api/map.tmap: the worker writes the map and the page saves it.
$('map-download').addEventListener('click', async (e) => {
    if (!conn.tmap) return;
    e.preventDefault();
    const answer = await conn.tmap();
    if (!answer.ok) {
        showError(answer.error);
        return;
    }
    const newline = answer.text.indexOf('\n');
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([answer.text.slice(newline + 1)], { type: 'text/plain' }));
    link.download = answer.text.slice(0, newline);
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
});
/** POST /api/map (tide serve): resolves {ok, error} (the server's error names the file and line). */
async function postMap(name, text) {
    const response = await fetch(`/api/map?name=${encodeURIComponent(name)}`, {
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
    if (response.ok && answer && answer.ok) return { ok: true };
    return { ok: false, error: (answer && answer.error) || `${name}: the server answered ${response.status}` };
}
$('map-file').addEventListener('change', async (e) => {
    const input = e.target;
    const file = input.files && input.files[0];
    input.value = '';
    if (!file) return;
    if (file.size > kMaxUploadBytes) {
        showError(`${file.name}: ${file.size.toLocaleString('en-US')} bytes, the ${transport === 'worker' ? 'demo' : 'server'} takes at most 64 MiB`);
        return;
    }
    try {
        const text = await file.text();
        const answer = conn.upload ? await conn.upload(file.name, text) : await postMap(file.name, text);
        if (answer.ok) {
            showError('');
            log(`loaded ${file.name}`, 'info');
        } else {
            const message = answer.error;
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
    if (e.key === '?') {
        toggleHelp();
        return;
    }
    if (!$('help').hidden) {
        if (e.code === 'Escape') toggleHelp(false);
        return;
    }
    const tools = { KeyV: 'tool-select', Digit1: 'tool-wall', Digit2: 'tool-forest', Digit3: 'tool-swamp',
        Digit4: 'tool-erase', KeyT: 'tool-tower', KeyD: 'tool-danger' };
    if (tools[e.code]) {
        if (!$(tools[e.code]).disabled) selectTool($(tools[e.code]));
    } else if (e.code === 'KeyO') toggleSectors();
    else if (e.code === 'Escape') input.escape();
    else if (e.code === 'KeyP') $('pause').click();
    else if (e.code === 'KeyS' && state.paused) $('step').click();
    else if (e.code === 'KeyF') view.fit();
    else if (e.code === 'KeyH') flipHeat();
    else if (e.code === 'KeyC') $('astar-compare').click();
    else if (e.code === 'KeyR') $('spawn').click();
});

// ---- Canvas --------------------------------------------------------------------------------------

const hoverBox = $('hover');
let hoverCell = null;
const input = new CanvasInput($('canvas'), view, {
    send,
    log,
    tool: () => tool,
    brush: () => Number(brush.value),
    towerSize: () => Number($('tower-size').value) || 2,
    /** The order's formation ({shape, spacing}), or null for none. */
    formation: () => ($('formation').value === 'none' ? null : { shape: $('formation').value, spacing: 1.2 }),
    towerHover: (rect) => {
        if (towerKey(rect) === towerKey(state.tower)) return;
        state.tower = rect;
        state.towerVerdict = null;
        towerProbe.want(rect);
        showTower();
    },
    groups: () => state.groups,
    setLocalGoals,
    setDragging: (group) => {
        const ended = state.dragging;
        state.dragging = group;
        if (!group && ended && state.localGoals.has(ended)) {
            const key = goalsKey(state.localGoals.get(ended));
            state.awaitGoals = { group: ended, key, until: performance.now() + 1000 };
        }
    },
    shownGroup: () => state.shownGroup,
    selection: () => state.selection,
    selectionPending: () => state.pendingSelects > 0,
    select,
    unitCount: () => state.unitCount,
    maxGoals: () => (state.world && state.world.max_goals) || 16,
    hover: (cell) => {
        hoverCell = cell;
        showHover();
    },
    inspect: (position) => inspectAt(position),
    toast: (text) => toast(text, 3000, 'info'),
});

/** Units of each size in the last agents frame. */
function unitSizeCounts() {
    const a = view.agents, counts = {};
    if (!a) return counts;
    if (!a.sizes) return a.count ? { 1: a.count } : counts;
    for (let i = 0; i < a.count; i++) counts[a.sizes[i]] = (counts[a.sizes[i]] || 0) + 1;
    return counts;
}

/** Units in each state (the frame's codes 0..4) in the last agents frame. */
function unitStateCounts() {
    const a = view.agents, counts = new Array(kUnitStates).fill(0);
    if (a) for (let i = 0; i < a.count; i++) if (a.states[i] < kUnitStates) counts[a.states[i]]++;
    return counts;
}

/** The rows of the Groups list as the page shows them, by the labels of its header. */
function groupRows() {
    const labels = [...document.querySelectorAll('#groups li.head .n')].map((e) => e.textContent);
    return [...document.querySelectorAll('#groups li[data-group]')].filter((li) => li.dataset.group !== '0').map((li) => ({
        id: Number(li.dataset.group),
        columns: Object.fromEntries([...li.querySelectorAll('.n')].map((e, i) => [labels[i], e.textContent])),
        note: li.querySelector('.note') ? li.querySelector('.note').textContent : '',
    }));
}

function towerState() {
    const v = state.towerVerdict;
    return !v ? 'pending' : v.blocks ? 'blocks' : 'free';
}

/** The tower stamp on the canvas and its verdict in the hover line. */
function showTower() {
    view.tower = state.tower ? { ...state.tower, state: towerState() } : null;
    showHover();
}

/** What a tower on the stamp would do, in words ('' without a stamp). */
function towerText() {
    const t = state.tower;
    if (!t) return '';
    const v = state.towerVerdict;
    const at = `tower ${t.x1 - t.x0 + 1}×${t.y1 - t.y0 + 1}`;
    if (!v) return ` · ${at}: checking…`;
    if (v.covers_goal) return ` · ${at}: covers a goal`;
    if (v.covers_danger) return ` · ${at}: covers a flee group's danger`;
    if (v.blocks) return ` · ${at}: would cut ${fmtInt(v.units_cut_off)} unit${v.units_cut_off === 1 ? '' : 's'} off`;
    return ` · ${at}: free`;
}

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
    const distance = cost === 255 ? '' : Number.isFinite(value) ? ` · distance ${value.toFixed(1)}`
        : view.notPlannedAt(x, y) ? ' · no field here yet' : ' · unreachable';
    const whose = distance && state.groups.length > 1 && state.shownGroup ? ` (group ${state.shownGroup})` : '';
    hoverBox.textContent = `(${x}, ${y}) ${terrain}${distance}${whose}${towerText()}`;
}

const towerProbe = new TowerProbe((m) => conn.send(m), (rect, answer) => {
    state.towerVerdict = answer;
    showTower();
});

new ResizeObserver(() => view.resize()).observe($('canvas'));
view.resize();

// ---- Animation and rates -------------------------------------------------------------------------

let frames = 0, rateFrom = performance.now();
function animate(now) {
    view.render();
    frames++;
    tide.agentsDrawn = view.agentsDrawn;
    if (view.scale !== zoomNotesScale) showZoomNotes();
    if (view.pixelUnits !== colourBarFaded) showColourBar();
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

// ---- First run, help, legends, limits --------------------------------------------------------

/**
 * The first stats message after the page loaded: a crowd that has settled (almost every unit
 * arrived or queued for a place, the world running, one goal group of size-1 units) is respawned so that the newcomer sees it
 * flow; the one-line hint shows until the user does something it suggests (or closes it).
 */
function firstRun(stats) {
    const groups = state.serverGroups;
    // Settled: (almost) every unit arrived, or waiting for a place in the pack round the goal.
    const settled = stats.agents > 0 && stats.arrived + (stats.queued || 0) >= 0.9 * stats.agents && !state.paused &&
        groups.length === 1 && (groups[0].size || 1) === 1 && !groups[0].flee && !groups[0].exit;
    if (settled) {
        tide.firstRunRespawn = true;
        view.clearTrails();
        send({ type: 'spawn', count: stats.agents });
        log(`the crowd had arrived: respawned ${fmtInt(stats.agents)} units`, 'info');
    }
    let done = false;
    try {
        done = localStorage.getItem(kHintDoneKey) === '1';
    } catch {
        done = false;
    }
    if (!done) showHint(hintText());
}

/** The first-run hint for the map on screen. */
function hintText() {
    if (touchFirst()) return kTouchHintText;
    return state.world && kGapMaps.has(state.world.map) ? kHintText : kGenericHintText;
}

function showHint(html) {
    $('hint-text').innerHTML = html;
    $('hint').hidden = false;
}

function dismissHint() {
    if ($('hint').hidden) return;
    $('hint').hidden = true;
    try {
        localStorage.setItem(kHintDoneKey, '1');
    } catch {
        // private windows: the hint shows again next time
    }
}
$('hint-close').addEventListener('click', dismissHint);
$('hint-text').addEventListener('click', (e) => {
    if (e.target.closest('.hint-help')) toggleHelp(true); // the touch hint's ? (the ? button is in the drawer on a phone)
});

function toggleHelp(open = $('help').hidden) {
    $('help').hidden = !open;
    if (open) closeDrawer();
}
// On a touch screen the gestures come first in the help.
if (touchFirst()) $('help-close').after($('help-touch'));
$('help-open').addEventListener('click', () => toggleHelp(true));
$('help-close').addEventListener('click', () => toggleHelp(false));
$('help').addEventListener('pointerdown', (e) => {
    if (e.target === $('help')) toggleHelp(false);
});

/** Flips the heat map (the H key). */
function flipHeat() {
    const box = $('toggle-heat');
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change'));
}

/**
 * A new map: the heat map goes on when the flow arrows would be too small to see at Fit zoom
 * (and off again on maps where they show), unless the user has chosen.
 */
function autoHeat() {
    if (state.heatChosen) return;
    const box = $('toggle-heat');
    const want = view.fitScale() < kArrowMinCell;
    if (box.checked === want) return;
    box.checked = want;
    box.dispatchEvent(new CustomEvent('change', { detail: { auto: true } }));
}

/** The colour bar of the heat map: the integration scale of the field shown, min to max, and unreachable. */
function showColourBar() {
    const bar = $('colour-bar');
    const f = view.fields;
    colourBarFaded = view.pixelUnits;
    bar.hidden = !(view.showHeat && f);
    if (bar.hidden) return;
    const max = view.maxIntegration * f.integrationScale;
    const stops = [];
    // Left to right from the smallest value to the largest, coloured as view.js draws them: a goal
    // field from 0 (dark) to the largest cost (yellow), a flee field from the safest, most negative
    // value (dark) to 0 (yellow).
    for (let k = 0; k <= 8; k++) {
        const t = k / 8;
        const c = view.pixelUnits ? mix(viridis(t), colours.white, 0.55) : viridis(t);
        stops.push(`${css(c)} ${(k / 8) * 100}%`);
    }
    $('cb-gradient').style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    const fmt = (v) => (Math.abs(v) < 100 ? v.toFixed(1) : v.toFixed(0));
    if (f.flee) {
        $('cb-title').textContent = 'flee value (dark: safest)';
        $('cb-min').textContent = fmt(-max);
        $('cb-max').textContent = '0';
    } else {
        $('cb-title').textContent = `cost to the nearest goal${f.stride > 1 ? ` (every ${f.stride} cells)` : ''}`;
        $('cb-min').textContent = '0';
        $('cb-max').textContent = fmt(max);
    }
}

let colourBarFaded = false; // the colour bar was drawn for a faded heat map

let zoomNotesScale = -1;
/** "zoom in to see ..." beside the values and arrows toggles while they are too small to draw. */
function showZoomNotes() {
    zoomNotesScale = view.scale;
    const sampled = view.fields && view.fields.stride > 1;
    $('numbers-note').textContent = sampled ? '(not on sampled maps)' : view.scale < kNumbersMinCell ? 'zoom in to see values' : '';
    $('arrows-note').textContent = sampled ? '(not on sampled maps)' : view.scale < kArrowMinCell ? 'zoom in to see arrows' : '';
}

/** The badge over the map while the server ticks slower than kSlowTickHz. */
function showTickBadge(s) {
    // Map loads stall the loop for a moment: only a rate low for three stats in a row (about 0.75 s) counts.
    const slow = typeof s.tick_hz === 'number' && s.tick_hz > 0 && s.tick_hz < kSlowTickHz && !state.loading;
    state.slowTicks = slow ? state.slowTicks + 1 : 0;
    const badge = $('tick-badge');
    badge.hidden = state.slowTicks < 3;
    if (!badge.hidden) {
        const who = transport === 'worker' ? 'simulation' : 'server';
        badge.textContent = `${who} behind: ${s.tick_hz.toFixed(0)} Hz (step ${fmtMs(s.step_ms)})`;
        badge.title = `The ${who} runs at ${s.tick_hz.toFixed(1)} ticks per second instead of 60: ` +
            `one crowd step takes ${fmtMs(s.step_ms)}. Fewer units, or a larger map, bring it back.`;
    }
}

// ---- Why flow fields: the A* comparison and unit inspection ---------------------------------

// tide serve plans 64 units (within 30 ms) and scales up; the static demo's worker has the
// simulation to itself and plans every unit of the group: one frame of A* per unit, measured.
$('astar-compare').addEventListener('click', () => {
    if (send({ type: 'astar_compare', samples: transport === 'worker' ? 20000 : 64 })) {
        $('astar-box').hidden = false;
        $('astar-box').textContent = 'planning with A*…';
    }
});
$('astar-clear').addEventListener('click', () => clearComparison());

function clearComparison() {
    view.comparison = null;
    $('astar-box').hidden = true;
    $('astar-clear').disabled = true;
}

/** The `astar` reply: the numbers in the panel, the A* paths and the flow paths of the same units on the map. */
function showComparison(m) {
    const box = $('astar-box');
    box.hidden = false;
    $('astar-clear').disabled = false;
    const ratio = m.field_ms > 0 ? m.astar_ms_all / m.field_ms : 0;
    const times = ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1);
    const all = m.sampled >= m.units;
    const where = transport === 'worker' ? 'in this page (WebAssembly)' : 'on the server';
    box.innerHTML = `Group ${m.group}: one A* per unit for its ${fmtInt(m.units)} units ${all ? '=' : '≈'} <b id="astar-all">${fmtMs(m.astar_ms_all)}</b> ` +
        `(${fmtMs(m.astar_ms_per_unit)} each, ${fmtInt(m.expanded_per_unit)} cells expanded; ` +
        `${all ? `every unit planned ${where}` : `${fmtInt(m.sampled)} planned ${where}, scaled up`}) ` +
        `against <b id="astar-field">${fmtMs(m.field_ms)}</b> for one flow field that serves them all: ` +
        `${ratio >= 1 ? `<b id="astar-ratio">${times}×</b> the work` : `A* is cheaper for so few units (${times}×)`}. ` +
        `On the map: <span class="key-astar">A* paths</span> dashed, <span class="key-flow">flow paths</span> of the same units solid.` +
        (all ? ` Seed 002 measured 138.4 ms against 1.85 ms per frame (74.8×) for 5,000 units.` : '');
    const astar = (m.paths || []).map((p) => p.cells);
    const flow = (m.paths || []).map((p) => view.flowPath(p.start[0], p.start[1]));
    view.comparison = { astar, flow };
}

/** Alt+click: asks about the unit nearest the position; refreshed while the box is open. */
function inspectAt(position) {
    send({ type: 'inspect', x: Math.max(0, position[0]), y: Math.max(0, position[1]) });
}

function closeInspect() {
    $('inspect-box').hidden = true;
    view.inspected = -1;
    clearInterval(state.inspectTimer);
    state.inspectTimer = 0;
}
$('inspect-close').addEventListener('click', closeInspect);

function showInspected(m) {
    if (m.unit === null || m.unit === undefined) {
        if ($('inspect-box').hidden) toast('no unit within 2 cells of that spot', 2500, 'info');
        return;
    }
    view.inspected = m.unit;
    const box = $('inspect-box');
    box.hidden = false;
    $('inspect-id').textContent = `#${m.unit} · group ${m.group}${m.size > 1 ? ` · ${m.size}×${m.size}` : ''}`;
    // Compass heading of the desired velocity (y grows downward: north is up on the map).
    const kCompass = ['E', 'SE', 'S', 'SW', 'W', 'NW', 'N', 'NE'];
    const heading = Math.hypot(m.dvx, m.dvy) > 1e-3 ? kCompass[(Math.round(Math.atan2(m.dvy, m.dvx) / (Math.PI / 4)) + 8) % 8] : 'none';
    const rows = [['state', m.state], ['position', `${m.x.toFixed(2)}, ${m.y.toFixed(2)}`],
        ['speed', `${m.speed.toFixed(2)} cells/s`], ['desired', `${m.dvx.toFixed(2)}, ${m.dvy.toFixed(2)} (${heading})`],
        ['cost to go', m.cost_to_go === null ? 'unreachable' : m.cost_to_go.toFixed(1)], ['neighbours', `${m.neighbours} within 1.5 cells`]];
    $('inspect-table').innerHTML = rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('');
    if (!state.inspectTimer) {
        state.inspectTimer = setInterval(() => {
            const a = view.agents, i = view.inspected;
            if (!a || i < 0 || i >= a.count) return closeInspect();
            send({ type: 'inspect', x: a.positions[2 * i] * a.scaleX, y: a.positions[2 * i + 1] * a.scaleY });
        }, 500);
    }
}

// ---- Layout: the drawer on narrow screens ------------------------------------------------------

function closeDrawer() {
    document.body.classList.remove('drawer-open');
}
$('drawer-toggle').addEventListener('click', () => document.body.classList.toggle('drawer-open'));
$('stage').addEventListener('pointerdown', (e) => {
    if (e.target !== $('drawer-toggle')) closeDrawer();
});

showZoomNotes();
conn.open();
