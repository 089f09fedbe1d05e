// Colours shared by the page, matching apps/tide/render.cpp (the PNG figures) so the demo and the
// figures read the same. Pixels are packed for a little-endian Uint32Array over ImageData bytes:
// 0xAABBGGRR.

/** Packs an opaque colour for the Uint32 pixel views. */
export function rgb(r, g, b) {
    return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** Linear mix of two packed colours, t in 0..1 (0 gives a). */
export function mix(a, b, t) {
    const ar = a & 255, ag = (a >>> 8) & 255, ab = (a >>> 16) & 255;
    const br = b & 255, bg = (b >>> 8) & 255, bb = (b >>> 16) & 255;
    return rgb(Math.round(ar + (br - ar) * t), Math.round(ag + (bg - ag) * t), Math.round(ab + (bb - ab) * t));
}

/** CSS string of a packed colour. */
export function css(c) {
    return `rgb(${c & 255},${(c >>> 8) & 255},${(c >>> 16) & 255})`;
}

export const kCostPlain = 1, kCostForest = 3, kCostSwamp = 6, kCostWall = 255;

export const colours = {
    background: rgb(246, 246, 242), // page, as the PNG background
    outside: rgb(226, 226, 220),    // canvas area beyond the map
    ink: rgb(28, 28, 32),
    plain: rgb(222, 226, 189),
    forest: rgb(46, 112, 58),
    swamp: rgb(130, 112, 58),
    wall: rgb(34, 38, 48),
    heatWall: rgb(22, 22, 26),
    hatchA: rgb(225, 40, 200), // unreachable: magenta stripes ...
    hatchB: rgb(250, 205, 242), // ... on pale pink
    white: rgb(255, 255, 255),
    arrow: rgb(18, 22, 70),
    goal: rgb(220, 30, 30),
};

// Units by state (the agents frame's state byte): moving, arrived, no path, stuck. Moving and arrived
// are the colours of `tide sim`'s GIF.
export const unitColours = [rgb(30, 80, 200), rgb(20, 150, 60), rgb(120, 120, 128), rgb(235, 120, 20)];
export const unitRims = unitColours.map((c) => mix(c, colours.ink, 0.55));
export const unitStateNames = ['moving', 'arrived', 'no path', 'stuck'];

/** Colour of a terrain cost, as render::terrain_colour (grey ramp for costs outside the named classes). */
export function terrainColour(cost) {
    switch (cost) {
        case kCostPlain: return colours.plain;
        case kCostForest: return colours.forest;
        case kCostSwamp: return colours.swamp;
        case kCostWall: return colours.wall;
        default: {
            const v = Math.round(212 - (150 * Math.log(cost)) / Math.log(254));
            return rgb(v, v, v);
        }
    }
}

const kViridis = [[68, 1, 84], [71, 44, 122], [59, 82, 139], [44, 114, 142], [33, 145, 140],
    [40, 174, 128], [94, 201, 98], [170, 220, 50], [253, 231, 37]];

/** Viridis at t in 0..1, nine stops interpolated linearly (as render.cpp). */
export function viridis(t) {
    if (!(t > 0)) t = 0;
    t = Math.min(t, 1) * (kViridis.length - 1);
    const i = Math.min(Math.floor(t), kViridis.length - 2);
    const f = t - i, a = kViridis[i], b = kViridis[i + 1];
    return rgb(Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f),
        Math.round(a[2] + (b[2] - a[2]) * f));
}
