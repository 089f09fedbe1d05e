#pragma once
// HierarchicalField::State: everything a plan holds (internal). Its members are defined by topic:
// route_search.cpp (the graph search), sector_fields.cpp (building sector fields),
// routing.cpp (route()'s phases), settling.cpp (lowering fields their later neighbours improve);
// the public functions are in hierarchical_field.cpp (creation, sizes), plan_queries.cpp,
// plan_sample.cpp and plan_repair.cpp (after terrain edits).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "radix_queue.hpp"
#include "sector_search.hpp"
#include "tide/hierarchical_field.hpp"

namespace tide {
namespace hier_detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr float kInfF = std::numeric_limits<float>::infinity();

}  // namespace hier_detail

struct HierarchicalField::State {
    using SectorSearch = hier_detail::SectorSearch;

    struct Rect {
        int x0, y0, x1, y1;  // inclusive
    };

    // A settling check: how far sector `to`, neighbour k of sector `from`, would drop through one move
    // onto from's field (HierarchicalField::State::improvement).
    struct Offer {
        int from, to, k;
        double value;
    };

    const CostField* cost = nullptr;
    const SectorGraph* graph = nullptr;
    std::vector<Cell> goals;
    std::vector<std::vector<Cell>> goals_by_sector;  // per sector (empty for most)
    std::vector<int> goal_sectors;

    // Search.
    bool started = false;
    std::vector<double> g;
    std::vector<std::int32_t> next;  // node the best path continues to; -1: straight to a goal
    std::vector<std::uint8_t> settled;
    std::vector<std::uint8_t> goal_comp;  // per component label: reaches a goal
    hier_detail::RadixQueue open;
    std::vector<std::uint8_t> target;     // per sector
    std::vector<std::int32_t> unsettled;  // per target sector: goal-reaching nodes not settled
    std::vector<Rect> target_rects;
    // Landmark bounds of the target set: per landmark the least cost of a target node to it and
    // the largest cost from it to a target node (see heuristic()).
    // (Floats, as the graph stores the costs: a least or largest of floats is exact.)
    std::vector<float> lm_to_min, lm_from_max;
    std::vector<float> lm_from_eff;  // lm_from_max with -inf (no target reached from the landmark) as +inf
    Rect target_box{0, 0, -1, -1};
    std::size_t pending = 0;  // targets with unsettled nodes
    std::vector<double> h_cache;
    std::vector<std::uint32_t> h_stamp;
    std::uint32_t h_gen = 1;
    bool stale_keys = false;
    std::vector<double> sector_min_g;  // per sector: the least g any of its nodes had (kept across edits)
    RouteConfig config;
    std::size_t settled_count = 0;

    // Fields.
    std::vector<std::unique_ptr<SectorField>> fields;
    std::size_t built = 0;
    std::size_t bytes = 0;
    std::uint32_t builds = 0;
    mutable SectorSearch search;
    JobSystem* jobs = nullptr;                        // where wave fields are built (null: here)
    std::vector<std::unique_ptr<SectorSearch>> pool;  // searches of the job system's threads
    std::mutex pool_mutex;
    std::vector<std::int32_t> slot_of;  // build_levels: per sector, its item (-1: none)

    // Node n can reach a goal (its component has a goal).
    bool in_goal_comp(std::int32_t n) const {
        const std::int32_t c = graph->component(n);
        return c >= 0 && static_cast<std::size_t>(c) < goal_comp.size() && goal_comp[static_cast<std::size_t>(c)];
    }

    // The field of the sector holding cell (x, y); null when it has none.
    const SectorField* field_at(int x, int y) const {
        return fields[static_cast<std::size_t>(graph->sector_of(x, y))].get();
    }
    // Sector neighbour k (kDirectionDx, kDirectionDy) of sector sec; -1 off the map.
    int neighbour(int sec, int k) const {
        const int sxc = graph->sectors_x();
        const int tx = sec % sxc + kDirectionDx[k], ty = sec / sxc + kDirectionDy[k];
        return tx < 0 || ty < 0 || tx >= sxc || ty >= graph->sectors_y() ? -1 : ty * sxc + tx;
    }

    // The graph search (route_search.cpp).

    // Least possible cost from a cell of the target rectangles to c (the straight-distance bound).
    double heuristic(Cell c) const;

    // The heuristic of node n: the larger of the straight-distance bound and the landmark bounds:
    // for a target t and landmark l, cost(t -> n) >= cost(t -> l) - cost(n -> l) and
    // >= cost(l -> n) - cost(l -> t); taking the least over the targets per landmark keeps each
    // bound a potential (consistent), and so is their maximum. A margin of 1e-6 x the costs covers
    // the rounding of the stored costs (floats) and of this float arithmetic (a few ulps, 2e-7).
    double node_heuristic(std::int32_t n) const;

    // The landmark bounds in float lanes, without tests (with them they were a fifth of the
    // search's instructions): a bound that does not hold comes out as -inf or NaN, which
    // `acc < b ? b : acc` leaves out (a vector max keeps its second operand on NaN). to_min is +inf
    // where no target reaches landmark l (inf - inf: NaN), from_max +inf where none is reached from
    // it; a node that cannot reach l (to = +inf) gives -inf, one l cannot reach (from = +inf) NaN.
    // N > 0: exactly N landmarks, a count fixed at compile time (the default 8), which lets the
    // compiler use vector lanes; N = 0: `count` of them.
    template <int N>
    float landmark_bound(const float* to, const float* from, int count) const;

    // Queues node n at g + h (and prefetches the costs read when it is settled).
    void push(std::int32_t n);

    // Starts the search from the goals (once; again after terrain_changed() clears `started`).
    void start();

    // Notes that a node of sector sec got g = v (sector_min_g keeps the least per sector).
    void note_g(int sec, double v);

    // Seeds (value 0) the goals in sector s or in its frame (the loaded search must be s).
    void seed_goals(int s);
    // The same into `search` (loaded with sector s).
    void seed_goals(int s, SectorSearch& search) const;

    // Makes the search settle every goal-reaching node of sector s. With `guide`, s also becomes a
    // place the heuristic aims at (the sectors units stand in); corridor sectors are settled
    // without changing the heuristic, which widening it to them would weaken for little gain.
    void add_target(int s, bool guide = true);

    // lm_from_eff from lm_from_max.
    void refresh_from_bounds();

    // After targets were added (the heuristic can only have dropped): re-key the open list.
    void rekey();

    // The heuristic of node n for the current targets (cached).
    double h(std::int32_t n);

    // Settles nodes until every target's goal-reaching nodes are settled.
    void search_targets();

    // The node a unit entering field-less sector `sec` at cell c heads for: the one minimising
    // (cost from c to it inside the sector + its g), found by a search in the sector seeded with
    // the nodes' g (and the goals). A sector can have parts that do not connect inside it, so the
    // nearest node with a low g may not be reachable from c at all. -1: a goal, or no node.
    std::int32_t entry_node(int sec, Cell c);

    // Settles sector s's goal-reaching nodes, aiming the search at s.
    void ensure_settled(int s);

    // Goal-reaching nodes of sector s not settled yet.
    std::int32_t unsettled_goal_nodes(int s) const;

    // Sector fields (sector_fields.cpp).

    // Stores f as sector s's field; false when it equals the field it replaces.
    bool store(int s, std::unique_ptr<SectorField> f);

    // Builds (or rebuilds) the field of sector s; its nodes must be settled. False when a rebuild
    // changed nothing.
    bool build_field(int s);

    // The field of sector s from the fields and costs there are now (reads only: fields of
    // sectors that are not neighbours of each other can be made at once).
    // With `lower`, the field starts from the sector's current one and only lowers it (settling:
    // its seeds only dropped since), which touches only the cells that improve.
    std::unique_ptr<SectorField> make_field(int s, SectorSearch& search, bool lower = false) const;

    // The same, reading neighbour t's field as around(t) (the dependency-ordered builds hand in
    // the fields as a wave-by-wave build would see them).
    template <class Around>
    std::unique_ptr<SectorField> make_field(int s, SectorSearch& search, bool lower, const Around& around) const;

    // Builds the fields of `wave` (no two share a border) at once on the job system, then stores
    // them in order.
    void build_wave(const std::vector<int>& wave, bool lower = false);

    // Builds the fields of the waves `by_wave` (`level`: each sector's wave), as build_wave one
    // wave after the other would, but on the job system without a barrier between waves: a sector
    // starts as soon as the neighbours it reads (those of earlier waves, diagonal ones too) are
    // made. It reads those as made now and every other neighbour as it was before, so it makes the
    // same field as wave by wave; the fields are stored in wave order once all are made. A route
    // is a chain of waves of one to three sectors, so the barriers left a thread idle for much of
    // each wave.
    void build_levels(const std::vector<std::vector<int>>& by_wave, const std::vector<int>& level);

    // Who waits for whom among the items of build_levels (sectors in wave order, slot_of[sector]
    // the item's index): an item waits for its neighbours of earlier waves, diagonal ones too.
    struct LevelWaits {
        std::vector<std::int32_t> waiting;  // per item: how many items it waits for
        // As compressed rows: after[first[j] .. first[j + 1]) wait for item j.
        std::vector<std::int32_t> first, after;
        // Per item, the longest chain of items waiting behind it: ready items go longest chain
        // first (the route's own sectors before those beside it, which nothing much waits for),
        // then in wave order.
        std::vector<std::int32_t> tail;
    };
    LevelWaits level_waits(const std::vector<int>& items, const std::vector<int>& level) const;

    // A search for a job system's thread, from the pool (or new); give_search() returns it.
    std::unique_ptr<SectorSearch> take_search();
    void give_search(std::unique_ptr<SectorSearch> own);

    // Forgets sector s's field.
    void drop(int s);

    // route()'s phases, in the order it runs them (routing.cpp).

    // The sectors of one route() call, in the order they join, and the way they were found by
    // (what the corner fill measures its reach from).
    struct RouteWay {
        std::vector<int> sectors;
        std::vector<std::uint8_t> on_route;  // per sector
        std::vector<std::uint8_t> chain;     // per node: on a chain of best next nodes followed
        std::vector<Cell> traced;            // the start cells traced
        void add(int sec) {
            if (on_route[static_cast<std::size_t>(sec)]) return;
            on_route[static_cast<std::size_t>(sec)] = 1;
            sectors.push_back(sec);
        }
    };

    // A unit standing on cell c needs a route: its sector has no field, or one built alone
    // (ensure_field), whose way on may lead into sectors without a field yet.
    bool needs_work(Cell c) const;

    // Every start stands where fields of earlier routes are: route() has nothing to do (the common
    // case once a group is on its way: it is called every tick).
    bool routed_already(std::span<const Cell> starts) const;

    // Phase 1: the search settles the start sectors' nodes, aimed at them.
    void settle_start_nodes(const std::vector<int>& start_sectors);

    // Phase 2: the start sectors' fields that do not exist yet, from the search's costs alone (so
    // units move at once; phase 7 rebuilds them with their route neighbours).
    void build_start_fields(const std::vector<int>& start_sectors, std::chrono::steady_clock::time_point t0,
                            RouteStats& stats);

    // Phase 3a: the start cells to trace: those that needed work or stand in a field this call
    // built, at most 32 per sector (units of one sector share most of their way).
    std::vector<Cell> cells_to_trace(std::span<const Cell> starts, std::uint32_t first_build) const;

    // Phase 3b: the route. Each traced cell follows the fields already built (its own sector's at
    // least) to where they end: a goal, or a cell of a sector without a field; from there on, the
    // route is the chain of best next nodes the search found, from the node the cell heads for
    // (entry_node). A trace stops in a sector another trace already entered.
    void trace_routes(RouteWay& way);

    // The sectors of the chain of best next nodes from node `from`, up to a goal or a node an
    // earlier chain passed.
    void follow_chain(RouteWay& way, std::int32_t from) const;

    // Phase 4: where the route turns around a sector corner (two diagonal sectors of a 2 x 2 block
    // on it), the other two sectors of the block join: the best path often cuts that corner. With
    // a corner reach, only corners near the route's way: its chain's nodes and the start cells
    // traced.
    void fill_corners(RouteWay& way) const;

    // Phase 5: `corridor` rings of neighbours around the route; short routes (cheap, and where a
    // detour weighs most) get one more.
    void widen(RouteWay& way) const;

    // Phase 6: the search goes on, aimed at the starts still, until every node of the route's
    // sectors is settled: a field is built only then, which is what keeps the values below the
    // search's costs and the flow free of loops.
    void settle_route_nodes(const std::vector<int>& route);

    // The route's sectors goal first: by the least cost to the goals of their nodes (0 for a goal
    // sector), then by index.
    std::vector<int> goal_first(const std::vector<int>& route) const;

    // The sectors of `route` (goal first) whose fields this call builds: all but the fields of
    // earlier calls, which are kept. The start sectors' are rebuilt (built before their route,
    // seeded by the search's costs alone).
    std::vector<int> fields_to_build(const std::vector<int>& route, std::uint32_t first_build, RouteStats& stats) const;

    // Phase 7: the route fields, in the order of `todo`, in waves: a sector waits for the sectors
    // beside it (sharing a border) that come before it in the order, and sees the fields of earlier
    // waves. On a job system a sector starts as soon as the neighbours it reads are made
    // (build_levels: no barrier between waves). `refine_passes` more passes rebuild them all the
    // same way. The waves depend only on the order, so the fields do not depend on the number of
    // threads.
    void build_route_fields(const std::vector<int>& todo, RouteStats& stats);

    // Repair after terrain edits (plan_repair.cpp), terrain_changed()'s phases.

    // The least value a path through the edited cells (`edit`, the edit's rectangle grown by one
    // cell, inclusive) can have had: a field's value is the cost of its path, so only fields with
    // values at or above it may have used the edited cells. An edited sector without a field was
    // seen only through its nodes by its neighbours' fields. Two bounds, the smaller wins:
    // - paths that got dearer: a field value is a path cost, so only values at least the least
    //   value a path through the edited cells had can have used them: the edited sectors' fields
    //   (and their neighbours'), and the costs the search gave their nodes (neighbours seed with those);
    // - paths that got cheaper: any new path through the edited cells costs at least the straight
    //   distance from them to the nearest goal at the cheapest cost.
    double edit_threshold(const Rect& edit) const;

    // Drops the fields of the sectors `edit` touches and every field with a value at least `threshold`.
    void drop_fields_above(const Rect& edit, double threshold);

    // After the search restarted: drops the fields with cells they had cut off that now reach a
    // goal (through an opened wall).
    void drop_opened_fields();

    // Settling (settling.cpp): phase 8 of route().

    // The least value a cell of sector `to` (neighbour k of sector `from`) would take through one
    // move onto a cell of from's field, over the cells where that is lower than to's field has
    // now by more than kSettleAbsolute + kSettleRelative x the value; +inf when from's field cannot lower to's.
    double improvement(int from, int to, int k) const;

    // Fills in the value of every offer (improvement()), on the job system when there are many.
    void check_offers(std::vector<Offer>& offers) const;

    // Phase 8, settling: a field built before a neighbour had one was seeded there by the search's
    // node costs, which overestimate the neighbour's field (most where a route passes a sector
    // twice, or turns inside it). A field that one move onto a neighbour's field would lower (by
    // more than the tolerance, see kSettleAbsolute) is queued, its priority the least value it
    // would take that way; queued fields are lowered (make_field's `lower`: only the improving
    // cells are searched) lowest priority first, in waves (next_settle_wave), and each queues the
    // neighbours it would lower in turn: a Dijkstra over sectors, until nothing is queued or the
    // budget (settle_budget x the fields of this call) is spent. Values only drop, so it ends; at
    // its end the fields equal one search over all the route's sectors (up to the tolerance).
    void settle_fields(const std::vector<int>& todo, RouteStats& stats);

    // Takes the next wave of settling out of the queue `work`: lowest priority first, the sectors
    // whose priority lies within kSettleBand sector crossings (at the cheapest cost) of the best
    // and that share no border with one taken before, at most `budget` of them (marked in
    // `in_wave`).
    std::vector<int> next_settle_wave(std::vector<int>& work, const std::vector<double>& prio,
                                      std::vector<std::uint8_t>& in_wave, std::size_t budget) const;
};

}  // namespace tide
