#pragma once
/// \file hierarchy.hpp
/// Big maps: sectors, portals, the portal graph, and route-only flow fields (see docs/hierarchy.md).
///
/// The map is cut into square sectors. Along every border between two sectors, the cells passable
/// on both sides form runs; runs become portals (split when longer than a limit), and each portal
/// gives the graph one node on each side of the border. Inside a sector, the cost from every node
/// to every other is computed by a Dijkstra restricted to the sector. A route query searches that
/// graph from the goals (A* toward the sectors units stand in), then builds flow fields only for
/// the sectors on the route, goal first, each seeded with the values of the fields next to it.
///
/// Every sector field is consistent with its neighbours: a value is the cost of a real path, and
/// a step across a sector border always lowers it, so following the flow reaches a goal without
/// loops whatever order the sectors were built in. Paths are close to, not exactly, optimal
/// (docs/validation.md has the ratios); the flat FlowField stays the exact choice.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"

namespace tide {

/// Most landmarks a SectorConfig may ask for.
inline constexpr int kMaxLandmarks = 16;

/// How a map is cut into sectors and portals.
struct SectorConfig {
    int sector_size = 64;  ///< Side of a sector in cells, 16..256.
    /// Longest stretch of border one portal may span, 1..sector_size; longer runs are split. 28:
    /// the largest that keeps every Moving AI benchmark row within 1.05x of the optimum
    /// (docs/validation.md; at 29-32 one sc1/Archipelago route takes the far side of an island).
    int portal_limit = 28;
    /// Neighbouring runs of one border that join the same two parts of the sectors (so one
    /// portal serves both) share a portal while they span at most portal_limit cells. Keeps the
    /// graph small on maps with scattered walls (about 15 runs per border on the 20%-wall
    /// benchmark map). False: exactly one portal per run (and per split).
    bool merge_runs = true;
    FieldParams params;  ///< Move costs (diagonal factor, 4 or 8 directions) of the graph and fields.
    /// Landmarks for the route search (0..kMaxLandmarks): the graph keeps every node's cost to and from each,
    /// which bounds route costs far better than straight distance on weighted maps (A* with ALT
    /// bounds). 8 bytes per node and landmark; recomputed by every build and update.
    int landmarks = 8;
};

/// A portal: a stretch of the border between sector `a` (left or above) and sector `b` (right or
/// below), with its graph node on each side.
struct Portal {
    int sector_a = 0;       ///< Sector left of (vertical border) or above (horizontal border) the border.
    int sector_b = 0;       ///< The sector across.
    bool vertical = false;  ///< True for a vertical border (a is left of b).
    int first = 0;          ///< First border position (row for a vertical border, column otherwise).
    int last = 0;           ///< Last border position, inclusive.
    Cell node_a;            ///< The node cell on a's side.
    Cell node_b;            ///< The node cell on b's side, next to node_a.
};

/// One node of the portal graph: a cell on a sector's border next to the node across.
struct SectorNode {
    Cell cell;                  ///< The node's cell.
    std::int32_t partner = -1;  ///< Index (in the graph) of the node across the border.
    std::int32_t portal = -1;   ///< Index of its portal.
};

/// Counts from a graph build or update.
struct SectorGraphStats {
    std::size_t sectors = 0;   ///< Sectors (re)computed.
    std::size_t nodes = 0;     ///< Nodes in the graph.
    std::size_t portals = 0;   ///< Portals in the graph.
    std::size_t searches = 0;  ///< Intra-sector Dijkstra runs (one per node of the sectors redone).
};

/// Sectors, portals and the portal graph of one cost field (for one set of move costs). Built once
/// per map, updated in place after terrain edits; read by any number of HierarchicalFields.
class TIDE_API SectorGraph {
public:
    /// Builds the graph; the intra-sector searches run on `jobs` (serial when null). Errors: a
    /// sector size outside 16..256, a portal limit outside 1..sector size, a bad diagonal factor.
    static Result<SectorGraph> build(const CostField& cost, const SectorConfig& config, JobSystem* jobs = nullptr);

    /// Brings the graph up to date after the cells of [x0, x1] x [y0, y1] changed in `cost`: only
    /// the sectors touching the rectangle (and a one-cell margin) get new portals and costs.
    /// Errors: other dimensions than the build's. Bumps version().
    Result<SectorGraphStats> update(const CostField& cost, int x0, int y0, int x1, int y1, JobSystem* jobs = nullptr);

    const SectorConfig& config() const noexcept { return config_; }        ///< The build's settings.
    int width() const noexcept { return width_; }                          ///< Map columns.
    int height() const noexcept { return height_; }                        ///< Map rows.
    int sector_size() const noexcept { return config_.sector_size; }       ///< Side of a sector.
    int sectors_x() const noexcept { return sectors_x_; }                  ///< Sector columns.
    int sectors_y() const noexcept { return sectors_y_; }                  ///< Sector rows.
    int sector_count() const noexcept { return sectors_x_ * sectors_y_; }  ///< Sectors.
    /// Sector containing cell (x, y) (which must be on the map).
    int sector_of(int x, int y) const noexcept {
        return (y / config_.sector_size) * sectors_x_ + x / config_.sector_size;
    }
    /// Cells of sector `s`: [x0, x1) x [y0, y1).
    void sector_rect(int s, int& x0, int& y0, int& x1, int& y1) const noexcept;

    /// Every portal, border by border.
    std::span<const Portal> portals() const noexcept { return portals_; }
    /// Every node; the nodes of sector s are [node_begin(s), node_begin(s + 1)).
    std::span<const SectorNode> nodes() const noexcept { return nodes_; }
    /// Sector of node `n` (sector_of() its cell, kept per node for the route search).
    int node_sector(std::int32_t n) const noexcept { return node_sector_[static_cast<std::size_t>(n)]; }
    /// Cost of node `n`'s cell: the price of the orthogonal move into it from its partner.
    Cost node_cost(std::int32_t n) const noexcept { return node_cost_[static_cast<std::size_t>(n)]; }
    /// First node of sector `s` (s == sector_count() gives the node count).
    std::int32_t node_begin(int s) const noexcept { return node_begin_[static_cast<std::size_t>(s)]; }
    /// Least cost of a path from node `from` to node `to` of the same sector that stays inside it
    /// (+inf when there is none). Asserts when the nodes are in different sectors.
    double intra_cost(std::int32_t from, std::int32_t to) const;
    /// Costs between the nodes of sector `s`, by destination: row j, column i is
    /// intra_cost(node_begin(s) + i, node_begin(s) + j) (the route search reads the costs into one node).
    std::span<const float> intra_costs(int s) const noexcept { return costs_[static_cast<std::size_t>(s)].intra; }
    /// Connected part of the map node `n` belongs to: nodes with equal labels are joined by paths.
    std::int32_t component(std::int32_t n) const noexcept { return component_[static_cast<std::size_t>(n)]; }
    /// Number of landmarks with costs (0 when the config asks for none or the graph has no node).
    int landmark_count() const noexcept { return landmark_count_; }
    /// Cost from node `n` to landmark `l` (+inf when it cannot reach it).
    float to_landmark(std::int32_t n, int l) const noexcept { return to_landmarks(n)[l]; }
    /// Cost from landmark `l` to node `n` (+inf when unreachable).
    float from_landmark(std::int32_t n, int l) const noexcept { return from_landmarks(n)[l]; }
    /// Costs from node `n` to each landmark (landmark_count() floats; see to_landmark()).
    const float* to_landmarks(std::int32_t n) const noexcept {
        return to_landmark_.data() + static_cast<std::size_t>(n) * landmark_count_;
    }
    /// Costs from each landmark to node `n` (landmark_count() floats; see from_landmark()).
    const float* from_landmarks(std::int32_t n) const noexcept {
        return from_landmark_.data() + static_cast<std::size_t>(n) * landmark_count_;
    }
    /// Cheapest passable cost on the map (for A* bounds).
    Cost cheapest_cost() const noexcept { return cheapest_; }

    /// Incremented by every update().
    std::uint64_t version() const noexcept { return version_; }
    /// Bytes held by the graph (portals, nodes, intra-sector costs).
    std::size_t memory_bytes() const noexcept;
    /// What the last build() or update() did.
    const SectorGraphStats& last_stats() const noexcept { return stats_; }

private:
    struct SectorCosts {
        std::vector<float> intra;  // n x n, row = to (the search reads every cost into a settled node)
    };
    Result<void> compute(const CostField& cost, std::span<const int> sectors, JobSystem* jobs);
    void assemble(const CostField& cost);
    void label_components();

    SectorConfig config_;
    int width_ = 0;
    int height_ = 0;
    int sectors_x_ = 0;
    int sectors_y_ = 0;
    Cost cheapest_ = kCostPlain;
    int landmark_count_ = 0;
    std::uint64_t version_ = 0;
    std::vector<std::vector<Portal>> borders_;  // per border: 2 per sector (east, south)
    std::vector<Portal> portals_;
    std::vector<SectorNode> nodes_;
    std::vector<std::int32_t> node_begin_;
    std::vector<std::int32_t> node_sector_;  // per node: its sector (the search reads it per settled node)
    std::vector<Cost> node_cost_;            // per node: its cell's cost (no map read per partner move)
    std::vector<SectorCosts> costs_;         // per sector
    std::vector<std::int32_t> component_;
    std::vector<float> to_landmark_;    // node-major: [node * L + l] = cost from the node to landmark l
    std::vector<float> from_landmark_;  // [node * L + l] = cost from landmark l to the node
    void compute_landmarks(const CostField& cost, JobSystem& jobs);
    SectorGraphStats stats_;
};

/// One sector's flow field (the sector's cells only, row-major within the sector): 5 bytes per cell.
struct SectorField {
    int x0 = 0;                         ///< Column of the sector's first cell.
    int y0 = 0;                         ///< Row of the sector's first cell.
    int width = 0;                      ///< Columns.
    int height = 0;                     ///< Rows.
    std::vector<float> integration;     ///< Cost to the goals along the planned route; +inf when none.
    std::vector<Direction> directions;  ///< Flow code per cell (as in FlowField).
    std::uint16_t seeded_from = 0;      ///< Bit k: neighbour sector k (E, SE, S, SW, W, NW, N, NE) had a field.
    std::uint32_t build = 0;            ///< Order of the build that made it (1 = first).
    /// Built by route() (it leads into fields all the way to the goals), not alone by ensure_field().
    bool routed = false;
};

/// How a HierarchicalField builds routes.
struct RouteConfig {
    /// Rings of neighbouring sectors built with the route (0..4): paths may leave the route's own
    /// sectors where that is shorter. Each ring costs about as many fields as the route itself;
    /// the corner fill below gets most of the gain for less (docs/hierarchy.md has the figures).
    int corridor = 0;
    /// Where the route turns around a sector corner (two diagonal sectors of a 2 x 2 block on it),
    /// the two other sectors of that block join: the best path often cuts such corners.
    bool fill_corners = true;
    /// With fill_corners: only corners within this many cells (Chebyshev) of the route's way (its
    /// nodes and traced start cells) are filled; -1: every corner the route turns round. A trade of
    /// path length for speed when route fields are built on one thread: fewer sector fields per
    /// query, slightly longer paths; on two threads the fill costs little (figures in
    /// docs/performance/hierarchy.md, "Settings against speed").
    int corner_reach = -1;
    /// Extra passes over the route's fields, each rebuilt with all its neighbours (0..4); the
    /// settling below usually makes them unnecessary.
    int refine_passes = 0;
    /// Settling after the first build of a route's fields: fields that a neighbour's later field
    /// would lower are rebuilt, and so on while values drop, up to this many rebuilds per field of
    /// the route (0..16; 0 = off). Removes the detours of fields built before their neighbours.
    int settle_budget = 4;
    /// Routes of at most this many sectors get one more ring of sectors (they are cheap, and short
    /// paths are where a detour weighs most); 0 turns it off.
    int short_route = 24;
    /// Where route fields are built in parallel (sectors that share no border, once the ones they
    /// wait for are done); null: on the calling thread. The fields do not depend on it.
    JobSystem* jobs = nullptr;
};

/// What one HierarchicalField::route() did.
struct RouteStats {
    std::size_t nodes_settled = 0;   ///< Graph nodes settled by the search so far (all calls).
    std::size_t route_sectors = 0;   ///< Sectors on the routes of the given starts.
    std::size_t fields_built = 0;    ///< Sector fields built by this call (rebuilds included).
    std::size_t fields_rebuilt = 0;  ///< Of those, fields built again with better neighbours.
    double search_ms = 0.0;          ///< Time in the graph search.
    double fields_ms = 0.0;          ///< Time building fields.
    double settle_ms = 0.0;       ///< Of fields_ms, the time settling (lowering fields that later neighbours improve).
    double first_field_ms = 0.0;  ///< From the call to the first start sector's field.
};

/// The flow toward one goal set over a SectorGraph, built sector by sector as routes need it. Reads
/// the cost field and the graph it was made with (both must outlive it and not change, except
/// through terrain_changed()). One thread plans (route(), ensure_field(), terrain_changed());
/// between those calls any number of threads may read it (the const functions).
class TIDE_API HierarchicalField {
public:
    /// Starts a plan for `goals` (nothing is searched or built yet). Errors: no goal, a goal off the
    /// map or on a wall, a cost field of other dimensions than the graph's, a bad config.
    static Result<HierarchicalField> create(const CostField& cost, const SectorGraph& graph,
                                            std::span<const Cell> goals, const RouteConfig& config = {});

    /// Makes sure units standing on `starts` have fields all the way to the goals: the starts'
    /// sectors first (once the search has settled their nodes), then the sectors on their routes,
    /// goal first, then the start sectors again with their new neighbours. Returns at once when
    /// every start stands in a routed field (call it every tick). Errors: a start off the map.
    Result<RouteStats> route(std::span<const Cell> starts);

    /// The field of sector `s` if built (nullptr otherwise).
    const SectorField* sector_field(int s) const noexcept;
    /// Builds the field of the sector containing (x, y) if missing (searching on as needed) and
    /// returns it. Errors: (x, y) off the map.
    Result<const SectorField*> ensure_field(int x, int y);

    /// Flow code at (x, y) from the built field; Direction::unreachable also when its sector has no
    /// field yet (ensure_field() first, or use coarse_direction()).
    Direction direction(int x, int y) const;
    /// Cost to the goals at (x, y) from the built field (+inf when none or not built).
    float integration(int x, int y) const;
    /// Cost to the goals at (x, y): the field's value where its sector has one, else an estimate
    /// from the search (the cheapest known portal node of the sector plus the straight distance to
    /// it at the cheapest cost); +inf when nothing is known yet or (x, y) is a wall. For crowds.
    float to_go(int x, int y) const;
    /// True when a path from (x, y) to a goal exists (exact: the graph's components, not the route).
    /// Runs a small search inside the sector: a planning call, not for concurrent readers.
    bool reachable(int x, int y) const;
    /// Rough direction for a unit in a sector without a field yet: toward the cheapest portal node
    /// of its sector reached by the search; (0, 0) when none is known.
    Vec2 coarse_direction(int x, int y) const;
    /// Wall-safe flow direction at a continuous position, with FlowField::sample()'s guarantee (a
    /// step of up to kSampleReach along it enters no wall of cost() and cuts no wall corner): the
    /// blend() where safe, else turned toward the move of the cell (in a sector without a field: the
    /// legal move nearest coarse_direction()). (0, 0) at a goal, in a wall, off the map, or where
    /// neither the sector field nor the coarse search gives a direction.
    Vec2 sample(Vec2 p) const;
    /// The plain blend, as FlowField::blend() (cells of sectors without a field use
    /// coarse_direction()); not wall-safe.
    Vec2 blend(Vec2 p) const;

    /// The goals, sorted, without duplicates.
    std::span<const Cell> goals() const noexcept;
    /// Number of sectors with a field.
    std::size_t built_sectors() const noexcept;
    /// Bytes of the sector fields and the search state.
    std::size_t memory_bytes() const noexcept;
    /// Bytes of the sector fields alone.
    std::size_t field_bytes() const noexcept;
    /// The graph's diagonal factor (the price of a diagonal move relative to a straight one).
    double diagonal_factor() const noexcept;
    /// The graph it plans on.
    const SectorGraph& graph() const noexcept;
    /// The cost field it plans on.
    const CostField& cost() const noexcept;

    /// After `graph.update()` for cells [x0, x1] x [y0, y1]: drops the fields that may have
    /// relied on those cells (every field with a value at least the smallest value the edited
    /// sectors had) and restarts the search. Routes are rebuilt by the next route() or
    /// ensure_field(). Errors: a goal now on a wall (the plan is left as it was).
    Result<void> terrain_changed(int x0, int y0, int x1, int y1);
    /// The same for a plan whose terrain is now `cost` (a new snapshot of it, with the edit; the
    /// graph was updated on it): the plan reads `cost` from now on, which must outlive it or the
    /// next call. Errors: other dimensions than the graph's (nothing changed), a goal now on a wall.
    Result<void> terrain_changed(const CostField& cost, int x0, int y0, int x1, int y1);

    HierarchicalField(HierarchicalField&&) noexcept;
    HierarchicalField& operator=(HierarchicalField&&) noexcept;
    ~HierarchicalField();

private:
    struct State;
    explicit HierarchicalField(std::unique_ptr<State> state);
    std::unique_ptr<State> s_;
};

/// Checks a RouteConfig as HierarchicalField::create() does (ranges of every setting).
TIDE_API Result<void> check_route_config(const RouteConfig& config);

/// The cost of the path that follows `field` from `start` to a goal (sum of the true move costs,
/// as flow_path_cost()), building sector fields on the way as needed; +inf when `start` has no path.
/// Errors: `start` off the map or a wall, a loop (a bug: never expected).
TIDE_API Result<double> hierarchical_path_cost(HierarchicalField& field, const CostField& cost, Cell start,
                                               std::size_t* steps = nullptr);

}  // namespace tide
