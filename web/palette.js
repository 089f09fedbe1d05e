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
    notPlanned: rgb(150, 150, 150), // heat map of hierarchical maps: no field there yet
    white: rgb(255, 255, 255),
    arrow: rgb(18, 22, 70),
    goal: rgb(220, 30, 30),
    selection: rgb(255, 255, 255), // ring around selected units ...
    selectionEdge: rgb(28, 28, 32), // ... and its outer edge
};

/** Group colours, picked by `id % 8` (group 1, the first group of a map, is red). */
export const groupColours = [
    rgb(0, 150, 150), // teal
    rgb(220, 30, 30), // red
    rgb(35, 85, 215), // blue
    rgb(140, 60, 200), // violet
    rgb(235, 175, 0), // gold
    rgb(25, 160, 70), // green
    rgb(235, 85, 170), // pink
    rgb(70, 175, 245), // sky
];

/** Colour of a group id (the agents frame's group byte works too: 256 is a multiple of 8). */
export function groupColour(id) {
    return groupColours[id % groupColours.length];
}

// Units by state (the agents frame's state byte, format 3): moving, arrived, no path, queued,
// stuck. A unit keeps its group's colour while it moves, waits or has arrived: moving units are
// filled with it, queued ones (waiting behind others, by design) with a dark shade of it, arrived
// ones with a pale tint of it (rimmed in the colour); no path is grey and stuck (wedged: no progress
// with room ahead) orange whatever the group.
export const unitStateNames = ['moving', 'arrived', 'no path', 'queued', 'stuck'];
export const kUnitStates = unitStateNames.length;
export const kUnitNoPath = rgb(120, 120, 128), kUnitStuck = rgb(235, 120, 20);

/** Fill and rim of a unit of group colour `c` in `state` (0..4; anything else is drawn as moving). */
export function unitColour(c, state) {
    switch (state) {
        case 1: return { fill: mix(c, colours.white, 0.6), rim: c };
        case 2: return { fill: kUnitNoPath, rim: mix(kUnitNoPath, colours.ink, 0.55) };
        case 3: return { fill: mix(c, colours.ink, 0.5), rim: mix(c, colours.ink, 0.8) };
        case 4: return { fill: kUnitStuck, rim: mix(kUnitStuck, colours.ink, 0.55) };
        default: return { fill: c, rim: mix(c, colours.ink, 0.55) };
    }
}

/** Fill and rim lookup tables indexed by unitColourKey(group byte, state). */
export function unitColourTables() {
    const fill = new Uint32Array(64), rim = new Uint32Array(64);
    for (let g = 0; g < 8; g++) {
        for (let s = 0; s < 8; s++) {
            const u = unitColour(groupColours[g], s);
            fill[unitColourKey(g, s)] = u.fill;
            rim[unitColourKey(g, s)] = u.rim;
        }
    }
    return { fill, rim };
}

/** Index into unitColourTables() of a unit of group byte `group` in state `state`. */
export function unitColourKey(group, state) {
    return ((group & 7) << 3) | (state & 7);
}

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
