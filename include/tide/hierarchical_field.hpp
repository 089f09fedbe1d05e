#pragma once
/// \file hierarchical_field.hpp
/// HierarchicalField: the flow toward one goal set over a SectorGraph, with fields built only for
/// the sectors routes cross (see tide/hierarchy.hpp, docs/hierarchy.md); its settings and stats.

#include <cstddef>
#include <memory>
#include <span>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"
#include "tide/sector_field.hpp"
#include "tide/sector_graph.hpp"

namespace tide {

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
