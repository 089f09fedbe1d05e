#pragma once
/// \file sector_graph.hpp
/// SectorGraph: a map cut into square sectors, the portals along their borders and the portal
/// graph between them, with the costs inside each sector (see tide/hierarchy.hpp, docs/hierarchy.md).

#include <cstdint>
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

}  // namespace tide
