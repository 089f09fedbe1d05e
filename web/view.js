// The canvas: a view (zoom and pan) over the map, drawn for software rendering.
//
// Layers, cheapest first per animation frame:
//  - background: terrain or heat map, hatching of unreachable cells, grid lines, flow arrows and
//    integration numbers, and the sector overlay of hierarchical maps (borders, portals, sectors
//    with a field), for the current view. Rebuilt into a Uint32Array only when the view, the
//    fields, the sectors or a toggle change (arrows, numbers and sectors are drawn with the 2D API
//    on an offscreen canvas and read back once); after a fields patch only the patch's rectangle,
//    when no arrows, numbers or sectors are drawn and the colour scale stays. Fields frames of big
//    maps hold one sample every `stride` cells: the background is then drawn in samples of
//    stride x stride cells.
//  - frame: each animation frame copies the background into the frame ImageData (one
//    Uint32Array.set), blends the trails, stamps a ring around every selected unit and then every
//    unit as a disc in its group's colour, to scale (a unit of size s has the radius of a size-1
//    unit plus 0.45 (s - 1) cells, as the server's crowd), from precomputed pixel offsets per size,
//    and puts the image once.
//  - overlay: every group's goals, the selection box, the brush outline and the tower stamp (green
//    when the server says it would not block, red when it would), the A* comparison's paths beside
//    the flow paths of the same units, the ring of the unit inspected and the magnifier (a goal
//    dragged at low zoom), with the 2D API on top.
// Units smaller than a pixel are drawn as single pixels (100,000 units on a big map stay readable).

import { colours, css, groupColour, mix, rgb, terrainColour, unitColourTables, viridis, kCostWall } from './palette.js';

const kDirDx = [1, 1, 0, -1, -1, -1, 0, 1];
const kDirDy = [0, 1, 1, 1, 0, -1, -1, -1];
const kGoalDir = 8, kUnreachableDir = 9, kNotPlannedDir = 11;
const kUnreachableQ = 65535;
const kHeatSteps = 4096; // steps of the heat map's colour scale

/** Smallest cell size in device pixels at which flow arrows are drawn. */
export const kArrowMinCell = 8;
/** Smallest cell size in device pixels at which integration values are written. */
export const kNumbersMinCell = 28;
const kGridMinCell = 10;
/** Smallest sector size in device pixels at which the overlay draws portals (below: borders only). */
export const kPortalMinSector = 40;
const kMaxCell = 160;
const kPressMs = 450; // how long the long-press ring shows
const kUnitTables = unitColourTables();
/** Unit sizes the page draws (the agents frame's size byte: 1..kUnitSizes cells a side). */
export const kUnitSizes = 3;
/** Extra radius per size step, cells (tide::World::radius_for). */
const kRadiusPerSize = 0.45;

export class View {
    constructor(canvas) {
        this.canvas = canvas;
        this.ctx = canvas.getContext('2d', { alpha: false });
        this.back = document.createElement('canvas'); // background composition (arrows, numbers)
        this.backCtx = this.back.getContext('2d', { willReadFrequently: true });
        this.dpr = 1;

        // World and fields.
        this.width = 0;
        this.height = 0;
        this.markers = []; // [{id, goals: [[x, y], ...]}] goal markers by group, drawn in this order
        this.formations = []; // [{group, anchor, heading, arrived, slots: [x, y, ...]}] from the stats message
        this.labelGroups = false; // label markers "G<id>" (more than one group) instead of "G"
        this.markerRects = []; // device-pixel rectangles of the markers drawn last: {group, index, x0, y0, x1, y1}
        this.fields = null;
        this.maxIntegration = 0;
        // Hierarchical maps: the latest sectors frame (portals) and sector fields frame (built sectors).
        this.sectors = null;
        this.sectorFields = null;
        // Maps with sampled fields frames: the terrain at full resolution (terrain frames).
        this.terrain = null;
        this.terrainWidth = 0;

        // Agents: the latest frame, plus the previous positions for trails.
        this.agents = null;
        this.prevPositions = new Uint16Array(0);
        this.prevCount = -1;
        this.selection = null; // the latest selection frame (bitset by roster index)
        this.band = null; // {x0, y0, x1, y1} the selection box being dragged, cell units
        this.press = null; // {x, y, at}: a long press registered (client position, performance.now()): a ring flashes

        // Options.
        this.showHeat = false;
        this.showNumbers = true;
        this.showArrows = true;
        this.showTrails = false;
        this.showSectors = false;
        this.unitRadius = 0.16; // cells, of a unit of size 1
        this.brush = null; // {x, y, radius} cell and radius of the paint brush under the cursor
        // {x0, y0, x1, y1, state}: the tower stamp under the cursor (cells, inclusive); state
        // 'pending' (no answer yet), 'free' or 'blocks'.
        this.tower = null;
        // The A* comparison: {astar: [[[x, y], ...]], flow: [[[x, y], ...]]} cell paths, or null.
        this.comparison = null;
        this.inspected = -1; // roster index of the unit inspected (ringed), -1: none
        this.lens = null; // [clientX, clientY]: the magnifier's centre (goal drags at low zoom), or null
        this.pixelUnits = false; // units are drawn as single pixels (the heat map is faded under them)

        // View: device pixels per cell and the device-pixel position of the map's corner.
        this.scale = 1;
        this.ox = 0;
        this.oy = 0;
        this.userMoved = false;

        this.dirty = true; // background needs a rebuild
        this.pixelW = 0;
        this.pixelH = 0;
        this.agentsDrawn = 0;
    }

    // ---- Inputs ------------------------------------------------------------------------------------

    /** New map dimensions; refits the view when they differ (or when `refit`). */
    setWorld(width, height, refit) {
        const changed = width !== this.width || height !== this.height;
        this.width = width;
        this.height = height;
        this.selection = null;
        this.band = null;
        this.comparison = null;
        this.inspected = -1;
        if (changed || refit) {
            this.fields = null;
            this.sectors = null;
            this.sectorFields = null;
            this.fit();
        }
        this.clearTrails();
        this.dirty = true;
    }

    /** The formations to draw as ghost slots (the stats message's `formations`). */
    setFormations(formations) {
        this.formations = formations;
        this.dirty = true;
    }

    /** Each formation's slots as rings in its group's colour, and its heading as a short line. */
    drawFormations(ctx) {
        const s = this.scale;
        for (const f of this.formations) {
            const colour = groupColour(f.group);
            ctx.strokeStyle = css(colour);
            ctx.globalAlpha = 0.8;
            ctx.lineWidth = Math.max(1, this.dpr);
            ctx.beginPath();
            const r = Math.max(1.5 * this.dpr, 0.32 * s);
            for (let i = 0; i + 1 < f.slots.length; i += 2) {
                const x = this.ox + f.slots[i] * s, y = this.oy + f.slots[i + 1] * s;
                ctx.moveTo(x + r, y);
                ctx.arc(x, y, r, 0, 2 * Math.PI);
            }
            ctx.stroke();
            const ax = this.ox + f.anchor[0] * s, ay = this.oy + f.anchor[1] * s;
            ctx.lineWidth = 2 * this.dpr;
            ctx.beginPath();
            ctx.moveTo(ax, ay);
            ctx.lineTo(ax + f.heading[0] * 2.5 * s, ay + f.heading[1] * 2.5 * s);
            ctx.stroke();
            ctx.globalAlpha = 1;
        }
    }

    /** The goal markers: [{id, goals}] by group, drawn in this order (the last on top). */
    setMarkers(groups) {
        this.markers = groups.map((g) => ({ id: g.id, flee: !!g.flee, exit: !!g.exit, goals: g.goals.map((c) => [c[0], c[1]]) }));
        this.labelGroups = groups.length > 1;
    }

    /** The selection to highlight (a decoded selection frame, or null). */
    setSelection(selection) {
        this.selection = selection && selection.count > 0 ? selection : null;
    }

    /**
     * A fields frame. `patch` ({x0, y0, w, h}, samples), when the frame is the one on screen with
     * that rectangle rewritten: if the colour scale stays, only the rectangle is coloured and drawn
     * again (a paint on the 1024x1024 map: well under a millisecond instead of about 50).
     */
    setFields(fields, patch = null) {
        if (fields.width !== this.width || fields.height !== this.height) {
            // A fields frame for a map whose world message has not been seen (e.g. loaded elsewhere).
            this.width = fields.width;
            this.height = fields.height;
            this.fit();
            patch = null;
        }
        const previous = this.fields, previousMax = this.maxIntegration;
        this.fields = fields;
        let max = 0;
        for (let i = 0, n = fields.integration.length; i < n; i++) {
            const q = fields.integration[i];
            if (q !== kUnreachableQ && q > max) max = q;
        }
        this.maxIntegration = max;
        const cache = this.colourCache;
        if (patch && !this.dirty && previous && cache && cache.fields === previous && max === previousMax &&
            cache.key === this.colourKey() && cache.base.length === fields.sampleWidth * fields.sampleHeight) {
            const x1 = patch.x0 + patch.w - 1, y1 = patch.y0 + patch.h - 1;
            this.colourSamples(cache, patch.x0, patch.y0, x1, y1);
            cache.fields = fields;
            const r = this.patchRect;
            this.patchRect = r ? [Math.min(r[0], patch.x0), Math.min(r[1], patch.y0), Math.max(r[2], x1), Math.max(r[3], y1)]
                : [patch.x0, patch.y0, x1, y1];
            return;
        }
        this.dirty = true;
    }

    /**
     * A terrain frame (maps with sampled fields frames): a band of rows of the map (the whole map
     * comes in several, at most 1 MiB each) or a changed rectangle. Cells not received yet hold 0
     * and are drawn from the sampled fields frame meanwhile.
     */
    setTerrain(frame) {
        const n = frame.width * frame.height;
        if (!this.terrain || this.terrain.length !== n || this.terrainWidth !== frame.width) {
            this.terrain = new Uint8Array(n);
            this.terrainWidth = frame.width;
        }
        for (let y = 0; y < frame.h; y++) {
            this.terrain.set(frame.costs.subarray(y * frame.w, (y + 1) * frame.w), (frame.y0 + y) * frame.width + frame.x0);
        }
        this.dirty = true;
    }

    /** A sectors frame (portals of the graph the shown group plans on). */
    setSectors(frame) {
        this.sectors = frame;
        if (this.showSectors) this.dirty = true;
    }

    /** A sector fields frame (the sectors with a field in the shown group's plan). */
    setSectorFields(frame) {
        this.sectorFields = frame;
        if (this.showSectors) this.dirty = true;
    }

    setAgents(frame) {
        if (this.showTrails && this.frame) this.drawTrailSegments(frame);
        this.agents = frame;
    }

    setOption(name, value) {
        this[name] = value;
        if (name === 'showTrails') this.clearTrails();
        this.dirty = true;
    }

    // ---- View ----------------------------------------------------------------------------------------

    resize() {
        const dpr = Math.min(window.devicePixelRatio || 1, 2);
        const rect = this.canvas.getBoundingClientRect();
        const w = Math.max(1, Math.round(rect.width * dpr)), h = Math.max(1, Math.round(rect.height * dpr));
        if (w === this.pixelW && h === this.pixelH && dpr === this.dpr) return;
        this.dpr = dpr;
        this.pixelW = this.canvas.width = this.back.width = w;
        this.pixelH = this.canvas.height = this.back.height = h;
        this.frame = this.ctx.createImageData(w, h);
        this.frame32 = new Uint32Array(this.frame.data.buffer);
        this.bg32 = new Uint32Array(w * h);
        this.trail = null;
        if (!this.userMoved) this.fit();
        this.dirty = true;
    }

    fitScale() {
        if (!this.width || !this.height) return 1;
        return Math.min(this.pixelW / this.width, this.pixelH / this.height) * 0.97;
    }

    fit() {
        this.userMoved = false;
        this.scale = this.fitScale();
        this.ox = (this.pixelW - this.width * this.scale) / 2;
        this.oy = (this.pixelH - this.height * this.scale) / 2;
        this.clearTrails();
        this.dirty = true;
    }

    /** Zooms by `factor` keeping the point under client position (cx, cy) fixed. */
    zoomAt(clientX, clientY, factor) {
        const [px, py] = this.toPixel(clientX, clientY);
        const min = Math.min(this.fitScale() / 4, 1), next = Math.min(Math.max(this.scale * factor, min), kMaxCell);
        const f = next / this.scale;
        this.ox = px - (px - this.ox) * f;
        this.oy = py - (py - this.oy) * f;
        this.scale = next;
        this.userMoved = true;
        this.clearTrails();
        this.dirty = true;
    }

    /** Pans by a client-pixel delta. */
    panBy(dx, dy) {
        this.ox += dx * this.dpr;
        this.oy += dy * this.dpr;
        this.userMoved = true;
        this.clearTrails();
        this.dirty = true;
    }

    toPixel(clientX, clientY) {
        const rect = this.canvas.getBoundingClientRect();
        return [(clientX - rect.left) * this.dpr, (clientY - rect.top) * this.dpr];
    }

    /** The cell under a client position: [x, y] (possibly off the map). */
    cellAt(clientX, clientY) {
        const [px, py] = this.toPixel(clientX, clientY);
        return [Math.floor((px - this.ox) / this.scale), Math.floor((py - this.oy) / this.scale)];
    }

    /** The position under a client position, in cell units (continuous: cell x spans x..x+1). */
    positionAt(clientX, clientY) {
        const [px, py] = this.toPixel(clientX, clientY);
        return [(px - this.ox) / this.scale, (py - this.oy) / this.scale];
    }

    /** Client coordinates of a position in cell units. */
    positionToClient(x, y) {
        const rect = this.canvas.getBoundingClientRect();
        return [rect.left + (this.ox + x * this.scale) / this.dpr, rect.top + (this.oy + y * this.scale) / this.dpr];
    }

    /** Client coordinates of a cell's centre. */
    cellToClient(x, y) {
        return this.positionToClient(x + 0.5, y + 0.5);
    }

    contains(x, y) {
        return x >= 0 && y >= 0 && x < this.width && y < this.height;
    }

    /** Index of the fields frame's sample covering cell (x, y) (on the map). */
    sampleIndex(x, y) {
        const f = this.fields, k = f.stride;
        return Math.floor(y / k) * f.sampleWidth + Math.floor(x / k);
    }

    costAt(x, y) {
        if (!this.contains(x, y)) return 0;
        if (this.fields && this.fields.stride > 1 && this.terrain && this.terrain.length === this.width * this.height) {
            const t = this.terrain[y * this.width + x];
            if (t !== 0) return t; // 0: not received yet
        }
        return this.fields ? this.fields.costs[this.sampleIndex(x, y)] : 0;
    }

    /** The integration value of a cell (cost units), or Infinity when unreachable, a wall or not planned yet. */
    integrationAt(x, y) {
        if (!this.fields || !this.contains(x, y)) return Infinity;
        const q = this.fields.integration[this.sampleIndex(x, y)];
        if (q === kUnreachableQ) return Infinity;
        return (this.fields.flee ? -q : q) * this.fields.integrationScale;
    }

    /** Half side of a goal marker in client pixels. */
    goalHalf() {
        return Math.max(7, Math.min(18, (this.scale / this.dpr) * 0.45));
    }

    /** The goal marker under the client position: {group, index} (index into that group's goals), or null. */
    goalAt(clientX, clientY) {
        const [px, py] = this.toPixel(clientX, clientY);
        const pad = 2 * this.dpr;
        for (let k = this.markerRects.length - 1; k >= 0; k--) {
            const r = this.markerRects[k];
            if (px >= r.x0 - pad && px <= r.x1 + pad && py >= r.y0 - pad && py <= r.y1 + pad) {
                return { group: r.group, index: r.index };
            }
        }
        return null;
    }

    // ---- Background ----------------------------------------------------------------------------------

    /** Whether a cell of the fields frame is not planned yet (its sector has no field). */
    notPlannedAt(x, y) {
        return !!this.fields && this.contains(x, y) && this.fields.directions[this.sampleIndex(x, y)] === kNotPlannedDir;
    }

    /** Whether flow arrows are drawn at this zoom (the fields frame must hold every cell). */
    arrowsDrawn() {
        return this.showArrows && this.scale >= kArrowMinCell && !!this.fields && this.fields.stride === 1;
    }

    /** What the cell colours depend on besides the fields frame and the colour scale. */
    colourKey() {
        return `${this.showHeat}/${this.arrowsDrawn()}/${this.pixelUnits}`;
    }

    /** Per-sample colours for the current mode (cached until the fields or the mode change). */
    cellColours() {
        const key = this.colourKey();
        const n = this.fields ? this.fields.sampleWidth * this.fields.sampleHeight : this.width * this.height;
        if (this.colourCache && this.colourCache.fields === this.fields && this.colourCache.key === key &&
            this.colourCache.base.length === n) {
            return this.colourCache;
        }
        this.colourCache = { fields: this.fields, key, ...this.computeCellColours(this.arrowsDrawn()) };
        return this.colourCache;
    }

    computeCellColours(arrows) {
        const f = this.fields;
        const n = f ? f.sampleWidth * f.sampleHeight : this.width * this.height;
        const base = new Uint32Array(n), hatch = new Uint8Array(n);
        const terrainLut = new Uint32Array(256), greyLut = new Uint32Array(256);
        for (let c = 1; c < 256; c++) {
            const t = terrainColour(c);
            // Passable terrain fades toward white under the arrows so they read on forest too.
            terrainLut[c] = arrows && c !== kCostWall ? mix(t, colours.white, 0.45) : t;
            greyLut[c] = mix(terrainLut[c], rgb(150, 150, 150), 0.5); // under the unreachable hatching
        }
        // The heat scale in kHeatSteps steps (a million viridis() and mix() calls took 40-55 ms).
        // Under units drawn as single pixels the heat map is faded, so that the units stand out.
        const heatLut = new Uint32Array(kHeatSteps + 1);
        for (let j = 0; j <= kHeatSteps; j++) {
            const heat = viridis(j / kHeatSteps);
            heatLut[j] = this.pixelUnits ? mix(heat, colours.white, 0.55) : heat;
        }
        const colours_ = { base, hatch, terrainLut, greyLut, heatLut };
        if (!f) {
            base.fill(colours.outside);
            return colours_;
        }
        this.colourSamples(colours_, 0, 0, f.sampleWidth - 1, f.sampleHeight - 1);
        return colours_;
    }

    /** Colours the samples of the fields frame in [x0, x1] x [y0, y1] into `into` (cellColours()). */
    colourSamples(into, x0, y0, x1, y1) {
        const f = this.fields, sw = f.sampleWidth;
        const { base, hatch, terrainLut, greyLut, heatLut } = into;
        const scale = this.maxIntegration > 0 ? kHeatSteps / this.maxIntegration : 0;
        const heatOn = this.showHeat;
        for (let y = y0; y <= y1; y++) {
            for (let i = y * sw + x0, end = y * sw + x1; i <= end; i++) {
                const c = f.costs[i];
                const q = f.integration[i];
                hatch[i] = 0;
                if (c === kCostWall) {
                    base[i] = heatOn ? colours.heatWall : colours.wall;
                } else if (f.directions[i] === kNotPlannedDir) {
                    // Hierarchical maps: no field here yet (not cut off): the terrain, or grey under the heat map.
                    base[i] = heatOn ? colours.notPlanned : terrainLut[c];
                } else if (q === kUnreachableQ || f.directions[i] === kUnreachableDir) {
                    hatch[i] = 1;
                    base[i] = heatOn ? colours.hatchB : greyLut[c];
                } else if (heatOn) {
                    // Flee fields: q grows with safety (value = -q * scale); the safest cells are dark.
                    const j = Math.min(kHeatSteps, Math.round(q * scale));
                    base[i] = heatLut[f.flee ? kHeatSteps - j : j];
                } else {
                    base[i] = terrainLut[c];
                }
            }
        }
    }

    /**
     * The background, whole, or only the pixels of the samples in `rect` ([x0, y0, x1, y1], after a
     * fields patch; whole when arrows, numbers or sectors are drawn over it).
     */
    rebuildBackground(rect = null) {
        // Fields frames of big maps hold one sample per stride x stride cells; their terrain comes
        // at full resolution apart (setTerrain), so walls stay exact however far one zooms in.
        const f = this.fields, k = f ? f.stride : 1;
        const W = this.pixelW, H = this.pixelH, w = this.width, h = this.height, s = this.scale;
        const arrows = this.arrowsDrawn();
        const numbers = this.showNumbers && s >= kNumbersMinCell && f && k === 1;
        const sectors = this.showSectors && this.sectors && this.sectors.width === this.width &&
            this.sectors.height === this.height;
        let px0 = 0, py0 = 0, px1 = W, py1 = H;
        if (rect && !arrows && !numbers && !sectors) {
            px0 = Math.max(0, Math.floor(this.ox + rect[0] * k * s) - 1);
            py0 = Math.max(0, Math.floor(this.oy + rect[1] * k * s) - 1);
            px1 = Math.min(W, Math.ceil(this.ox + (rect[2] + 1) * k * s) + 1);
            py1 = Math.min(H, Math.ceil(this.oy + (rect[3] + 1) * k * s) + 1);
            if (px0 >= px1 || py0 >= py1) return;
        }
        const sw = f ? f.sampleWidth : w;
        const fine = k > 1 && this.terrain && this.terrain.length === w * h ? this.terrain : null;
        const bg = this.bg32;
        const { base, hatch, terrainLut, greyLut } = this.cellColours();
        const grid = s >= kGridMinCell;
        const gridLut = new Map();
        const gridColour = (c) => {
            let g = gridLut.get(c);
            if (g === undefined) gridLut.set(c, (g = mix(c, colours.ink, 0.1)));
            return g;
        };
        // Column and row -> cell (or -1) and sample, and whether the pixel is a cell's last (grid line).
        const colCell = new Int32Array(W), colSample = new Int32Array(W), colEdge = new Uint8Array(W);
        for (let px = 0; px < W; px++) {
            const cx = Math.floor((px + 0.5 - this.ox) / s);
            colCell[px] = cx >= 0 && cx < w ? cx : -1;
            colSample[px] = Math.floor(cx / k);
            colEdge[px] = grid && Math.floor((px + 1.5 - this.ox) / s) !== cx ? 1 : 0;
        }
        const hatchOn = this.showHeat ? colours.hatchA : 0;
        const heat = this.showHeat;
        for (let py = py0; py < py1; py++) {
            const cy = Math.floor((py + 0.5 - this.oy) / s);
            const row = py * W;
            if (cy < 0 || cy >= h) {
                bg.fill(colours.outside, row + px0, row + px1);
                continue;
            }
            const rowEdge = grid && Math.floor((py + 1.5 - this.oy) / s) !== cy;
            const sampleRow = Math.floor(cy / k) * sw, cellRow = cy * w;
            for (let px = px0; px < px1; px++) {
                const cx = colCell[px];
                if (cx < 0) {
                    bg[row + px] = colours.outside;
                    continue;
                }
                const i = sampleRow + colSample[px];
                let c = base[i];
                const t = fine ? fine[cellRow + cx] : 0; // 0: not received yet, the sample stands in
                if (t !== 0) {
                    if (t === kCostWall) c = heat ? colours.heatWall : colours.wall;
                    else if (!heat) c = hatch[i] ? greyLut[t] : terrainLut[t];
                    else if (f.costs[i] === kCostWall) c = colours.notPlanned; // an open cell in a wall's sample
                }
                if (hatch[i] && ((px + py) / 3 | 0) % 2 === 0) {
                    c = hatchOn || mix(c, colours.hatchA, 0.45);
                }
                if (rowEdge || colEdge[px]) c = gridColour(c);
                bg[row + px] = c;
            }
        }
        // Arrows and numbers describe single cells: only when the fields frame has every cell.
        if (arrows || numbers || sectors) {
            // Draw on the background with the 2D API once, then read the pixels back.
            const img = new ImageData(new Uint8ClampedArray(bg.buffer, 0, W * H * 4), W, H);
            this.backCtx.putImageData(img, 0, 0);
            const [x0, y0, x1, y1] = this.visibleCells();
            if (arrows) this.drawArrows(this.backCtx, x0, y0, x1, y1);
            if (numbers) this.drawNumbers(this.backCtx, x0, y0, x1, y1);
            if (sectors) this.drawSectors(this.backCtx);
            bg.set(new Uint32Array(this.backCtx.getImageData(0, 0, W, H).data.buffer));
        }
        this.dirty = false;
    }

    visibleCells() {
        const s = this.scale;
        return [Math.max(0, Math.floor(-this.ox / s)), Math.max(0, Math.floor(-this.oy / s)),
            Math.min(this.width, Math.ceil((this.pixelW - this.ox) / s)),
            Math.min(this.height, Math.ceil((this.pixelH - this.oy) / s))];
    }

    /**
     * The sector overlay (hierarchical maps): the sectors with a field in the shown group's plan
     * tinted, every sector border, and once sectors are kPortalMinSector pixels wide the portals as
     * bright stretches along the borders and (cells of 3 pixels and up) the node cells on both sides.
     */
    drawSectors(ctx) {
        const sec = this.sectors, s = this.scale, n = sec.sectorSize;
        const [cx0, cy0, cx1, cy1] = this.visibleCells();
        const sx0 = Math.floor(cx0 / n), sy0 = Math.floor(cy0 / n);
        const sx1 = Math.ceil(cx1 / n), sy1 = Math.ceil(cy1 / n);
        const across = Math.ceil(this.width / n);
        const built = this.sectorFields;
        if (built && built.sectorCount === across * Math.ceil(this.height / n)) {
            // One tint whatever the group (a group's own colour would hide its units).
            ctx.fillStyle = 'rgba(70,120,255,0.24)';
            for (let sy = sy0; sy < sy1; sy++) {
                for (let sx = sx0; sx < sx1; sx++) {
                    const id = sy * across + sx;
                    if (!(built.bits[id >> 3] & (1 << (id & 7)))) continue;
                    const x = this.ox + sx * n * s, y = this.oy + sy * n * s;
                    ctx.fillRect(x, y, Math.min(n, this.width - sx * n) * s, Math.min(n, this.height - sy * n) * s);
                }
            }
        }
        // Borders; the portals only once a sector is big enough on screen to tell them apart.
        const sectorPx = n * s;
        if (sectorPx < 6) return;
        ctx.lineWidth = Math.max(1, this.dpr);
        ctx.strokeStyle = sectorPx < 40 ? 'rgba(20,20,40,0.35)' : 'rgba(20,20,40,0.55)';
        ctx.beginPath();
        for (let sx = Math.max(1, sx0); sx <= sx1 && sx * n < this.width; sx++) {
            const x = Math.round(this.ox + sx * n * s) + 0.5;
            ctx.moveTo(x, this.oy + cy0 * s);
            ctx.lineTo(x, this.oy + cy1 * s);
        }
        for (let sy = Math.max(1, sy0); sy <= sy1 && sy * n < this.height; sy++) {
            const y = Math.round(this.oy + sy * n * s) + 0.5;
            ctx.moveTo(this.ox + cx0 * s, y);
            ctx.lineTo(this.ox + cx1 * s, y);
        }
        ctx.stroke();
        if (sectorPx < kPortalMinSector) return;
        // Portals: the stretch of border each spans, drawn on the border line.
        const p = sec.portals, count = sec.portalCount;
        const thick = Math.max(2 * this.dpr, Math.min(6 * this.dpr, s * 0.5));
        const nodes = s >= 3;
        const x0 = cx0 - n, y0 = cy0 - n, x1 = cx1 + n, y1 = cy1 + n;
        ctx.strokeStyle = 'rgb(255,140,0)';
        ctx.lineWidth = thick;
        ctx.lineCap = 'butt';
        ctx.beginPath();
        // Each stretch stops short of its ends, so that neighbouring portals show as separate.
        const trim = s >= 2 ? Math.min(0.2 * s, 3 * this.dpr) : 0;
        for (let i = 0; i < count; i++) {
            const o = 6 * i, ax = p[o], ay = p[o + 1], bx = p[o + 2];
            if (ax < x0 || ax > x1 || ay < y0 || ay > y1) continue;
            const first = p[o + 4], last = p[o + 5];
            if (ax !== bx) { // vertical border between columns ax and bx, rows first..last
                const x = this.ox + bx * s;
                ctx.moveTo(x, this.oy + first * s + trim);
                ctx.lineTo(x, this.oy + (last + 1) * s - trim);
            } else { // horizontal border between rows ay and by, columns first..last
                const y = this.oy + p[o + 3] * s;
                ctx.moveTo(this.ox + first * s + trim, y);
                ctx.lineTo(this.ox + (last + 1) * s - trim, y);
            }
        }
        ctx.stroke();
        if (nodes) {
            ctx.fillStyle = 'rgb(120,40,0)';
            const d = Math.max(2, s * 0.6);
            for (let i = 0; i < count; i++) {
                const o = 6 * i;
                if (p[o] < x0 || p[o] > x1 || p[o + 1] < y0 || p[o + 1] > y1) continue;
                for (let k = 0; k < 4; k += 2) {
                    ctx.fillRect(this.ox + (p[o + k] + 0.5) * s - d / 2, this.oy + (p[o + k + 1] + 0.5) * s - d / 2, d, d);
                }
            }
        }
    }

    drawArrows(ctx, x0, y0, x1, y1) {
        const s = this.scale, w = this.width, dirs = this.fields.directions;
        const half = 0.36 * s, head = 0.3 * s;
        const c = Math.cos(0.49), sn = Math.sin(0.49);
        ctx.beginPath();
        for (let y = y0; y < y1; y++) {
            for (let x = x0; x < x1; x++) {
                const d = dirs[y * w + x];
                if (d > 7) continue;
                const len = d & 1 ? Math.SQRT1_2 : 1;
                const vx = kDirDx[d] * len, vy = kDirDy[d] * len;
                const cx = this.ox + (x + 0.5) * s, cy = this.oy + (y + 0.5) * s;
                const tx = cx + vx * half, ty = cy + vy * half;
                ctx.moveTo(cx - vx * half, cy - vy * half);
                ctx.lineTo(tx, ty);
                ctx.moveTo(tx + head * (-vx * c + vy * sn), ty + head * (-vx * sn - vy * c));
                ctx.lineTo(tx, ty);
                ctx.lineTo(tx + head * (-vx * c - vy * sn), ty + head * (vx * sn - vy * c));
            }
        }
        ctx.strokeStyle = css(colours.arrow);
        ctx.globalAlpha = 0.8;
        ctx.lineWidth = Math.min(3 * this.dpr, Math.max(1, s / 16));
        ctx.lineCap = 'round';
        ctx.lineJoin = 'round';
        ctx.stroke();
        ctx.globalAlpha = 1;
    }

    drawNumbers(ctx, x0, y0, x1, y1) {
        const s = this.scale, w = this.width, f = this.fields;
        const size = Math.min(14 * this.dpr, Math.max(8, s * 0.24));
        ctx.font = `${size}px ui-monospace, monospace`;
        ctx.textBaseline = 'top';
        ctx.textAlign = 'left';
        const inv = this.maxIntegration > 0 ? 1 / this.maxIntegration : 0;
        for (let y = y0; y < y1; y++) {
            for (let x = x0; x < x1; x++) {
                const i = y * w + x;
                const q = f.integration[i];
                if (q === kUnreachableQ) continue;
                const v = (f.flee ? -q : q) * f.integrationScale;
                const text = Math.abs(v) < 1000 ? v.toFixed(1) : v.toFixed(0);
                // Light text on the dark end of the heat map, dark text elsewhere.
                const t = f.flee ? 1 - q * inv : q * inv;
                ctx.fillStyle = this.showHeat && t < 0.55 ? 'rgba(255,255,255,0.92)' : 'rgba(20,20,30,0.85)';
                ctx.fillText(text, this.ox + x * s + 2 * this.dpr, this.oy + y * s + 2 * this.dpr);
            }
        }
    }

    // ---- Trails --------------------------------------------------------------------------------------

    clearTrails() {
        this.trail = null;
        this.prevCount = -1;
    }

    /** Fades the trail buffer and draws each unit's last move into it (1-pixel lines, by index). */
    drawTrailSegments(frame) {
        const W = this.pixelW, H = this.pixelH;
        if (!this.trail) {
            this.trail = new Uint8Array(W * H);
            this.fadeLut = new Uint8Array(256);
            for (let v = 0; v < 256; v++) this.fadeLut[v] = v < 12 ? 0 : Math.floor(v * 0.9);
        }
        const trail = this.trail, lut = this.fadeLut;
        const t32 = new Uint32Array(trail.buffer);
        for (let i = 0, n = t32.length; i < n; i++) {
            if (t32[i] === 0) continue;
            const b = i * 4;
            trail[b] = lut[trail[b]];
            trail[b + 1] = lut[trail[b + 1]];
            trail[b + 2] = lut[trail[b + 2]];
            trail[b + 3] = lut[trail[b + 3]];
        }
        const n = frame.count, pos = frame.positions;
        if (n === this.prevCount) {
            const prev = this.prevPositions;
            const kx = frame.scaleX * this.scale, ky = frame.scaleY * this.scale, ox = this.ox, oy = this.oy;
            const maxJump = Math.max(4, this.scale * 2);
            for (let i = 0; i < n; i++) {
                let x0 = ox + prev[2 * i] * kx, y0 = oy + prev[2 * i + 1] * ky;
                const x1 = ox + pos[2 * i] * kx, y1 = oy + pos[2 * i + 1] * ky;
                const dx = x1 - x0, dy = y1 - y0;
                const steps = Math.ceil(Math.max(Math.abs(dx), Math.abs(dy)));
                if (steps === 0 || steps > maxJump) continue;
                const sx = dx / steps, sy = dy / steps;
                for (let k = 0; k <= steps; k++, x0 += sx, y0 += sy) {
                    const px = x0 | 0, py = y0 | 0;
                    if (px >= 0 && py >= 0 && px < W && py < H) trail[py * W + px] = 255;
                }
            }
        }
        if (this.prevPositions.length < pos.length) this.prevPositions = new Uint16Array(pos.length);
        this.prevPositions.set(pos);
        this.prevCount = n;
    }

    blendTrails(frame32) {
        const trail = this.trail, t32 = new Uint32Array(trail.buffer);
        const tr = 40, tg = 70, tb = 190; // trail colour (a lighter unit blue)
        for (let i = 0, n = t32.length; i < n; i++) {
            if (t32[i] === 0) continue;
            for (let k = 0; k < 4; k++) {
                const p = i * 4 + k, a = trail[p];
                if (a === 0) continue;
                const c = frame32[p], t = a * (0.75 / 255);
                const r = c & 255, g = (c >>> 8) & 255, b = (c >>> 16) & 255;
                frame32[p] = ((255 << 24) | ((b + (tb - b) * t) << 16) | ((g + (tg - g) * t) << 8) | (r + (tr - r) * t)) >>> 0;
            }
        }
    }

    // ---- Frame ---------------------------------------------------------------------------------------

    /**
     * Pixel offsets of a unit disc of radius r pixels for a row stride W: inner and rim, and the
     * ring drawn around a selected unit (halo, and its darker outer edge). `all` lists every offset
     * as dx, dy and its kind (0 inner, 1 rim, 2 halo, 3 halo edge) for discs cut by the canvas edge.
     */
    discFor(r, W) {
        // A few radii at a time (one per unit size at the current zoom): start afresh past that.
        if (!this.discs || this.discs.W !== W || this.discs.byRadius.size > 8) this.discs = { W, byRadius: new Map() };
        const cached = this.discs.byRadius.get(r);
        if (cached) return cached;
        const lists = [[], [], [], []], dxs = [], dys = [], kinds = [];
        const reach = r + 3;
        const rr = (r + 0.5) * (r + 0.5), halo = (r + 2) * (r + 2), edge = (r + 3) * (r + 3);
        for (let dy = -reach; dy <= reach; dy++) {
            for (let dx = -reach; dx <= reach; dx++) {
                const d2 = dx * dx + dy * dy;
                let kind;
                if (d2 <= rr) kind = r >= 2 && d2 > (r - 0.5) * (r - 0.5) ? 1 : 0;
                else if (d2 <= halo) kind = 2;
                else if (d2 <= edge) kind = 3;
                else continue;
                lists[kind].push(dy * W + dx);
                dxs.push(dx);
                dys.push(dy);
                kinds.push(kind);
            }
        }
        const disc = { r, W, reach, inner: Int32Array.from(lists[0]), rim: Int32Array.from(lists[1]),
            halo: Int32Array.from(lists[2]), haloEdge: Int32Array.from(lists[3]),
            dxs: Int32Array.from(dxs), dys: Int32Array.from(dys), kinds: Uint8Array.from(kinds) };
        this.discs.byRadius.set(r, disc);
        return disc;
    }

    /** Discs by unit size (index 0 and unknown sizes: size 1) for the current zoom. */
    unitDiscs(W) {
        const discs = [];
        for (let size = 0; size <= kUnitSizes; size++) {
            const radius = this.unitRadius + kRadiusPerSize * (Math.max(1, size) - 1);
            // Radius 0: one pixel, for units smaller than a pixel (whole big maps at Fit zoom).
            const px = radius * this.scale < 0.75 ? 0 : Math.max(1, Math.round(radius * this.scale - 0.25));
            discs.push(this.discFor(px, W));
        }
        return discs;
    }

    /**
     * Rings around the selected units, drawn before the units so that they stay on top: every
     * ring's dark edge first, then every white ring, so that overlapping rings merge into one patch.
     */
    stampSelection(frame32, discs, kx, ky) {
        const a = this.agents, sel = this.selection;
        if (!sel || sel.rosterSize !== a.count) return;
        const W = this.pixelW, H = this.pixelH, pos = a.positions, bits = sel.bits, sizes = a.sizes;
        const ox = this.ox, oy = this.oy, n = a.count;
        for (let pass = 3; pass >= 2; pass--) {
            const colour = pass === 2 ? colours.selection : colours.selectionEdge;
            for (let b = 0, nb = bits.length; b < nb; b++) {
                const byte = bits[b];
                if (byte === 0) continue;
                for (let k = 0; k < 8; k++) {
                    if (!(byte & (1 << k))) continue;
                    const i = b * 8 + k;
                    if (i >= n) break;
                    const disc = discs[sizes ? sizes[i] : 1] || discs[1], m = disc.reach;
                    const px = (ox + pos[2 * i] * kx) | 0, py = (oy + pos[2 * i + 1] * ky) | 0;
                    if (px < -m || py < -m || px >= W + m || py >= H + m) continue;
                    if (px >= m && py >= m && px < W - m && py < H - m) {
                        const offsets = pass === 2 ? disc.halo : disc.haloEdge, no = offsets.length;
                        const base = py * W + px;
                        for (let j = 0; j < no; j++) frame32[base + offsets[j]] = colour;
                    } else {
                        const dxs = disc.dxs, dys = disc.dys, kinds = disc.kinds;
                        for (let j = 0; j < dxs.length; j++) {
                            if (kinds[j] !== pass) continue;
                            const x = px + dxs[j], y = py + dys[j];
                            if (x >= 0 && y >= 0 && x < W && y < H) frame32[y * W + x] = colour;
                        }
                    }
                }
            }
        }
    }

    stampUnits(frame32) {
        const a = this.agents;
        this.agentsDrawn = 0;
        if (!a) return;
        const W = this.pixelW, H = this.pixelH, n = a.count, pos = a.positions, st = a.states, grp = a.groups;
        const sizes = a.sizes;
        const kx = a.scaleX * this.scale, ky = a.scaleY * this.scale, ox = this.ox, oy = this.oy;
        const discs = this.unitDiscs(W);
        this.stampSelection(frame32, discs, kx, ky);
        const fills = kUnitTables.fill, rims = kUnitTables.rim;
        let drawn = 0;
        for (let i = 0; i < n; i++) {
            const disc = discs[sizes ? sizes[i] : 1] || discs[1], r = disc.r;
            const px = (ox + pos[2 * i] * kx) | 0, py = (oy + pos[2 * i + 1] * ky) | 0;
            if (px < -r || py < -r || px >= W + r || py >= H + r) continue;
            const key = ((grp[i] & 7) << 3) | (st[i] & 7); // unitColourKey()
            const colour = fills[key], rimColour = rims[key];
            drawn++;
            if (px >= r && py >= r && px < W - r && py < H - r) {
                const inner = disc.inner, rim = disc.rim, ni = inner.length, nr = rim.length;
                const base = py * W + px;
                for (let k = 0; k < ni; k++) frame32[base + inner[k]] = colour;
                for (let k = 0; k < nr; k++) frame32[base + rim[k]] = rimColour;
            } else {
                const dxs = disc.dxs, dys = disc.dys, kinds = disc.kinds;
                for (let k = 0; k < dxs.length; k++) {
                    if (kinds[k] > 1) continue;
                    const x = px + dxs[k], y = py + dys[k];
                    if (x >= 0 && y >= 0 && x < W && y < H) frame32[y * W + x] = kinds[k] ? rimColour : colour;
                }
            }
        }
        this.agentsDrawn = drawn;
    }

    /**
     * The cells a unit starting at cell (x, y) passes following the flow field shown (the field's
     * moves from cell to cell), up to a goal, a cell without a move or `maxSteps` cells.
     */
    flowPath(x, y, maxSteps = 4096) {
        const f = this.fields, cells = [[x, y]];
        if (!f || f.stride !== 1) return cells;
        for (let k = 0; k < maxSteps; k++) {
            const d = f.directions[y * f.width + x];
            if (d > 7) break;
            x += kDirDx[d];
            y += kDirDy[d];
            if (!this.contains(x, y)) break;
            cells.push([x, y]);
        }
        return cells;
    }

    /** A polyline through cell centres. */
    strokeCells(ctx, cells) {
        const s = this.scale;
        ctx.beginPath();
        cells.forEach(([x, y], i) => {
            const px = this.ox + (x + 0.5) * s, py = this.oy + (y + 0.5) * s;
            if (i === 0) ctx.moveTo(px, py);
            else ctx.lineTo(px, py);
        });
        ctx.stroke();
    }

    /** The A* comparison: A* paths dashed orange, the flow paths of the same units solid blue. */
    drawComparison(ctx) {
        const c = this.comparison;
        ctx.lineCap = 'round';
        ctx.lineJoin = 'round';
        const w = Math.max(2 * this.dpr, Math.min(4 * this.dpr, this.scale * 0.18));
        for (const cells of c.flow) {
            ctx.lineWidth = w + 2 * this.dpr;
            ctx.strokeStyle = 'rgba(255,255,255,0.8)';
            this.strokeCells(ctx, cells);
            ctx.lineWidth = w;
            ctx.strokeStyle = 'rgb(30,90,220)';
            this.strokeCells(ctx, cells);
        }
        ctx.setLineDash([3 * w, 2 * w]);
        for (const cells of c.astar) {
            ctx.lineWidth = w;
            ctx.strokeStyle = 'rgb(245,130,0)';
            this.strokeCells(ctx, cells);
        }
        ctx.setLineDash([]);
    }

    /** A ring around the unit inspected (by roster index in the latest agents frame). */
    drawInspected(ctx) {
        const a = this.agents, i = this.inspected;
        if (!a || i < 0 || i >= a.count) return;
        const x = this.ox + a.positions[2 * i] * a.scaleX * this.scale, y = this.oy + a.positions[2 * i + 1] * a.scaleY * this.scale;
        const r = Math.max(7 * this.dpr, this.scale * 0.6);
        ctx.lineWidth = 3 * this.dpr;
        ctx.strokeStyle = '#fff';
        ctx.beginPath();
        ctx.arc(x, y, r, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.lineWidth = 1.5 * this.dpr;
        ctx.strokeStyle = 'rgb(20,20,30)';
        ctx.stroke();
    }

    /**
     * The magnifier: the canvas around the lens centre, enlarged so that a cell is at least 12 px,
     * in a circle above the pointer, the cell under the pointer outlined.
     */
    drawLens(ctx) {
        const [px, py] = this.toPixel(this.lens[0], this.lens[1]);
        const zoom = Math.min(12, Math.max(3, (12 * this.dpr) / this.scale));
        const R = 64 * this.dpr, src = R / zoom;
        const cx = Math.min(this.pixelW - R - 4, Math.max(R + 4, px)), cy = py - R - 24 * this.dpr > R ? py - R - 24 * this.dpr : py + R + 24 * this.dpr;
        ctx.save();
        ctx.beginPath();
        ctx.arc(cx, cy, R, 0, 2 * Math.PI);
        ctx.clip();
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(this.canvas, px - src, py - src, 2 * src, 2 * src, cx - R, cy - R, 2 * R, 2 * R);
        // The cell under the pointer.
        const cell = Math.floor((px - this.ox) / this.scale), row = Math.floor((py - this.oy) / this.scale);
        const x0 = cx + (this.ox + cell * this.scale - px) * zoom, y0 = cy + (this.oy + row * this.scale - py) * zoom;
        ctx.lineWidth = 2 * this.dpr;
        ctx.strokeStyle = this.costAt(cell, row) === kCostWall ? 'rgb(225,30,30)' : 'rgb(255,255,255)';
        ctx.strokeRect(x0, y0, this.scale * zoom, this.scale * zoom);
        ctx.restore();
        ctx.lineWidth = 2 * this.dpr;
        ctx.strokeStyle = 'rgb(20,20,30)';
        ctx.beginPath();
        ctx.arc(cx, cy, R, 0, 2 * Math.PI);
        ctx.stroke();
    }

    /** One goal marker centred on device pixel (x, y); returns its rectangle. */
    drawGoal(ctx, x, y, half, colour, label) {
        ctx.font = `bold ${Math.round(half * (label.length > 1 ? 1.25 : 1.5))}px system-ui, sans-serif`;
        const halfW = Math.max(half, Math.ceil(ctx.measureText(label).width / 2) + Math.round(half * 0.25));
        ctx.fillStyle = css(colours.ink);
        ctx.fillRect(x - halfW - 2, y - half - 2, 2 * halfW + 4, 2 * half + 4);
        ctx.fillStyle = '#fff';
        ctx.fillRect(x - halfW - 1, y - half - 1, 2 * halfW + 2, 2 * half + 2);
        ctx.fillStyle = css(colour);
        ctx.fillRect(x - halfW, y - half, 2 * halfW, 2 * half);
        ctx.fillStyle = '#fff';
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText(label, x, y + half * 0.08);
        return { x0: x - halfW - 2, y0: y - half - 2, x1: x + halfW + 2, y1: y + half + 2 };
    }

    drawOverlay() {
        const ctx = this.ctx, s = this.scale;
        if (this.brush && this.contains(this.brush.x, this.brush.y)) {
            const cx = this.ox + (this.brush.x + 0.5) * s, cy = this.oy + (this.brush.y + 0.5) * s;
            ctx.lineWidth = this.dpr;
            ctx.strokeStyle = 'rgba(255,255,255,0.9)';
            ctx.setLineDash([4 * this.dpr, 3 * this.dpr]);
            ctx.beginPath();
            if (this.brush.radius === 0) ctx.rect(cx - s / 2, cy - s / 2, s, s);
            else ctx.arc(cx, cy, (this.brush.radius + 0.5) * s, 0, 2 * Math.PI);
            ctx.stroke();
            ctx.strokeStyle = 'rgba(0,0,0,0.7)';
            ctx.lineDashOffset = 3.5 * this.dpr;
            ctx.stroke();
            ctx.setLineDash([]);
            ctx.lineDashOffset = 0;
        }
        if (this.formations.length) this.drawFormations(ctx);
        if (this.tower) this.drawTower(ctx, this.tower);
        if (this.comparison) this.drawComparison(ctx);
        if (this.inspected >= 0) this.drawInspected(ctx);
        const half = Math.round(this.goalHalf() * this.dpr);
        const rects = [];
        for (const m of this.markers) {
            // A flee group's markers are its dangers: "!" in red; an exit group's are its exits: "E".
            const colour = m.flee ? '#e03030' : groupColour(m.id);
            const letter = m.flee ? '!' : m.exit ? 'E' : 'G';
            const label = this.labelGroups ? `${letter}${m.id}` : letter;
            m.goals.forEach(([gx, gy], index) => {
                const r = this.drawGoal(ctx, Math.round(this.ox + (gx + 0.5) * s), Math.round(this.oy + (gy + 0.5) * s),
                    half, colour, label);
                rects.push({ group: m.id, index, ...r });
            });
        }
        this.markerRects = rects;
        if (this.band) {
            const b = this.band;
            const x0 = this.ox + Math.min(b.x0, b.x1) * s, y0 = this.oy + Math.min(b.y0, b.y1) * s;
            const w = Math.abs(b.x1 - b.x0) * s, h = Math.abs(b.y1 - b.y0) * s;
            ctx.fillStyle = 'rgba(255,255,255,0.16)';
            ctx.fillRect(x0, y0, w, h);
            ctx.lineWidth = 2 * this.dpr;
            ctx.strokeStyle = 'rgba(20,20,30,0.75)';
            ctx.strokeRect(x0, y0, w, h);
            ctx.lineWidth = this.dpr;
            ctx.strokeStyle = '#fff';
            ctx.setLineDash([5 * this.dpr, 3 * this.dpr]);
            ctx.strokeRect(x0, y0, w, h);
            ctx.setLineDash([]);
        }
        if (this.press) this.drawPress(ctx);
        if (this.lens) this.drawLens(ctx);
    }

    /** The long-press cue: a ring that grows out of the finger and fades (kPressMs). */
    drawPress(ctx) {
        const t = (performance.now() - this.press.at) / kPressMs;
        if (t >= 1) {
            this.press = null;
            return;
        }
        const [px, py] = this.toPixel(this.press.x, this.press.y);
        const r = (14 + 30 * t) * this.dpr, alpha = 1 - t * t;
        ctx.beginPath();
        ctx.arc(px, py, r, 0, 2 * Math.PI);
        ctx.lineWidth = 5 * this.dpr;
        ctx.strokeStyle = `rgba(20,20,30,${(0.55 * alpha).toFixed(3)})`;
        ctx.stroke();
        ctx.lineWidth = 3 * this.dpr;
        ctx.strokeStyle = `rgba(255,255,255,${alpha.toFixed(3)})`;
        ctx.stroke();
    }

    /** The tower stamp: filled green (free), red (would block) or white (waiting for the server). */
    drawTower(ctx, t) {
        const s = this.scale;
        const x = this.ox + t.x0 * s, y = this.oy + t.y0 * s;
        const w = (t.x1 - t.x0 + 1) * s, h = (t.y1 - t.y0 + 1) * s;
        const fill = { free: 'rgba(25,170,70,0.45)', blocks: 'rgba(225,30,30,0.5)' }[t.state] || 'rgba(255,255,255,0.35)';
        const edge = { free: 'rgb(10,110,40)', blocks: 'rgb(150,10,10)' }[t.state] || 'rgba(20,20,30,0.75)';
        ctx.fillStyle = fill;
        ctx.fillRect(x, y, w, h);
        ctx.lineWidth = 2 * this.dpr;
        ctx.strokeStyle = edge;
        if (t.state === 'pending') ctx.setLineDash([4 * this.dpr, 3 * this.dpr]);
        ctx.strokeRect(x + this.dpr, y + this.dpr, w - 2 * this.dpr, h - 2 * this.dpr);
        ctx.setLineDash([]);
        if (t.state === 'blocks' && s >= 6) {
            // A cross, so that the verdict does not rest on colour alone.
            const m = Math.min(w, h) * 0.22;
            ctx.beginPath();
            ctx.moveTo(x + m, y + m);
            ctx.lineTo(x + w - m, y + h - m);
            ctx.moveTo(x + w - m, y + m);
            ctx.lineTo(x + m, y + h - m);
            ctx.stroke();
        }
    }

    /** Draws one animation frame. */
    render() {
        if (!this.frame) return;
        // Units smaller than a pixel (drawn as single pixels) fade the heat map under them.
        const pixelUnits = !!this.agents && this.agents.count > 0 && this.unitRadius * this.scale < 0.75;
        if (pixelUnits !== this.pixelUnits) {
            this.pixelUnits = pixelUnits;
            if (this.showHeat) this.dirty = true;
        }
        if (this.dirty) {
            this.rebuildBackground();
            this.bgVersion = (this.bgVersion || 0) + 1;
        } else if (this.patchRect) {
            this.rebuildBackground(this.patchRect);
            this.bgVersion = (this.bgVersion || 0) + 1;
        }
        this.patchRect = null;
        // The background with the units stamped on is composed again only when something it is made
        // of changed: most frames at 100,000 units come between two agents frames (the server
        // sends 10-30 a second), and stamping them is most of a frame's time (about 5 ms of 6.5).
        const key = this.stampKey, frame32 = this.frame32;
        if (!key || key.agents !== this.agents || key.selection !== this.selection || key.bg !== this.bgVersion ||
            key.scale !== this.scale || key.ox !== this.ox || key.oy !== this.oy || key.frame !== frame32 ||
            key.trails !== this.showTrails) {
            frame32.set(this.bg32);
            if (this.showTrails && this.trail) this.blendTrails(frame32);
            this.stampUnits(frame32);
            this.stampKey = { agents: this.agents, selection: this.selection, bg: this.bgVersion, scale: this.scale,
                ox: this.ox, oy: this.oy, frame: frame32, trails: this.showTrails };
        }
        this.ctx.putImageData(this.frame, 0, 0);
        this.drawOverlay();
    }
}
