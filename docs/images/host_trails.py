# Trails of units moved by a host with tide.Steering (docs/steering.md): writes host_<mode>_<map>.png.
# Usage: PYTHONPATH=build/python python3 docs/images/host_trails.py MAP steer|sample|blend
import sys, zlib, struct, numpy as np
import os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'build', 'python'))
import tide

def png(path, img):
    h, w, _ = img.shape
    raw = b''.join(b'\x00' + img[y].tobytes() for y in range(h))
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                           chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b''))

name = sys.argv[1]
mode = sys.argv[2]  # steer | sample | blend
m = tide.Map.builtin(name)
goals = m.goals
f = tide.build_field(m, goals)
s = tide.Steering(f, m, radius=0.25)
S = 8
costs = m.costs
H, W = costs.shape
img = np.zeros((H * S, W * S, 3), np.uint8)
base = np.where(costs == 255, 40, np.where(costs == 1, 235, np.clip(235 - costs.astype(int) * 12, 120, 235))).astype(np.uint8)
img[:] = np.repeat(np.repeat(base, S, 0), S, 1)[:, :, None]
rng = np.random.default_rng(3)
pts = []
while len(pts) < 80:
    x, y = rng.uniform(0, W), rng.uniform(0, H)
    if f.directions[int(y), int(x)] < 8:
        pts.append((x, y))
xs = np.array([p[0] for p in pts], np.float32); ys = np.array([p[1] for p in pts], np.float32)
into = 0
for step in range(3000):
    if mode == 'steer':
        d = s.steer_many(xs, ys)
    elif mode == 'sample':
        d = f.sample_many(xs, ys)
    else:
        d = np.array([f.blend(float(x), float(y)) for x, y in zip(xs, ys)], np.float32)
    nx = xs + d[:, 0] * 0.05; ny = ys + d[:, 1] * 0.05
    for i in range(len(xs)):
        px, py = int(nx[i] * S), int(ny[i] * S)
        if 0 <= px < W * S and 0 <= py < H * S:
            img[py, px] = (200, 30, 30) if costs[int(ny[i]), int(nx[i])] != 255 else (0, 0, 255)
            if costs[int(ny[i]), int(nx[i])] == 255: into += 1
    xs, ys = nx.astype(np.float32), ny.astype(np.float32)
for g in goals:
    img[g[1] * S:(g[1] + 1) * S, g[0] * S:(g[0] + 1) * S] = (30, 160, 30)
png(f'host_{mode}_{name}.png', img)
print(name, mode, 'points inside walls:', into)
