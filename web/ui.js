// Input: the canvas (select, order, paint, towers, goals, zoom, pan) and the control panel. Everything the
// user does ends up as a client message through `send` (docs/protocol.md) or as a view change.

import { kCostWall } from './palette.js';

const kPaintPerSecond = 150; // well under the server's 300 paint messages per second
const kPaintBurst = 20;
const kGoalIntervalMs = 33; // goal drags: about 30 set_goals per second at most
const kParamsIntervalMs = 100;
const kClickSlop = 4; // client pixels a click may move before it counts as a drag
const kTouchSlop = 10; // the same for a finger (a tap, a long press)
const kLongPressMs = 350; // a finger held this long without moving starts a selection box
const kTowerCheckMs = 50; // tower_check: at most 20 per second, one at a time (the server allows 120 messages/s)
const kTowerAnswerMs = 1000; // an answer this late is taken as lost: the next check may go

/** The key of a tower rectangle ({x0, y0, x1, y1}, cells inclusive). */
export function towerKey(t) {
    return t ? `${t.x0},${t.y0},${t.x1},${t.y1}` : '';
}

/**
 * Asks the server (`tower_check`) whether a tower on the stamp under the cursor would block: one
 * check in flight at a time, at most one per kTowerCheckMs, for the latest stamp only (stamps the
 * cursor passed over meanwhile are never asked about). onVerdict(rect, answer) gets the `tower`
 * answers for the stamp still wanted.
 */
export class TowerProbe {
    constructor(send, onVerdict) {
        this.send = send;
        this.onVerdict = onVerdict;
        this.rect = null; // the stamp wanted
        this.sent = ''; // the key of the last stamp asked about (for the current state of the world)
        this.inFlight = false;
        this.sentAt = -Infinity;
        this.timer = 0;
    }

    /** The stamp under the cursor (or null): asked about unless it was already. */
    want(rect) {
        if (towerKey(rect) !== towerKey(this.rect)) this.sent = '';
        this.rect = rect;
        this.pump();
    }

    /** The world changed (units, groups, terrain): the stamp's answer is stale, ask again. */
    recheck() {
        this.sent = '';
        this.pump();
    }

    /** A `tower` answer (or null: the check was refused). */
    answer(m) {
        this.inFlight = false;
        if (m && this.rect && towerKey(m) === towerKey(this.rect)) this.onVerdict(this.rect, m);
        this.pump();
    }

    pump() {
        const key = towerKey(this.rect);
        if (!key || key === this.sent) return;
        const now = performance.now();
        if (this.inFlight && now - this.sentAt < kTowerAnswerMs) return; // answer() pumps again
        const wait = this.sentAt + kTowerCheckMs - now;
        if (wait > 0) {
            if (!this.timer) {
                this.timer = setTimeout(() => {
                    this.timer = 0;
                    this.pump();
                }, wait);
            }
            return;
        }
        if (!this.send({ type: 'tower_check', ...this.rect })) return;
        this.sent = key;
        this.inFlight = true;
        this.sentAt = now;
    }
}

/** Sends paint messages no faster than kPaintPerSecond (a token bucket), in order. */
class PaintQueue {
    constructor(send) {
        this.send = send;
        this.queue = [];
        this.tokens = kPaintBurst;
        this.last = performance.now();
        this.timer = 0;
    }

    push(message) {
        this.queue.push(message);
        this.pump();
    }

    pump() {
        const now = performance.now();
        this.tokens = Math.min(kPaintBurst, this.tokens + ((now - this.last) * kPaintPerSecond) / 1000);
        this.last = now;
        while (this.queue.length && this.tokens >= 1) {
            this.send(this.queue.shift());
            this.tokens -= 1;
        }
        if (this.queue.length && !this.timer) {
            this.timer = setTimeout(() => {
                this.timer = 0;
                this.pump();
            }, 1000 / kPaintPerSecond);
        }
    }
}

/** Cells on the segment from (x0, y0) to (x1, y1), both ends included (Bresenham). */
function lineCells(x0, y0, x1, y1) {
    const cells = [];
    const dx = Math.abs(x1 - x0), dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    for (;;) {
        cells.push([x0, y0]);
        if (x0 === x1 && y0 === y1) return cells;
        const e2 = 2 * err;
        if (e2 >= dy) { err += dy; x0 += sx; }
        if (e2 <= dx) { err += dx; y0 += sy; }
    }
}

/**
 * Mouse and keyboard on the canvas. `app` provides: send(message), log(text, kind), tool(),
 * brush(), towerSize(), towerHover(rect or null), groups() (the groups as drawn: [{id, goals,
 * members}]), setLocalGoals(group, goals), setDragging(group or 0), shownGroup() (the group whose
 * field is on screen), selection() ({count, serial}), select(box or null), unitCount(), maxGoals(),
 * selectionPending() (a box selection sent and not yet answered), hover(cell), inspect(position in
 * cell units), toast(text).
 *
 * Touch, with the Select tool: one finger drags pan; a long press (kLongPressMs without moving;
 * a ring flashes under the finger) then a drag draws the selection box, a long press released in
 * place clears the selection; with units selected a tap sends them there (the right-click order;
 * with nothing selected a tap does nothing). Two fingers pinch to zoom and pan. Goals, paint,
 * towers and dangers take one finger as they take the mouse.
 */
export class CanvasInput {
    constructor(canvas, view, app) {
        this.canvas = canvas;
        this.view = view;
        this.app = app;
        this.paint = new PaintQueue((m) => app.send(m));
        this.mode = null; // 'paint' | 'tower' | 'goal' | 'box' | 'right' | 'pan' | null
        this.pointer = null; // the last client position over the canvas: [x, y]
        this.space = false;
        this.goalTimer = 0;
        this.goalSentAt = 0;
        this.lastOrder = null; // {serial, goals}: this client's last order, for the selection `serial`
        this.lastSelectBox = null; // the box of the last `select` sent (tests)
        this.touches = new Map(); // pointerId -> [clientX, clientY] of the touch points down
        this.pinch = null; // {distance, centre}: the two-finger gesture in progress
        this.touchTap = false; // a Select-tool touch that has not moved (yet): a tap or a long press
        this.touchAt = null; // [clientX, clientY] of that finger now
        this.pressTimer = 0; // fires the long press

        canvas.addEventListener('pointerdown', (e) => this.down(e));
        canvas.addEventListener('pointermove', (e) => this.move(e));
        canvas.addEventListener('pointerup', (e) => this.up(e));
        canvas.addEventListener('pointercancel', (e) => this.cancel(e));
        canvas.addEventListener('pointerleave', () => {
            this.pointer = null;
            if (!this.mode) this.setHover(null);
        });
        canvas.addEventListener('contextmenu', (e) => e.preventDefault());
        canvas.addEventListener('wheel', (e) => {
            e.preventDefault();
            const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
            view.zoomAt(e.clientX, e.clientY, Math.exp(-delta * 0.0015));
        }, { passive: false });
        window.addEventListener('keydown', (e) => {
            if (e.code === 'Space' && !isTyping(e)) {
                this.space = true;
                e.preventDefault();
            }
        });
        window.addEventListener('keyup', (e) => {
            if (e.code === 'Space') this.space = false;
        });
    }

    down(e) {
        if (e.pointerType === 'touch') {
            this.touches.set(e.pointerId, [e.clientX, e.clientY]);
            if (this.touches.size === 2) {
                // A second finger: whatever the first started becomes a pinch.
                this.abandon();
                this.pinch = this.pinchState();
                return;
            }
            if (this.touches.size > 2 || this.pinch) return;
        }
        if (this.mode) return;
        const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
        if (e.button === 0 && e.altKey) {
            this.app.inspect(this.view.positionAt(e.clientX, e.clientY));
            return;
        }
        this.canvas.setPointerCapture(e.pointerId);
        this.from = [e.clientX, e.clientY];
        if (e.button === 1 || (e.button === 0 && this.space)) {
            this.startPan(e);
            e.preventDefault();
            return;
        }
        if (e.button === 2) {
            // A right click orders; a right drag pans (decided once the mouse moves far enough).
            this.mode = 'right';
            this.rightShift = e.shiftKey;
            e.preventDefault();
            return;
        }
        if (e.button !== 0) return;
        let goal = this.view.goalAt(e.clientX, e.clientY);
        // The Danger tool places a danger on a goal marker too; it drags or removes only dangers.
        if (goal && this.app.tool() === 'danger' && !this.flees(goal.group)) goal = null;
        if (goal) {
            const group = this.app.groups().find((g) => g.id === goal.group);
            if (group && goal.index < group.goals.length) {
                this.mode = 'goal';
                this.goalGroup = goal.group;
                this.goalIndex = goal.index;
                this.goalMoved = false;
                this.goalCell = [...group.goals[goal.index]];
                this.app.setDragging(goal.group);
                this.canvas.classList.add('dragging');
                return;
            }
        }
        if (!this.view.contains(cx, cy) && this.app.tool() !== 'select') return;
        if (e.shiftKey) {
            if (this.view.contains(cx, cy)) this.addGoal(cx, cy);
            return;
        }
        if (this.app.tool() === 'select' && e.pointerType === 'touch') {
            // One finger pans; held still it becomes a long press (a selection box); lifted at
            // once it is a tap (an order).
            this.canvas.setPointerCapture(e.pointerId);
            this.startPan(e);
            this.touchTap = true;
            this.touchAt = [e.clientX, e.clientY];
            clearTimeout(this.pressTimer);
            this.pressTimer = setTimeout(() => this.longPress(), kLongPressMs);
            return;
        }
        if (this.app.tool() === 'select') {
            const [x, y] = this.view.positionAt(e.clientX, e.clientY);
            this.mode = 'box';
            this.view.band = { x0: x, y0: y, x1: x, y1: y };
            return;
        }
        if (this.app.tool() === 'danger') {
            this.mode = 'danger';
            this.addDanger(cx, cy);
            return;
        }
        if (this.app.tool() === 'tower') {
            // One tower per click: the server refuses it (with the reason) when it would block.
            this.mode = 'tower';
            const t = this.towerAt(e.clientX, e.clientY);
            if (t) this.app.send({ type: 'place_tower', ...t });
            return;
        }
        this.mode = 'paint';
        this.lastPaint = null;
        this.paintTo(cx, cy, true);
    }

    startPan(e) {
        this.mode = 'pan';
        this.panFrom = [e.clientX, e.clientY];
        this.canvas.classList.add('panning');
    }

    /** Whether the pointer has moved further than a click (a tap) allows since the button went down. */
    dragged(e) {
        const slop = e.pointerType === 'touch' ? kTouchSlop : kClickSlop;
        return Math.hypot(e.clientX - this.from[0], e.clientY - this.from[1]) >= slop;
    }

    /**
     * The finger has been held still for kLongPressMs with the Select tool: the pan becomes a
     * selection box from where it is (a ring flashes there, the phone buzzes briefly).
     */
    longPress() {
        this.pressTimer = 0;
        if (this.mode !== 'pan' || !this.touchTap || this.pinch || this.touches.size !== 1) return;
        const [px, py] = this.touchAt;
        this.canvas.classList.remove('panning');
        this.touchTap = false;
        this.from = [px, py];
        const [x, y] = this.view.positionAt(px, py);
        this.mode = 'box';
        this.view.band = { x0: x, y0: y, x1: x, y1: y };
        this.view.press = { x: px, y: py, at: performance.now() };
        try {
            if (navigator.vibrate && navigator.userActivation && navigator.userActivation.isActive) navigator.vibrate(15);
        } catch {
            // no vibration: the ring is the cue
        }
    }

    /** Stops waiting for a long press. */
    stopPress() {
        clearTimeout(this.pressTimer);
        this.pressTimer = 0;
    }

    /** The two touch points' distance and centre. */
    pinchState() {
        const [a, b] = [...this.touches.values()];
        return { distance: Math.max(1, Math.hypot(a[0] - b[0], a[1] - b[1])), centre: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] };
    }

    /** Drops what the pointer started (a second finger came): nothing is sent for it. */
    abandon() {
        this.stopPress();
        this.touchTap = false;
        if (this.mode === 'goal') {
            this.canvas.classList.remove('dragging');
            this.app.setDragging(0);
            this.view.lens = null;
        }
        if (this.mode === 'pan') this.canvas.classList.remove('panning');
        this.view.band = null;
        this.mode = null;
    }

    move(e) {
        if (e.pointerType === 'touch' && this.touches.has(e.pointerId)) {
            this.touches.set(e.pointerId, [e.clientX, e.clientY]);
            if (this.pinch) {
                if (this.touches.size === 2) {
                    const next = this.pinchState(), prev = this.pinch;
                    this.view.panBy(next.centre[0] - prev.centre[0], next.centre[1] - prev.centre[1]);
                    this.view.zoomAt(next.centre[0], next.centre[1], next.distance / prev.distance);
                    this.pinch = next;
                }
                return;
            }
        }
        if (this.mode === 'pan' && this.touchTap) {
            this.touchAt = [e.clientX, e.clientY];
            if (this.dragged(e)) {
                this.touchTap = false; // a drag: it pans, no tap, no long press
                this.stopPress();
            }
        }
        this.pointer = [e.clientX, e.clientY];
        const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
        if (this.mode === 'right' && this.dragged(e)) {
            this.startPan({ clientX: this.from[0], clientY: this.from[1] });
        }
        if (this.mode === 'pan') {
            this.view.panBy(e.clientX - this.panFrom[0], e.clientY - this.panFrom[1]);
            this.panFrom = [e.clientX, e.clientY];
            return;
        }
        if (this.mode === 'goal') {
            this.dragGoal(cx, cy);
            // Small cells: a magnifier shows where the goal will land.
            this.view.lens = this.view.scale < 8 * this.view.dpr ? [e.clientX, e.clientY] : null;
        } else if (this.mode === 'paint') {
            this.paintTo(cx, cy, false);
        } else if (this.mode === 'box') {
            const [x, y] = this.view.positionAt(e.clientX, e.clientY);
            this.view.band = { ...this.view.band, x1: x, y1: y };
        }
        this.setHover([cx, cy], e);
    }

    up(e) {
        if (e.pointerType === 'touch') {
            this.touches.delete(e.pointerId);
            if (this.pinch) {
                if (this.touches.size === 0) this.pinch = null;
                return;
            }
        }
        this.stopPress();
        if (this.mode === 'pan') {
            this.canvas.classList.remove('panning');
            if (this.touchTap) this.tap(e);
            this.touchTap = false;
        } else if (this.mode === 'right') {
            this.rightClick(e);
        } else if (this.mode === 'goal') {
            this.canvas.classList.remove('dragging');
            this.view.lens = null;
            const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
            const onWall = this.view.contains(cx, cy) && this.view.costAt(cx, cy) === kCostWall;
            if (onWall && this.dragged(e)) {
                this.dropOnWall(cx, cy);
            } else if (!this.goalMoved) {
                this.removeGoal(this.goalGroup, this.goalIndex);
            } else {
                this.flushGoals(true);
            }
            this.app.setDragging(0);
        } else if (this.mode === 'paint') {
            const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
            this.paintTo(cx, cy, true);
        } else if (this.mode === 'box') {
            const band = this.view.band;
            this.view.band = null;
            if (!this.dragged(e)) {
                this.select(null); // a click on the map (a long press released in place) clears the selection
            } else {
                const [x, y] = this.view.positionAt(e.clientX, e.clientY);
                const x0 = Math.min(band.x0, x), x1 = Math.max(band.x0, x);
                const y0 = Math.min(band.y0, y), y1 = Math.max(band.y0, y);
                this.select(x0 < x1 && y0 < y1 ? [x0, y0, x1, y1] : null);
            }
        }
        this.mode = null;
        if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    }

    cancel(e) {
        this.stopPress();
        this.touchTap = false;
        if (e.pointerType === 'touch') this.touches.delete(e.pointerId);
        if (this.pinch) {
            if (this.touches.size === 0) this.pinch = null;
            return;
        }
        this.view.lens = null;
        if (this.mode === 'box' || this.mode === 'right') {
            this.view.band = null;
            this.mode = null;
        }
        this.up(e);
    }

    /** Esc: drops the box being dragged, else clears the selection. */
    escape() {
        if (this.mode === 'box') {
            this.view.band = null;
            this.mode = null;
            return;
        }
        if (this.app.selection().count > 0) this.select(null);
    }

    select(box) {
        this.lastSelectBox = box;
        this.app.select(box);
    }

    setHover(cell, e) {
        const view = this.view;
        if (!cell || !view.contains(cell[0], cell[1])) {
            view.brush = null;
            this.app.towerHover(null);
            this.app.hover(null);
            return;
        }
        const overGoal = e && !this.mode && view.goalAt(e.clientX, e.clientY);
        this.canvas.classList.toggle('over-goal', !!overGoal);
        const tool = this.app.tool();
        const painting = tool !== 'select' && tool !== 'tower' && tool !== 'danger';
        const busy = overGoal || this.mode === 'goal' || this.mode === 'box';
        view.brush = !painting || busy ? null : { x: cell[0], y: cell[1], radius: this.app.brush() };
        this.app.towerHover(tool === 'tower' && !busy && e ? this.towerAt(e.clientX, e.clientY) : null);
        this.app.hover(cell);
    }

    /** Shows the hover again for the last pointer position (after a tool or tower size change). */
    refreshHover() {
        if (this.mode) return;
        if (!this.pointer) {
            this.setHover(null);
            return;
        }
        const [x, y] = this.pointer;
        this.setHover(this.view.cellAt(x, y), { clientX: x, clientY: y });
    }

    /**
     * The tower stamp for a client position: towerSize() cells a side, centred on the pointer
     * (a 3x3 stamp on the cell under it, a 2x2 one on the nearest cell corner), kept on the map;
     * null when the map is smaller than the stamp.
     */
    towerAt(clientX, clientY) {
        const n = this.app.towerSize(), w = this.view.width, h = this.view.height;
        if (n > w || n > h) return null;
        const [px, py] = this.view.positionAt(clientX, clientY);
        const x0 = Math.max(0, Math.min(w - n, Math.round(px - n / 2)));
        const y0 = Math.max(0, Math.min(h - n, Math.round(py - n / 2)));
        return { x0, y0, x1: x0 + n - 1, y1: y0 + n - 1 };
    }

    // ---- Orders ------------------------------------------------------------------------------------

    /**
     * A tap with the Select tool: with units selected (or a box selection of ours on its way to the
     * server), the right-click order; with nothing selected, nothing (a stray tap must not send
     * the whole crowd).
     */
    tap(e) {
        const pending = this.lastSelectBox && this.app.selectionPending();
        if (this.app.selection().count > 0 || pending) this.rightClick(e, true);
    }

    /**
     * Right click on a cell: orders the selection there (shift: adds the cell to this client's last
     * order of the same selection), or, with nothing selected, sends every unit there (shift: adds
     * the cell to the goals of the group holding every unit).
     */
    rightClick(e, tapped = false) {
        const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
        if (!this.view.contains(cx, cy)) return;
        if (this.view.costAt(cx, cy) === kCostWall) {
            this.app.log(`cannot send units onto a wall (${cx}, ${cy})`, 'info');
            this.app.toast(`cannot send units onto a wall (${cx}, ${cy}): ${tapped ? 'tap' : 'right-click'} an open cell`);
            return;
        }
        const shift = !tapped && (this.rightShift || e.shiftKey);
        const selection = this.app.selection();
        if (selection.count > 0 || tapped) {
            let goals = [[cx, cy]];
            if (shift && this.lastOrder && this.lastOrder.serial === selection.serial) {
                goals = this.appendGoal(this.lastOrder.goals, cx, cy);
                if (!goals) return;
            }
            this.lastOrder = { serial: selection.serial, goals };
            const formation = this.app.formation();
            this.app.send(formation ? { type: 'order', goals, formation } : { type: 'order', goals });
            return;
        }
        const formation = this.app.formation();
        if (formation) {  // everyone, in formation: an order of the whole map's units
            this.app.send({ type: 'order', goals: [[cx, cy]], select: [0, 0, this.view.width - 1, this.view.height - 1], formation });
            return;
        }
        const all = shift ? this.app.groups().find((g) => g.members > 0 && g.members === this.app.unitCount()) : null;
        if (all) {
            const goals = this.appendGoal(all.goals, cx, cy);
            if (!goals) return;
            this.app.setLocalGoals(all.id, goals);
            this.app.send({ type: 'set_goals', group: all.id, goals });
            return;
        }
        this.app.send({ type: 'set_goals', goals: [[cx, cy]] });
    }

    /** `goals` plus (cx, cy), or null (logged) when that would exceed the goal limit. */
    appendGoal(goals, cx, cy) {
        if (goals.some((g) => g[0] === cx && g[1] === cy)) return goals.map((g) => [...g]);
        const max = this.app.maxGoals();
        if (goals.length >= max) {
            this.app.log(`at most ${max} goals`, 'info');
            return null;
        }
        return [...goals.map((g) => [...g]), [cx, cy]];
    }

    // ---- Painting ----------------------------------------------------------------------------------

    /** Paints the stroke from the last painted cell to (cx, cy); `end` also paints the end cell. */
    paintTo(cx, cy, end) {
        const w = this.view.width, h = this.view.height;
        cx = Math.max(0, Math.min(w - 1, cx));
        cy = Math.max(0, Math.min(h - 1, cy));
        const radius = this.app.brush(), terrain = this.app.tool();
        const spacing = Math.max(1, Math.floor(radius * 0.8));
        const emit = (x, y) => {
            this.lastPaint = [x, y];
            this.paint.push({ type: 'paint', x, y, radius, terrain });
        };
        if (!this.lastPaint) {
            emit(cx, cy);
            return;
        }
        const [lx, ly] = this.lastPaint;
        if (lx === cx && ly === cy) return;
        for (const [x, y] of lineCells(lx, ly, cx, cy)) {
            const [px, py] = this.lastPaint;
            const far = Math.max(Math.abs(x - px), Math.abs(y - py)) >= spacing;
            if (far || (end && x === cx && y === cy)) emit(x, y);
        }
    }

    // ---- Goals -------------------------------------------------------------------------------------

    groupGoals(id) {
        const group = this.app.groups().find((g) => g.id === id);
        return group ? group.goals : null;
    }

    dragGoal(cx, cy) {
        const view = this.view;
        if (!view.contains(cx, cy) || view.costAt(cx, cy) === kCostWall) return;
        if (cx === this.goalCell[0] && cy === this.goalCell[1]) return;
        const current = this.groupGoals(this.goalGroup);
        if (!current || this.goalIndex >= current.length) return;
        const goals = current.map((g) => [...g]);
        // Moving onto another goal of the group would merge them: keep the marker where it is.
        if (goals.some((g, i) => i !== this.goalIndex && g[0] === cx && g[1] === cy)) return;
        this.goalMoved = true;
        this.goalCell = [cx, cy];
        goals[this.goalIndex] = [cx, cy];
        this.app.setLocalGoals(this.goalGroup, goals);
        this.flushGoals(false);
    }

    /** Sends the dragged group's local goals now, or at the end of the current throttle interval. */
    flushGoals(now) {
        const wait = this.goalSentAt + kGoalIntervalMs - performance.now();
        if (this.goalTimer) {
            if (!now) return; // a trailing send is already scheduled
            clearTimeout(this.goalTimer);
            this.goalTimer = 0;
        }
        if (now || wait <= 0) {
            this.goalSentAt = performance.now();
            const goals = this.groupGoals(this.goalGroup);
            if (goals) this.app.send({ type: 'set_goals', group: this.goalGroup, goals, ...this.kind(this.goalGroup) });
        } else {
            this.goalTimer = setTimeout(() => {
                this.goalTimer = 0;
                this.flushGoals(true);
            }, wait);
        }
    }

    /**
     * A goal dragged and dropped on a wall: the server moves it to the nearest open cell (`snap`)
     * and says where (`snapped`, shown as a note).
     */
    dropOnWall(cx, cy) {
        clearTimeout(this.goalTimer);
        this.goalTimer = 0;
        const current = this.groupGoals(this.goalGroup);
        if (!current || this.goalIndex >= current.length) return;
        const goals = current.map((g) => [...g]);
        goals[this.goalIndex] = [cx, cy];
        this.goalSentAt = performance.now();
        this.app.send({ type: 'set_goals', group: this.goalGroup, goals, ...this.kind(this.goalGroup), snap: true });
    }

    /** Shift-click: adds a goal to the group whose field is on screen (on a wall: snapped to the nearest open cell). */
    addGoal(cx, cy) {
        const wall = this.view.costAt(cx, cy) === kCostWall;
        const group = this.app.shownGroup();
        const goals = this.groupGoals(group);
        if (!goals) return;
        if (goals.some((g) => g[0] === cx && g[1] === cy)) return;
        const next = this.appendGoal(goals, cx, cy);
        if (!next) return;
        if (!wall) this.app.setLocalGoals(group, next);
        this.app.send({ type: 'set_goals', group, goals: next, ...this.kind(group), ...(wall ? { snap: true } : {}) });
    }

    removeGoal(group, index) {
        const goals = this.groupGoals(group);
        if (!goals) return;
        if (goals.length <= 1) {
            // never remove a group's last goal (or danger): give the units a new order instead
            if (this.flees(group)) this.app.log('the last danger stays: place another or right-click an order', 'info');
            return;
        }
        const next = goals.filter((_, i) => i !== index).map((g) => [...g]);
        this.app.setLocalGoals(group, next);
        this.app.send({ type: 'set_goals', group, goals: next, ...this.kind(group) });
    }

    /** What a group's goals are, as set_goals says it: {flee} (dangers, or goals) or {exit: true} (exits). */
    kind(group) {
        const g = this.app.groups().find((x) => x.id === group);
        return g && g.exit ? { exit: true } : { flee: !!(g && g.flee) };
    }

    /** True when the group flees (its goals are dangers). */
    flees(group) {
        const g = this.app.groups().find((x) => x.id === group);
        return !!(g && g.flee);
    }

    /**
     * Danger tool click on a cell (a click on a danger marker removes it, as for goals): the selected
     * units (or, with nothing selected, the group shown, else everyone) flee from that cell and
     * the dangers their group already flees from.
     */
    addDanger(cx, cy) {
        if (this.view.costAt(cx, cy) === kCostWall) {
            this.app.log(`cannot put a danger on a wall (${cx}, ${cy})`, 'info');
            return;
        }
        const selection = this.app.selection();
        const groupId = selection.count > 0 ? selection.group : this.app.shownGroup();
        const group = this.app.groups().find((g) => g.id === groupId);
        const current = group && group.flee ? group.goals.map((g) => [...g]) : [];
        const next = this.appendGoal(current, cx, cy);
        if (!next) return;
        if (selection.count > 0) {
            this.app.send({ type: 'order', goals: next, flee: true });
        } else if (group && group.flee) {
            this.app.setLocalGoals(group.id, next);
            this.app.send({ type: 'set_goals', group: group.id, goals: next, flee: true });
        } else {
            this.app.send({ type: 'set_goals', goals: next, flee: true });
        }
    }
}

export function isTyping(e) {
    const t = e.target;
    return t && (t.tagName === 'INPUT' && t.type !== 'checkbox' && t.type !== 'range' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
}

/** Sends a message at most once per interval while a slider moves, and once more at the end. */
export function throttled(fn, intervalMs = kParamsIntervalMs) {
    let last = 0, timer = 0, pending = null;
    return (value) => {
        pending = value;
        const wait = last + intervalMs - performance.now();
        if (wait <= 0) {
            last = performance.now();
            fn(pending);
        } else if (!timer) {
            timer = setTimeout(() => {
                timer = 0;
                last = performance.now();
                fn(pending);
            }, wait);
        }
    };
}
