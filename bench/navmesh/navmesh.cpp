// The Recast/Detour bake, queries and crowd of navmesh.hpp.

#include "navmesh.hpp"

#include "timing.hpp"  // bench::ms_since

#include <recastnavigation/DetourCommon.h>
#include <recastnavigation/DetourCrowd.h>
#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/DetourNavMeshQuery.h>
#include <recastnavigation/Recast.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>

namespace tide::navmesh {
namespace {

constexpr int kBorder = 3;        // voxels round a tile (Recast: walkable radius + 3) so tiles join
constexpr int kVertsPerPoly = 6;  // DT_VERTS_PER_POLYGON
constexpr int kMaxNodes = 65535;  // the query's node pool (dtNodeIndex is 16 bits)
constexpr int kMaxPath = 8192;    // polygons of one path
constexpr float kFloor = 1.0f;    // height of the floor polygons (the top of a one-voxel span)

// Recast's owners, freed in any case: one template for its alloc/free pairs.
template <class T, T* (*Alloc)(), void (*Free)(T*)>
struct Owned {
    T* p = Alloc();
    Owned() = default;
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { Free(p); }
};
using Heightfield = Owned<rcHeightfield, rcAllocHeightfield, rcFreeHeightField>;
using Compact = Owned<rcCompactHeightfield, rcAllocCompactHeightfield, rcFreeCompactHeightfield>;
using Contours = Owned<rcContourSet, rcAllocContourSet, rcFreeContourSet>;
using PolyMesh = Owned<rcPolyMesh, rcAllocPolyMesh, rcFreePolyMesh>;

int bits_for(int n) {
    int b = 0;
    while ((1 << b) < n) ++b;
    return b;
}

// Recast's log: its warnings and errors, kept (Recast drops what it cannot outline and says so here).
struct Log : rcContext {
    std::vector<std::string> messages;
    Log() : rcContext(true) {}
    void doLog(const rcLogCategory category, const char* msg, const int len) override {
        if (category >= RC_LOG_WARNING) messages.emplace_back(msg, static_cast<std::size_t>(len));
    }
};

}  // namespace

struct NavMesh::Impl {
    dtNavMesh* mesh = dtAllocNavMesh();
    dtNavMeshQuery* query = dtAllocNavMeshQuery();
    dtQueryFilter filter;
    int tile = 128;
    BakeOptions::Partition partition = BakeOptions::Partition::watershed;
    int voxels = 1;
    std::array<unsigned char, 256> area_of_cost{};  // Recast area of each cell cost (0: wall)
    std::vector<dtPolyRef> polys = std::vector<dtPolyRef>(kMaxPath);
    std::vector<float> straight = std::vector<float>(3 * kMaxPath);
    ~Impl() {
        dtFreeNavMeshQuery(query);
        dtFreeNavMesh(mesh);
    }

    // Bakes tile (tx, ty) of `cost` into `*data` (Detour's, or null when the tile has no floor).
    Result<void> bake_tile(const CostField& cost, int tx, int ty, unsigned char** data, int* size, BakeStats& stats) {
        *data = nullptr;
        *size = 0;
        Log ctx;
        // k voxels per cell on each axis; the tile's heightfield reaches kBorder cells past its edges.
        const int k = voxels, x0 = tx * tile - kBorder, y0 = ty * tile - kBorder, side = (tile + 2 * kBorder) * k;
        const float cs = 1.0f / static_cast<float>(k);
        const float bmin[3] = {static_cast<float>(x0), 0.0f, static_cast<float>(y0)};
        const float bmax[3] = {static_cast<float>(x0 + tile + 2 * kBorder), 4.0f,
                               static_cast<float>(y0 + tile + 2 * kBorder)};
        const std::string where = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
        Heightfield hf;
        if (!rcCreateHeightfield(&ctx, *hf.p, side, side, bmin, bmax, cs, 1.0f)) {
            return Error{"navmesh: " + where + ": no memory for its heightfield"};
        }
        bool any = false;
        for (int ly = 0; ly < side; ++ly) {
            for (int lx = 0; lx < side; ++lx) {
                const int x = x0 + lx / k, y = y0 + ly / k;
                if (!cost.contains(x, y) || !cost.passable(x, y)) continue;
                rcAddSpan(&ctx, *hf.p, lx, ly, 0, 1, area_of_cost[cost.at(x, y)], 1);
                any = true;
            }
        }
        if (!any) return {};
        Compact chf;
        Contours cset;
        PolyMesh pmesh;
        if (!rcBuildCompactHeightfield(&ctx, 2, 0, *hf.p, *chf.p) || !rcBuildDistanceField(&ctx, *chf.p) ||
            !(partition == BakeOptions::Partition::monotone ? rcBuildRegionsMonotone(&ctx, *chf.p, kBorder * k, 0, 0)
                                                            : rcBuildRegions(&ctx, *chf.p, kBorder * k, 0, 0)) ||
            !rcBuildContours(&ctx, *chf.p, 0.0f, 0, *cset.p, RC_CONTOUR_TESS_WALL_EDGES) ||
            !rcBuildPolyMesh(&ctx, *cset.p, kVertsPerPoly, *pmesh.p)) {
            return Error{"navmesh: Recast failed on " + where};
        }
        for (const std::string& m : ctx.messages) stats.warnings.push_back(where + ": " + m);
        if (pmesh.p->npolys == 0) return {};
        if (pmesh.p->nverts >= 0xffff) return Error{"navmesh: " + where + " has too many vertices"};
        std::vector<unsigned short> flags(static_cast<std::size_t>(pmesh.p->npolys), 1);
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
        p.cs = cs;
        p.ch = 1.0f;
        p.buildBvTree = true;
        if (!dtCreateNavMeshData(&p, data, size)) return Error{"navmesh: Detour refused " + where};
        ++stats.tiles;
        stats.polys += pmesh.p->npolys;
        stats.verts += pmesh.p->nverts;
        stats.bytes += static_cast<std::size_t>(*size);
        return {};
    }

    Result<void> add(unsigned char* data, int size, int tx, int ty) {
        if (dtStatusFailed(mesh->addTile(data, size, DT_TILE_FREE_DATA, 0, nullptr))) {
            dtFree(data);
            return Error{"navmesh: Detour could not add tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")"};
        }
        return {};
    }
};

NavMesh::NavMesh(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NavMesh::~NavMesh() = default;

Result<std::unique_ptr<NavMesh>> NavMesh::bake(const CostField& cost, const BakeOptions& options) {
    if (options.voxels_per_cell < 1 || options.voxels_per_cell > 4) {
        return Error{"navmesh: " + std::to_string(options.voxels_per_cell) + " voxels per cell is outside 1..4"};
    }
    if (options.tile < 8 || options.tile > 1024) {
        return Error{"navmesh: tile side " + std::to_string(options.tile) + " is outside 8..1024"};
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto impl = std::make_unique<Impl>();
    impl->tile = options.tile;
    impl->partition = options.partition;
    impl->voxels = options.voxels_per_cell;
    // Areas: one walkable area (Recast's RC_WALKABLE_AREA, filter cost 1), or one per distinct cost.
    int next_area = 1;
    for (int c = 1; c < 256; ++c) {
        if (c == kCostWall) continue;
        impl->area_of_cost[static_cast<std::size_t>(c)] = RC_WALKABLE_AREA;
    }
    if (options.area_costs) {
        for (const Cost c : cost.cells()) {
            if (c == kCostWall || impl->area_of_cost[c] != RC_WALKABLE_AREA) continue;
            if (next_area >= RC_WALKABLE_AREA) {
                return Error{"navmesh: more than 62 distinct cell costs; Detour has 64 areas"};
            }
            impl->area_of_cost[c] = static_cast<unsigned char>(next_area);
            impl->filter.setAreaCost(next_area, static_cast<float>(c));
            ++next_area;
        }
    }
    const int W = cost.width(), H = cost.height(), tile = options.tile;
    const int tiles_x = (W + tile - 1) / tile, tiles_y = (H + tile - 1) / tile;
    dtNavMeshParams np{};
    np.tileWidth = static_cast<float>(tile);
    np.tileHeight = static_cast<float>(tile);
    np.maxTiles = tiles_x * tiles_y;
    const int tile_bits = bits_for(np.maxTiles);
    if (tile_bits > 14) {
        return Error{"navmesh: " + std::to_string(np.maxTiles) + " tiles of side " + std::to_string(tile) +
                     ": use bigger tiles"};
    }
    np.maxPolys = 1 << (22 - tile_bits);
    if (dtStatusFailed(impl->mesh->init(&np))) return Error{"navmesh: dtNavMesh::init failed"};
    BakeStats stats;
    for (int ty = 0; ty < tiles_y; ++ty) {
        for (int tx = 0; tx < tiles_x; ++tx) {
            unsigned char* data = nullptr;
            int size = 0;
            auto baked = impl->bake_tile(cost, tx, ty, &data, &size, stats);
            if (!baked.ok()) return baked.error();
            if (data == nullptr) continue;
            auto added = impl->add(data, size, tx, ty);
            if (!added.ok()) return added.error();
        }
    }
    if (dtStatusFailed(impl->query->init(impl->mesh, kMaxNodes))) return Error{"navmesh: dtNavMeshQuery::init failed"};
    stats.bake_ms = bench::ms_since(t0);
    std::unique_ptr<NavMesh> out(new NavMesh(std::move(impl)));
    out->stats_ = stats;
    return out;
}

Result<void> NavMesh::rebake(const CostField& cost, CellRect changed) {
    Impl& m = *impl_;
    const int tile = m.tile;
    const int tiles_x = (cost.width() + tile - 1) / tile, tiles_y = (cost.height() + tile - 1) / tile;
    // A tile's voxels reach kBorder cells past its edges, so an edit that near changes it too.
    const int tx0 = std::max(0, (changed.x0 - kBorder) / tile),
              tx1 = std::min(tiles_x - 1, (changed.x1 + kBorder) / tile);
    const int ty0 = std::max(0, (changed.y0 - kBorder) / tile),
              ty1 = std::min(tiles_y - 1, (changed.y1 + kBorder) / tile);
    for (int ty = ty0; ty <= ty1; ++ty) {
        for (int tx = tx0; tx <= tx1; ++tx) {
            BakeStats scratch;
            unsigned char* data = nullptr;
            int size = 0;
            auto baked = m.bake_tile(cost, tx, ty, &data, &size, scratch);
            if (!baked.ok()) return baked.error();
            const dtTileRef old = m.mesh->getTileRefAt(tx, ty, 0);
            if (old != 0 && dtStatusFailed(m.mesh->removeTile(old, nullptr, nullptr))) {
                dtFree(data);
                return Error{"navmesh: Detour could not remove tile (" + std::to_string(tx) + ", " +
                             std::to_string(ty) + ")"};
            }
            if (data == nullptr) continue;
            auto added = m.add(data, size, tx, ty);
            if (!added.ok()) return added.error();
        }
    }
    return {};
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
    // Off the mesh: the nearest polygon is another cell's (Recast outlines no cell walled in on four
    // sides that a grid path could not leave either).
    if (std::hypot(na[0] - pa[0], na[2] - pa[2]) > 1e-3f || std::hypot(nb[0] - pb[0], nb[2] - pb[2]) > 1e-3f)
        return out;
    int n = 0;
    const dtStatus st = m.query->findPath(ra, rb, na, nb, &m.filter, m.polys.data(), &n, kMaxPath);
    out.out_of_nodes = dtStatusDetail(st, DT_OUT_OF_NODES);
    if (dtStatusFailed(st) || n == 0 || m.polys[static_cast<std::size_t>(n - 1)] != rb) return out;
    int k = 0;
    if (dtStatusFailed(
            m.query->findStraightPath(na, nb, m.polys.data(), n, m.straight.data(), nullptr, nullptr, &k, kMaxPath))) {
        return out;
    }
    out.found = true;
    for (int i = 0; i < k; ++i) {
        const float* p = &m.straight[static_cast<std::size_t>(3 * i)];
        if (i > 0) {
            const float* q = p - 3;
            out.length += std::hypot(static_cast<double>(p[0] - q[0]), static_cast<double>(p[2] - q[2]));
        }
        if (corners) out.corners.push_back({p[0], p[2]});
    }
    return out;
}

std::vector<std::uint8_t> NavMesh::reachable_cells(const CostField& cost, Vec2 goal) {
    Impl& m = *impl_;
    std::vector<std::uint8_t> out(cost.size(), 0);
    const float ext[3] = {0.5f, 2.0f, 0.5f};
    auto on_mesh = [&](Vec2 p) -> dtPolyRef {
        const float q[3] = {p.x, 0.0f, p.y};
        float n[3];
        dtPolyRef ref = 0;
        if (dtStatusFailed(m.query->findNearestPoly(q, ext, &m.filter, &ref, n)) || !ref) return 0;
        return std::hypot(n[0] - q[0], n[2] - q[2]) > 1e-3f ? 0 : ref;
    };
    const dtPolyRef start = on_mesh(goal);
    if (!start) return out;
    // Flood the polygon links from the goal's polygon.
    std::vector<dtPolyRef> stack{start};
    std::unordered_set<dtPolyRef> seen{start};
    while (!stack.empty()) {
        const dtPolyRef ref = stack.back();
        stack.pop_back();
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        m.mesh->getTileAndPolyByRefUnsafe(ref, &tile, &poly);
        for (unsigned int i = poly->firstLink; i != DT_NULL_LINK; i = tile->links[i].next) {
            const dtPolyRef next = tile->links[i].ref;
            if (next == 0 || !seen.insert(next).second) continue;
            stack.push_back(next);
        }
    }
    for (int y = 0; y < cost.height(); ++y)
        for (int x = 0; x < cost.width(); ++x) {
            if (!cost.passable(x, y)) continue;
            const dtPolyRef ref = on_mesh({x + 0.5f, y + 0.5f});
            out[static_cast<std::size_t>(y) * cost.width() + x] = ref != 0 && seen.count(ref) > 0;
        }
    return out;
}

// ---- DetourCrowd ---------------------------------------------------------------------------

struct DetourCrowd::Impl {
    NavMesh::Impl* mesh = nullptr;
    dtCrowd* crowd = dtAllocCrowd();
    dtCrowdAgentParams params{};
    float target[3] = {0.0f, 0.0f, 0.0f};
    dtPolyRef target_ref = 0;
    ~Impl() { dtFreeCrowd(crowd); }
};

DetourCrowd::DetourCrowd(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DetourCrowd::~DetourCrowd() = default;

Result<std::unique_ptr<DetourCrowd>> DetourCrowd::create(NavMesh& mesh, int max_agents, float radius, float max_speed) {
    auto impl = std::make_unique<Impl>();
    impl->mesh = mesh.impl_.get();
    if (!impl->crowd->init(max_agents, radius, impl->mesh->mesh)) return Error{"navmesh: dtCrowd::init failed"};
    *impl->crowd->getEditableFilter(0) = impl->mesh->filter;
    // RecastDemo's avoidance presets (low, medium, good, high); its crowd tool uses the last.
    dtObstacleAvoidanceParams oa;
    std::memcpy(&oa, impl->crowd->getObstacleAvoidanceParams(0), sizeof oa);
    oa.velBias = 0.5f;
    const unsigned char presets[4][3] = {{5, 2, 1}, {5, 2, 2}, {7, 2, 3}, {7, 3, 3}};
    for (int i = 0; i < 4; ++i) {
        oa.adaptiveDivs = presets[i][0];
        oa.adaptiveRings = presets[i][1];
        oa.adaptiveDepth = presets[i][2];
        impl->crowd->setObstacleAvoidanceParams(i, &oa);
    }
    dtCrowdAgentParams& p = impl->params;
    p.radius = radius;
    p.height = 2.0f;
    p.maxAcceleration = 8.0f;  // RecastDemo's; Tide's units reach top speed in about the same time
    p.maxSpeed = max_speed;
    p.collisionQueryRange = radius * 12.0f;
    p.pathOptimizationRange = radius * 30.0f;
    p.separationWeight = 2.0f;
    p.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO |
                    DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION;
    p.obstacleAvoidanceType = 3;
    p.queryFilterType = 0;
    return std::unique_ptr<DetourCrowd>(new DetourCrowd(std::move(impl)));
}

Result<void> DetourCrowd::add_agent(Vec2 p, Vec2 target) {
    Impl& m = *impl_;
    const float pos[3] = {p.x, kFloor, p.y};
    const int idx = m.crowd->addAgent(pos, &m.params);
    if (idx < 0)
        return Error{"navmesh: DetourCrowd refused an agent at (" + std::to_string(p.x) + ", " + std::to_string(p.y) +
                     ")"};
    if (m.target_ref == 0 || m.target[0] != target.x || m.target[2] != target.y) {
        const float t[3] = {target.x, kFloor, target.y};
        const float ext[3] = {0.5f, 2.0f, 0.5f};
        float nearest[3];
        m.crowd->getNavMeshQuery()->findNearestPoly(t, ext, m.crowd->getFilter(0), &m.target_ref, nearest);
        if (m.target_ref == 0) return Error{"navmesh: the target is off the mesh"};
        dtVcopy(m.target, nearest);
    }
    m.crowd->requestMoveTarget(idx, m.target_ref, m.target);
    return {};
}

void DetourCrowd::retarget(Vec2 target) {
    Impl& m = *impl_;
    const float t[3] = {target.x, kFloor, target.y};
    const float ext[3] = {0.5f, 2.0f, 0.5f};
    float nearest[3];
    m.crowd->getNavMeshQuery()->findNearestPoly(t, ext, m.crowd->getFilter(0), &m.target_ref, nearest);
    dtVcopy(m.target, nearest);
    for (int i = 0; i < m.crowd->getAgentCount(); ++i) {
        if (m.crowd->getAgent(i)->active) m.crowd->requestMoveTarget(i, m.target_ref, m.target);
    }
}

void DetourCrowd::step(float dt) {
    impl_->crowd->update(dt, nullptr);
}

int DetourCrowd::size() const noexcept {
    int n = 0;
    for (int i = 0; i < impl_->crowd->getAgentCount(); ++i) n += impl_->crowd->getAgent(i)->active ? 1 : 0;
    return n;
}

Vec2 DetourCrowd::position(int i) const {
    const float* p = impl_->crowd->getAgent(i)->npos;
    return {p[0], p[2]};
}

int DetourCrowd::waiting_for_path() const {
    int n = 0;
    for (int i = 0; i < impl_->crowd->getAgentCount(); ++i) {
        const dtCrowdAgent* a = impl_->crowd->getAgent(i);
        if (a->active && (a->targetState != DT_CROWDAGENT_TARGET_VALID || a->targetReplan)) ++n;
    }
    return n;
}

}  // namespace tide::navmesh
