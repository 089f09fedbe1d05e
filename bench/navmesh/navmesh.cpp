// The Recast/Detour bake and queries of navmesh.hpp.

#include "navmesh.hpp"

#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/DetourNavMeshQuery.h>
#include <recastnavigation/Recast.h>

#include <chrono>
#include <cmath>
#include <string>

namespace tide::navmesh {
namespace {

constexpr int kBorder = 3;        // voxels round a tile (Recast: walkable radius + 3) so tiles join
constexpr int kVertsPerPoly = 6;  // DT_VERTS_PER_POLYGON
constexpr int kMaxNodes = 65535;  // the query's node pool (dtNodeIndex is 16 bits)
constexpr int kMaxPath = 8192;    // polygons of one path

// Recast's owners, freed in any case.
struct Heightfield {
    rcHeightfield* p = rcAllocHeightfield();
    ~Heightfield() { rcFreeHeightField(p); }
};
struct Compact {
    rcCompactHeightfield* p = rcAllocCompactHeightfield();
    ~Compact() { rcFreeCompactHeightfield(p); }
};
struct Contours {
    rcContourSet* p = rcAllocContourSet();
    ~Contours() { rcFreeContourSet(p); }
};
struct PolyMesh {
    rcPolyMesh* p = rcAllocPolyMesh();
    ~PolyMesh() { rcFreePolyMesh(p); }
};

int bits_for(int n) {
    int b = 0;
    while ((1 << b) < n) ++b;
    return b;
}

}  // namespace

struct NavMesh::Impl {
    dtNavMesh* mesh = dtAllocNavMesh();
    dtNavMeshQuery* query = dtAllocNavMeshQuery();
    dtQueryFilter filter;
    std::vector<dtPolyRef> polys = std::vector<dtPolyRef>(kMaxPath);
    std::vector<float> straight = std::vector<float>(3 * kMaxPath);
    ~Impl() {
        dtFreeNavMeshQuery(query);
        dtFreeNavMesh(mesh);
    }
};

NavMesh::NavMesh(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NavMesh::~NavMesh() = default;

Result<std::unique_ptr<NavMesh>> NavMesh::bake(const CostField& cost, int tile) {
    const auto t0 = std::chrono::steady_clock::now();
    const int W = cost.width(), H = cost.height();
    const int tiles_x = (W + tile - 1) / tile, tiles_y = (H + tile - 1) / tile;
    auto impl = std::make_unique<Impl>();
    dtNavMeshParams np{};
    np.orig[0] = np.orig[1] = np.orig[2] = 0.0f;
    np.tileWidth = static_cast<float>(tile);
    np.tileHeight = static_cast<float>(tile);
    np.maxTiles = tiles_x * tiles_y;
    const int tile_bits = bits_for(np.maxTiles);
    if (tile_bits > 14) return Error{"navmesh: " + std::to_string(np.maxTiles) + " tiles: use bigger tiles"};
    np.maxPolys = 1 << (22 - tile_bits);
    if (dtStatusFailed(impl->mesh->init(&np))) return Error{"navmesh: dtNavMesh::init failed"};
    rcContext ctx(false);
    BakeStats stats;
    for (int ty = 0; ty < tiles_y; ++ty) {
        for (int tx = 0; tx < tiles_x; ++tx) {
            const int x0 = tx * tile - kBorder, y0 = ty * tile - kBorder, side = tile + 2 * kBorder;
            const float bmin[3] = {static_cast<float>(x0), 0.0f, static_cast<float>(y0)};
            const float bmax[3] = {static_cast<float>(x0 + side), 4.0f, static_cast<float>(y0 + side)};
            const std::string where = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
            Heightfield hf;
            if (!rcCreateHeightfield(&ctx, *hf.p, side, side, bmin, bmax, 1.0f, 1.0f)) {
                return Error{"navmesh: " + where + ": no memory for its heightfield"};
            }
            bool any = false;
            for (int ly = 0; ly < side; ++ly) {
                for (int lx = 0; lx < side; ++lx) {
                    const int x = x0 + lx, y = y0 + ly;
                    if (!cost.contains(x, y) || !cost.passable(x, y)) continue;
                    rcAddSpan(&ctx, *hf.p, lx, ly, 0, 1, RC_WALKABLE_AREA, 1);
                    any = true;
                }
            }
            if (!any) continue;
            Compact chf;
            Contours cset;
            PolyMesh pmesh;
            if (!rcBuildCompactHeightfield(&ctx, 2, 0, *hf.p, *chf.p) || !rcBuildDistanceField(&ctx, *chf.p) ||
                !rcBuildRegionsMonotone(&ctx, *chf.p, kBorder, 0, 0) ||
                !rcBuildContours(&ctx, *chf.p, 0.0f, 0, *cset.p, RC_CONTOUR_TESS_WALL_EDGES) ||
                !rcBuildPolyMesh(&ctx, *cset.p, kVertsPerPoly, *pmesh.p)) {
                return Error{"navmesh: Recast failed on " + where};
            }
            if (pmesh.p->npolys == 0) continue;
            if (pmesh.p->nverts >= 0xffff) return Error{"navmesh: " + where + " has too many vertices"};
            std::vector<unsigned short> flags(static_cast<std::size_t>(pmesh.p->npolys), 1);
            for (int i = 0; i < pmesh.p->npolys; ++i) pmesh.p->areas[i] = 0;
            dtNavMeshCreateParams p{};
            p.verts = pmesh.p->verts;
            p.vertCount = pmesh.p->nverts;
            p.polys = pmesh.p->polys;
            p.polyAreas = pmesh.p->areas;
            p.polyFlags = flags.data();
            p.polyCount = pmesh.p->npolys;
            p.nvp = pmesh.p->nvp;
            // No detail mesh: the floor is flat, Detour triangulates the polygons itself.
            p.tileX = tx;
            p.tileY = ty;
            p.tileLayer = 0;
            rcVcopy(p.bmin, pmesh.p->bmin);
            rcVcopy(p.bmax, pmesh.p->bmax);
            p.walkableHeight = 2.0f;
            p.walkableRadius = 0.0f;
            p.walkableClimb = 0.0f;
            p.cs = 1.0f;
            p.ch = 1.0f;
            p.buildBvTree = true;
            unsigned char* data = nullptr;
            int size = 0;
            if (!dtCreateNavMeshData(&p, &data, &size)) return Error{"navmesh: Detour refused " + where};
            if (dtStatusFailed(impl->mesh->addTile(data, size, DT_TILE_FREE_DATA, 0, nullptr))) {
                dtFree(data);
                return Error{"navmesh: Detour could not add " + where};
            }
            ++stats.tiles;
            stats.polys += pmesh.p->npolys;
            stats.verts += pmesh.p->nverts;
            stats.bytes += static_cast<std::size_t>(size);
        }
    }
    if (dtStatusFailed(impl->query->init(impl->mesh, kMaxNodes))) return Error{"navmesh: dtNavMeshQuery::init failed"};
    stats.bake_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::unique_ptr<NavMesh> out(new NavMesh(std::move(impl)));
    out->stats_ = stats;
    return out;
}

PathAnswer NavMesh::path(Vec2 a, Vec2 b, bool corners) {
    PathAnswer out;
    Impl& m = *impl_;
    const float ext[3] = {0.5f, 2.0f, 0.5f};
    const float pa[3] = {a.x, 0.0f, a.y}, pb[3] = {b.x, 0.0f, b.y};
    dtPolyRef ra = 0, rb = 0;
    float na[3], nb[3];
    if (dtStatusFailed(m.query->findNearestPoly(pa, ext, &m.filter, &ra, na)) || !ra) return out;
    if (dtStatusFailed(m.query->findNearestPoly(pb, ext, &m.filter, &rb, nb)) || !rb) return out;
    int n = 0;
    const dtStatus st = m.query->findPath(ra, rb, na, nb, &m.filter, m.polys.data(), &n, kMaxPath);
    if (dtStatusFailed(st) || n == 0 || m.polys[static_cast<std::size_t>(n - 1)] != rb) return out;
    int k = 0;
    if (dtStatusFailed(m.query->findStraightPath(na, nb, m.polys.data(), n, m.straight.data(), nullptr, nullptr, &k,
                                                 kMaxPath))) {
        return out;
    }
    out.found = true;
    for (int i = 0; i < k; ++i) {
        const float* p = &m.straight[static_cast<std::size_t>(3 * i)];
        if (i > 0) {
            const float* q = p - 3;
            out.length += std::sqrt(static_cast<double>((p[0] - q[0]) * (p[0] - q[0]) + (p[2] - q[2]) * (p[2] - q[2])));
        }
        if (corners) out.corners.push_back({p[0], p[2]});
    }
    return out;
}

}  // namespace tide::navmesh
