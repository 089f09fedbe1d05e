// Helpers shared by the end-to-end scripts (run.mjs, hierarchy.mjs, flee.mjs, first_run.mjs): checks, the server,
// the browser scripts' harness (runBrowserScript), polling,
// canvas pixels.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const kChromium = '/usr/bin/chromium';
export const kChromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];

export class CheckFailed extends Error {}

export function check(condition, message) {
    if (!condition) throw new CheckFailed(message);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stops a `tide serve` child started by startServer(): SIGTERM, then SIGKILL after 2 s. */
export async function stopServer(server) {
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGTERM');
    const exited = await Promise.race([new Promise((r) => server.once('exit', () => r(true))), sleep(2000).then(() => false)]);
    if (!exited) server.kill('SIGKILL');
}

/**
 * Starts `tide serve` (opts.tide, opts.webRoot; `extra`: more arguments) and resolves with its base
 * URL once it prints its listening line (within `ms`).
 */
export function startServer(opts, port, output, extra = [], ms = 10_000) {
    const args = ['serve', '--port', String(port), ...extra];
    if (opts.webRoot) args.push('--web-root', opts.webRoot);
    const child = spawn(opts.tide, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new CheckFailed(`tide serve did not report listening within ${ms / 1000} s:\n${output.join('')}`)), ms);
        const onData = (chunk) => {
            output.push(chunk.toString());
            const m = /listening on (http:\/\/\S+?)\/?\s/.exec(output.join(''));
            if (m) {
                clearTimeout(timer);
                resolve(`${m[1]}/`);
            }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code, signal) => {
            clearTimeout(timer);
            reject(new CheckFailed(`tide serve exited (${code ?? signal}) before listening:\n${output.join('')}`));
        });
        child.once('error', (err) => reject(new CheckFailed(`cannot start ${opts.tide}: ${err.message}`)));
    });
    return { child, url };
}

/**
 * A plain static file server over `root` (no tide serve: the static demo of `make web`), on a free
 * loopback port. Resolves with {server, url}. GET only; files only, inside `root`.
 */
export function startStaticServer(root) {
    const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
        '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };
    const base = path.resolve(root);
    const server = createServer(async (req, res) => {
        const route = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
        const file = path.resolve(base, `.${route === '/' ? '/index.html' : route}`);
        if (req.method !== 'GET' || !file.startsWith(base + path.sep)) {
            res.writeHead(404).end();
            return;
        }
        try {
            const data = await readFile(file);
            res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' }).end(data);
        } catch {
            res.writeHead(404).end();
        }
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () =>
        resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

export async function getJson(base, route) {
    const response = await fetch(new URL(route, base));
    check(response.ok, `GET ${route} answered ${response.status}`);
    return response.json();
}

/** Polls `probe` (async, returns a truthy value when done) every 200 ms until `ms` passes. */
export async function waitFor(probe, ms) {
    const end = performance.now() + ms;
    let last;
    for (;;) {
        last = await probe();
        if (last && last.done) return last;
        if (performance.now() > end) return last;
        await sleep(200);
    }
}

/** Waits until the page has drawn `n` more animation frames (it redraws on every one). */
export async function nextFrames(page, n = 2) {
    await page.evaluate((n) => new Promise((resolve) => {
        const tick = () => (--n <= 0 ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
    }), n);
}

/** A left-button drag on the map from one position to another (cell units), in `steps` moves. */
export async function dragPositions(page, from, to, steps = 10) {
    const a = await page.evaluate(([x, y]) => window.tide.positionToClient(x, y), from);
    const b = await page.evaluate(([x, y]) => window.tide.positionToClient(x, y), to);
    await page.mouse.move(a[0], a[1]);
    await page.mouse.down();
    await page.mouse.move(b[0], b[1], { steps });
    await page.mouse.up();
}

/** Counts canvas pixels of each named colour (exact match). */
export async function countColours(page, named) {
    return page.evaluate((named) => {
        const canvas = document.getElementById('canvas');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        const counts = Object.fromEntries(Object.keys(named).map((k) => [k, 0]));
        const entries = Object.entries(named).map(([k, [r, g, b]]) => [k, r | (g << 8) | (b << 16)]);
        for (let i = 0; i < data.length; i += 4) {
            const v = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
            for (const [k, c] of entries) if (v === c) counts[k]++;
        }
        return counts;
    }, named);
}

/**
 * For the opt-in measurement scripts: starts `tide` serve with `serverArgs`, opens the page at
 * 1280x800 and returns what `body({ page, base })` returns; always stops the browser and the server.
 */
export async function withDemoPage(tide, serverArgs, body, serverMs = 60_000) {
    const { child, url } = startServer({ tide }, 0, [], serverArgs, serverMs);
    let browser;
    try {
        const base = await url;
        browser = await chromium.launch({ executablePath: kChromium, args: kChromiumArgs });
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(base);
        return await body({ page, base });
    } finally {
        if (browser) await browser.close();
        await stopServer(child);
    }
}

/**
 * The harness of a browser script: starts `tide serve` (opts.tide, opts.webRoot; `serverArgs`,
 * listening within `serverMs`), opens headless Chromium at 1280x800 on a throw-away profile
 * (`contextOptions` added), collects the page's errors, and runs `body({ page, context, base, out,
 * serverOutput })`; then the page must have reported no errors. On a failure it prints the reason,
 * saves failure.png and prints the page errors and the server output. A run past `deadlineMs`
 * fails. Always cleans up, prints `summary()` and exits the process (0 or 1).
 */
export async function runBrowserScript({ tag, opts, deadlineMs, serverArgs = [], serverMs = 10_000,
    contextOptions = {}, pass, summary, body, staticRoot = null }) {
    const out = path.resolve(opts.out);
    mkdirSync(out, { recursive: true });
    const userData = mkdtempSync(path.join(tmpdir(), `tide-${tag}-`));
    const serverOutput = [], pageErrors = [];
    let server = null, context = null, failed = false, staticServer = null;
    const deadline = setTimeout(() => {
        console.log(`${tag}: FAIL the run took longer than ${deadlineMs / 1000} s`);
        cleanup().finally(() => process.exit(1));
    }, deadlineMs);

    async function cleanup() {
        if (context) await context.close().catch(() => {});
        context = null;
        await stopServer(server);
        if (staticServer) await new Promise((resolve) => staticServer.close(resolve));
        staticServer = null;
        rmSync(userData, { recursive: true, force: true });
    }
    for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup().finally(() => process.exit(130)));

    try {
        let base;
        if (staticRoot) {  // the static demo: any file server, no tide serve
            const started = await startStaticServer(staticRoot);
            staticServer = started.server;
            base = started.url;
        } else {
            const started = startServer(opts, 0, serverOutput, serverArgs, serverMs);
            server = started.child;
            base = await started.url;
        }
        context = await chromium.launchPersistentContext(userData, {
            executablePath: kChromium, headless: true, args: kChromiumArgs, viewport: { width: 1280, height: 800 },
            ...contextOptions,
        });
        const page = context.pages()[0] || (await context.newPage());
        page.on('pageerror', (err) => pageErrors.push(err.message));
        page.on('console', (msg) => {
            if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
        });
        await body({ page, context, base, out, serverOutput });
        check(pageErrors.length === 0, `the page reported errors:\n  ${pageErrors.join('\n  ')}`);
        pass('no script errors on the page');
    } catch (err) {
        failed = true;
        console.log(`${tag}: FAIL ${err instanceof CheckFailed ? err.message : err.stack || err}`);
        const page = context && context.pages()[0];
        if (page) await page.screenshot({ path: path.join(out, 'failure.png') }).catch(() => {});
        if (pageErrors.length) console.log(`${tag}: page errors:\n  ${pageErrors.join('\n  ')}`);
        if (serverOutput.length) console.log(`${tag}: server output:\n${serverOutput.join('').trimEnd()}`);
    } finally {
        clearTimeout(deadline);
        await cleanup();
    }
    console.log(`${tag}: ${failed ? 'FAILED' : 'ok'}: ${summary()}; screenshots in ${out}`);
    process.exit(failed ? 1 : 0);
}
