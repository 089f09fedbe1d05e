// Input: the canvas (paint, goals, zoom, pan) and the control panel. Everything the user does ends
// up as a client message through `send` (docs/protocol.md) or as a view change.

import { kCostWall } from './palette.js';

const kPaintPerSecond = 150; // well under the server's 300 paint messages per second
const kPaintBurst = 20;
const kGoalIntervalMs = 33; // goal drags: about 30 set_goals per second at most
const kParamsIntervalMs = 100;
const kMaxGoals = 16;

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
 * Mouse and keyboard on the canvas. `app` provides: view, send(message), tool(), brush(),
 * goals() / setLocalGoals(goals), dragging flag readers.
 */
export class CanvasInput {
    constructor(canvas, view, app) {
        this.canvas = canvas;
        this.view = view;
        this.app = app;
        this.paint = new PaintQueue((m) => app.send(m));
        this.mode = null; // 'paint' | 'goal' | 'pan' | null
        this.space = false;
        this.goalTimer = 0;
        this.goalSentAt = 0;

        canvas.addEventListener('pointerdown', (e) => this.down(e));
        canvas.addEventListener('pointermove', (e) => this.move(e));
        canvas.addEventListener('pointerup', (e) => this.up(e));
        canvas.addEventListener('pointercancel', (e) => this.up(e));
        canvas.addEventListener('pointerleave', () => {
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
        if (this.mode) return;
        const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
        this.canvas.setPointerCapture(e.pointerId);
        if (e.button === 1 || e.button === 2 || (e.button === 0 && this.space)) {
            this.mode = 'pan';
            this.panFrom = [e.clientX, e.clientY];
            this.canvas.classList.add('panning');
            e.preventDefault();
            return;
        }
        if (e.button !== 0 || !this.view.contains(cx, cy)) return;
        const goal = this.view.goalAt(e.clientX, e.clientY);
        if (goal >= 0) {
            this.mode = 'goal';
            this.goalIndex = goal;
            this.goalMoved = false;
            this.goalCell = [...this.app.goals()[goal]];
            this.app.setDragging(true);
            this.canvas.classList.add('dragging');
            return;
        }
        if (e.shiftKey) {
            this.addGoal(cx, cy);
            return;
        }
        this.mode = 'paint';
        this.lastPaint = null;
        this.paintTo(cx, cy, true);
    }

    move(e) {
        const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
        if (this.mode === 'pan') {
            this.view.panBy(e.clientX - this.panFrom[0], e.clientY - this.panFrom[1]);
            this.panFrom = [e.clientX, e.clientY];
            return;
        }
        if (this.mode === 'goal') {
            this.dragGoal(cx, cy);
        } else if (this.mode === 'paint') {
            this.paintTo(cx, cy, false);
        }
        this.setHover([cx, cy], e);
    }

    up(e) {
        if (this.mode === 'pan') {
            this.canvas.classList.remove('panning');
        } else if (this.mode === 'goal') {
            this.canvas.classList.remove('dragging');
            if (!this.goalMoved) {
                this.removeGoal(this.goalIndex);
            } else {
                this.flushGoals(true);
            }
            this.app.setDragging(false);
        } else if (this.mode === 'paint') {
            const [cx, cy] = this.view.cellAt(e.clientX, e.clientY);
            this.paintTo(cx, cy, true);
        }
        this.mode = null;
        if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    }

    setHover(cell, e) {
        const view = this.view;
        if (!cell || !view.contains(cell[0], cell[1])) {
            view.brush = null;
            this.app.hover(null);
            return;
        }
        const overGoal = e && !this.mode && view.goalAt(e.clientX, e.clientY) >= 0;
        this.canvas.classList.toggle('over-goal', !!overGoal);
        view.brush = overGoal || this.mode === 'goal' ? null : { x: cell[0], y: cell[1], radius: this.app.brush() };
        this.app.hover(cell);
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

    dragGoal(cx, cy) {
        const view = this.view;
        if (!view.contains(cx, cy) || view.costAt(cx, cy) === kCostWall) return;
        if (cx === this.goalCell[0] && cy === this.goalCell[1]) return;
        const goals = this.app.goals().map((g) => [...g]);
        // Moving onto another goal would merge them: keep the marker where it is.
        if (goals.some((g, i) => i !== this.goalIndex && g[0] === cx && g[1] === cy)) return;
        this.goalMoved = true;
        this.goalCell = [cx, cy];
        goals[this.goalIndex] = [cx, cy];
        this.app.setLocalGoals(goals);
        this.flushGoals(false);
    }

    /** Sends the local goals now, or at the end of the current throttle interval. */
    flushGoals(now) {
        const wait = this.goalSentAt + kGoalIntervalMs - performance.now();
        if (this.goalTimer) {
            if (!now) return; // a trailing send is already scheduled
            clearTimeout(this.goalTimer);
            this.goalTimer = 0;
        }
        if (now || wait <= 0) {
            this.goalSentAt = performance.now();
            this.app.send({ type: 'set_goals', goals: this.app.goals() });
        } else {
            this.goalTimer = setTimeout(() => {
                this.goalTimer = 0;
                this.flushGoals(true);
            }, wait);
        }
    }

    addGoal(cx, cy) {
        const goals = this.app.goals();
        if (this.view.costAt(cx, cy) === kCostWall) {
            this.app.log(`cannot put a goal on a wall (${cx}, ${cy})`, 'info');
            return;
        }
        if (goals.length >= kMaxGoals) {
            this.app.log(`at most ${kMaxGoals} goals`, 'info');
            return;
        }
        if (goals.some((g) => g[0] === cx && g[1] === cy)) return;
        const next = [...goals.map((g) => [...g]), [cx, cy]];
        this.app.setLocalGoals(next);
        this.app.send({ type: 'set_goals', goals: next });
    }

    removeGoal(index) {
        const goals = this.app.goals();
        if (goals.length <= 1) return; // never remove the last goal
        const next = goals.filter((_, i) => i !== index).map((g) => [...g]);
        this.app.setLocalGoals(next);
        this.app.send({ type: 'set_goals', goals: next });
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
