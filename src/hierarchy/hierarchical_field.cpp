// Route-only flow fields over a SectorGraph (see include/tide/hierarchy.hpp, docs/hierarchy.md).
//
// The graph search is a reverse A*: g(node) is the cost from the node to the goals, found from the
// goal sectors (a Dijkstra inside each gives its nodes their cost to the goals) over partner edges
// (one orthogonal move across the border) and intra-sector edges. The heuristic is a lower bound
// of the cost from the sectors units stand in (the targets) to a node; targets can be added later
// (the open list is re-keyed then), so the search resumes instead of starting over. A target is
// done when all its nodes that can reach a goal are settled.
//
// A sector's field is built only once its nodes are settled. Seeds: goals in or next to it, the
// values of the fields of neighbouring sectors along its frame, and for neighbours without a field
// the g of their nodes on the frame. Every seed bounds from above the value the neighbour's field
// has or will have there (a field is never above the g of its nodes, and rebuilding with more
// neighbours only lowers it), so each step of the flow across a border lowers the value by at
// least the move's cost: no loops, whatever the build order (docs/hierarchy.md has the argument).

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include "../grid/always_inline.hpp"
#include "../grid/cell_checks.hpp"
#include "sector_search.hpp"
#include "tide/assert.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

using hier_detail::SectorSearch;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();
// Settling (see route()): a neighbour's field is rebuilt only when one move onto this sector's
// field would lower one of its values by more than kSettleAbsolute + kSettleRelative x the new
// value (smaller gains barely move a path: a path's cost stays within about that fraction of the
// settled one), and a wave takes the queued sectors whose gain lies within kSettleBand sector
// crossings (at the cheapest cost) of the best one, as a Dijkstra over sectors would. A band of 4
// rather than 1 makes the waves wide enough for two threads (the 4096x4096 benchmark query 10%
// faster on two) for the same path quality and 4% more lowerings (docs/performance/hierarchy.md).
constexpr double kSettleAbsolute = 1e-2;
constexpr double kSettleRelative = 1e-2;
constexpr double kSettleBand = 4.0;

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr Vec2 kUnit[kDirectionCount] = {{1, 0},  {kInvSqrt2, kInvSqrt2},   {0, 1},  {-kInvSqrt2, kInvSqrt2},
                                         {-1, 0}, {-kInvSqrt2, -kInvSqrt2}, {0, -1}, {kInvSqrt2, -kInvSqrt2}};

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Rect {
    int x0, y0, x1, y1;  // inclusive
};

// A settling check: how far sector `to`, neighbour k of sector `from`, would drop through one move
// onto from's field (HierarchicalField::State::improvement).
struct Offer {
    int from, to, k;
    double value;
};

// The open list of the graph search: a monotone priority queue (a radix heap) over keys f >= 0,
// compared as the bit patterns of the doubles (which order like the values). With a consistent
// heuristic A* pops keys in non-decreasing order, so a push never goes below the last pop; one
// that would (float rounding of the landmark bounds) is raised to it and comes out next, as a
// binary heap would give it. Pops cost a few bucket moves instead of a heap's log n cache misses
// (a 4096x4096 corner-to-corner search: 32,000 pops from a list of up to 10,000 items).
class RadixQueue {
public:
    bool empty() const noexcept { return size_ == 0; }
    void clear() noexcept {
        for (auto& b : buckets_) b.clear();
        size_ = 0;
        last_ = 0;
        used_ = 0;
    }
    void push(double f, std::int32_t node) {
        const std::uint64_t k = std::max(key(f), last_);
        put({k, node});
        ++size_;
    }
    // Removes and returns a node of least key (the queue must not be empty).
    std::int32_t pop() {
        if (buckets_[0].empty()) {
            // The first bucket with entries, from the mask (a scan of the empty ones was a quarter of
            // the search's instructions: the keys are doubles, so the buckets in use sit ~40 up).
            const std::size_t i = static_cast<std::size_t>(std::countr_zero(used_)) + 1;
            std::vector<Entry>& b = buckets_[i];
            std::uint64_t least = b.front().key;
            for (const Entry& e : b) least = std::min(least, e.key);
            last_ = least;
            used_ &= ~(std::uint64_t{1} << (i - 1));
            for (const Entry& e : b) put(e);  // all to buckets below i
            b.clear();
        }
        const std::int32_t node = buckets_[0].back().node;
        buckets_[0].pop_back();
        --size_;
        return node;
    }
    // Gives every queued node a new key f(node) (which may be lower than the last pop).
    template <class F>
    void rekey(F&& f) {
        scratch_.clear();
        for (auto& b : buckets_) scratch_.insert(scratch_.end(), b.begin(), b.end());
        clear();
        for (const Entry& e : scratch_) push(f(e.node), e.node);
    }
    std::size_t memory_bytes() const noexcept {
        std::size_t n = scratch_.capacity();
        for (const auto& b : buckets_) n += b.capacity();
        return n * sizeof(Entry);
    }

private:
    struct Entry {
        std::uint64_t key;
        std::int32_t node;
    };
    static std::uint64_t key(double f) noexcept { return f > 0.0 ? std::bit_cast<std::uint64_t>(f) : 0; }
    void put(const Entry& e) {
        const std::size_t i = index(e.key);
        buckets_[i].push_back(e);
        if (i > 0) used_ |= std::uint64_t{1} << (i - 1);
    }
    std::size_t index(std::uint64_t k) const noexcept {
        return k == last_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(k ^ last_));
    }
    std::array<std::vector<Entry>, 65> buckets_;
    std::vector<Entry> scratch_;
    std::uint64_t last_ = 0;
    std::uint64_t used_ = 0;  // bit i - 1: bucket i (1..64) has entries
    std::size_t size_ = 0;
};

}  // namespace

struct HierarchicalField::State {
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
    RadixQueue open;
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

    bool in_goal_comp(std::int32_t n) const {
        const std::int32_t c = graph->component(n);
        return c >= 0 && static_cast<std::size_t>(c) < goal_comp.size() && goal_comp[static_cast<std::size_t>(c)];
    }

    double heuristic(Cell c) const {
        // Least possible cost from a cell of the target rectangles to c.
        const double lo = graph->cheapest_cost();
        const double diag = graph->config().params.diagonal_factor;
        const bool eight = graph->config().params.connectivity == Connectivity::eight;
        auto bound = [&](const Rect& r) {
            const int dx = std::max({0, r.x0 - c.x, c.x - r.x1});
            const int dy = std::max({0, r.y0 - c.y, c.y - r.y1});
            if (!eight) return lo * (dx + dy);
            const int a = std::max(dx, dy), b = std::min(dx, dy);
            return lo * ((a - b) + diag * b);
        };
        double best = kInf;
        if (target_rects.size() > 16) {
            best = bound(target_box);
        } else {
            for (const Rect& r : target_rects) best = std::min(best, bound(r));
        }
        if (best == kInf) best = 0.0;
        return best;
    }

    // The heuristic of node n: the larger of the straight-distance bound and the landmark bounds:
    // for a target t and landmark l, cost(t -> n) >= cost(t -> l) - cost(n -> l) and
    // >= cost(l -> n) - cost(l -> t); taking the least over the targets per landmark keeps each
    // bound a potential (consistent), and so is their maximum. A margin of 1e-6 x the costs covers
    // the rounding of the stored costs (floats) and of this float arithmetic (a few ulps, 2e-7).
    double node_heuristic(std::int32_t n) const {
        const double best = heuristic(graph->nodes()[static_cast<std::size_t>(n)].cell);
        const float* const to = graph->to_landmarks(n);
        const float* const from = graph->from_landmarks(n);
        const int L = graph->landmark_count();
        const float lm = L == 8 ? landmark_bound<8>(to, from, L) : landmark_bound<0>(to, from, L);
        return std::max(best, static_cast<double>(lm));
    }

    // The landmark bounds in float lanes, without tests (with them they were a fifth of the
    // search's instructions): a bound that does not hold comes out as -inf or NaN, which
    // `acc < b ? b : acc` leaves out (a vector max keeps its second operand on NaN). to_min is +inf
    // where no target reaches landmark l (inf - inf: NaN), from_max +inf where none is reached from
    // it; a node that cannot reach l (to = +inf) gives -inf, one l cannot reach (from = +inf) NaN.
    // N > 0: exactly N landmarks, a count fixed at compile time (the default 8), which lets the
    // compiler use vector lanes; N = 0: `count` of them.
    template <int N>
    float landmark_bound(const float* to, const float* from, int count) const {
        const int L = N > 0 ? N : count;
        const float* const to_min = lm_to_min.data();
        const float* const from_max = lm_from_eff.data();
        float acc[N > 0 ? N : kMaxLandmarks];
        for (int l = 0; l < L; ++l) {
            const float a = (to_min[l] - to[l]) - 1e-6f * (to_min[l] + to[l]);
            const float b = (from[l] - from_max[l]) - 1e-6f * (from_max[l] + from[l]);
            float m = -kInfF;
            m = m < a ? a : m;
            m = m < b ? b : m;
            acc[l] = m;
        }
        float r = -kInfF;
        for (int l = 0; l < L; ++l) r = r < acc[l] ? acc[l] : r;
        return r;
    }

    void push(std::int32_t n) {
        open.push(g[static_cast<std::size_t>(n)] + h(n), n);
        // The row of costs into n, read when n is settled: the search crosses the map, so it was
        // rarely in cache by then (a quarter of the search's perf samples on that one load; the
        // prefetch takes about 3% off the search).
        const int s = graph->node_sector(n);
        const std::int32_t base = graph->node_begin(s), count = graph->node_begin(s + 1) - base;
        const float* row = graph->intra_costs(s).data() + static_cast<std::size_t>(n - base) * count;
        TIDE_PREFETCH(row);
        TIDE_PREFETCH(row + count - 1);
    }

    void start() {
        if (started) return;
        started = true;
        const std::size_t n = graph->nodes().size();
        g.assign(n, kInf);
        next.assign(n, -1);
        settled.assign(n, 0);
        goal_comp.assign(n, 0);
        h_cache.assign(n, 0.0);
        h_stamp.assign(n, 0);
        lm_to_min.assign(static_cast<std::size_t>(graph->landmark_count()), kInfF);
        lm_from_max.assign(static_cast<std::size_t>(graph->landmark_count()), -kInfF);
        refresh_from_bounds();
        ++h_gen;
        open.clear();
        const int sc = graph->sector_count();
        target.assign(static_cast<std::size_t>(sc), 0);
        unsettled.assign(static_cast<std::size_t>(sc), 0);
        target_rects.clear();
        target_box = {0, 0, -1, -1};
        pending = 0;
        settled_count = 0;
        const auto& cfg = graph->config();
        for (int s : goal_sectors) {
            int x0, y0, x1, y1;
            graph->sector_rect(s, x0, y0, x1, y1);
            search.load(*cost, x0, y0, x1, y1, cfg.params);
            seed_goals(s);
            search.run();
            for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
                const Cell c = graph->nodes()[static_cast<std::size_t>(i)].cell;
                const double v = search.value(search.local(c.x, c.y));
                if (v < g[static_cast<std::size_t>(i)]) {
                    g[static_cast<std::size_t>(i)] = v;
                    next[static_cast<std::size_t>(i)] = -1;
                    note_g(s, v);
                }
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (g[i] == kInf) continue;
            goal_comp[static_cast<std::size_t>(graph->component(static_cast<std::int32_t>(i)))] = 1;
            push(static_cast<std::int32_t>(i));
        }
    }

    void note_g(int sec, double v) {
        if (sector_min_g.size() != fields.size()) sector_min_g.assign(fields.size(), kInf);
        sector_min_g[static_cast<std::size_t>(sec)] = std::min(sector_min_g[static_cast<std::size_t>(sec)], v);
    }

    // Seeds (value 0) the goals in sector s or in its frame (the loaded search must be s).
    void seed_goals(int s) { seed_goals(s, search); }
    void seed_goals(int s, SectorSearch& search) const {
        const int sx = s % graph->sectors_x(), sy = s / graph->sectors_x();
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const int tx = sx + dx, ty = sy + dy;
                if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
                for (const Cell& c : goals_by_sector[static_cast<std::size_t>(ty * graph->sectors_x() + tx)]) {
                    search.seed(c.x, c.y, 0.0);
                }
            }
        }
    }

    // Makes the search settle every goal-reaching node of sector s. With `guide`, s also becomes a
    // place the heuristic aims at (the sectors units stand in); corridor sectors are settled
    // without changing the heuristic, which widening it to them would weaken for little gain.
    void add_target(int s, bool guide = true) {
        if (target[static_cast<std::size_t>(s)]) return;
        target[static_cast<std::size_t>(s)] = 1;
        if (!guide) {
            std::int32_t count = 0;
            for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
                if (in_goal_comp(i) && !settled[static_cast<std::size_t>(i)]) ++count;
            }
            unsettled[static_cast<std::size_t>(s)] = count;
            if (count > 0) ++pending;
            return;
        }
        stale_keys = true;
        int x0, y0, x1, y1;
        graph->sector_rect(s, x0, y0, x1, y1);
        const Rect r{x0, y0, x1 - 1, y1 - 1};
        target_rects.push_back(r);
        if (target_box.x1 < target_box.x0) {
            target_box = r;
        } else {
            target_box = {std::min(target_box.x0, r.x0), std::min(target_box.y0, r.y0), std::max(target_box.x1, r.x1),
                          std::max(target_box.y1, r.y1)};
        }
        std::int32_t count = 0;
        const int L = graph->landmark_count();
        for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
            if (!in_goal_comp(i)) continue;
            if (!settled[static_cast<std::size_t>(i)]) ++count;
            for (int l = 0; l < L; ++l) {
                const float to = graph->to_landmark(i, l), from = graph->from_landmark(i, l);
                if (to < kInfF)
                    lm_to_min[static_cast<std::size_t>(l)] = std::min(lm_to_min[static_cast<std::size_t>(l)], to);
                if (from < kInfF)
                    lm_from_max[static_cast<std::size_t>(l)] = std::max(lm_from_max[static_cast<std::size_t>(l)], from);
            }
        }
        refresh_from_bounds();
        unsettled[static_cast<std::size_t>(s)] = count;
        if (count > 0) ++pending;
    }

    void refresh_from_bounds() {
        lm_from_eff.resize(lm_from_max.size());
        for (std::size_t l = 0; l < lm_from_max.size(); ++l)
            lm_from_eff[l] = lm_from_max[l] > -kInfF ? lm_from_max[l] : kInfF;
    }

    // After targets were added (the heuristic can only have dropped): re-key the open list.
    void rekey() {
        if (!stale_keys) return;
        stale_keys = false;
        ++h_gen;
        open.rekey([&](std::int32_t n) { return g[static_cast<std::size_t>(n)] + h(n); });
    }

    // The heuristic of node n for the current targets (cached).
    double h(std::int32_t n) {
        if (h_stamp[static_cast<std::size_t>(n)] != h_gen) {
            h_stamp[static_cast<std::size_t>(n)] = h_gen;
            h_cache[static_cast<std::size_t>(n)] = node_heuristic(n);
        }
        return h_cache[static_cast<std::size_t>(n)];
    }

    // Settles nodes until every target's goal-reaching nodes are settled.
    void search_targets() {
        while (pending > 0 && !open.empty()) {
            const std::int32_t v = open.pop();
            if (settled[static_cast<std::size_t>(v)]) continue;
            settled[static_cast<std::size_t>(v)] = 1;
            ++settled_count;
            const int s = graph->node_sector(v);
            if (target[static_cast<std::size_t>(s)] && in_goal_comp(v) &&
                --unsettled[static_cast<std::size_t>(s)] == 0) {
                --pending;
            }
            const double gv = g[static_cast<std::size_t>(v)];
            // Across the border: the partner moves orthogonally into v.
            const std::int32_t p = graph->nodes()[static_cast<std::size_t>(v)].partner;
            if (!settled[static_cast<std::size_t>(p)]) {
                const double nvp = gv + graph->node_cost(v);
                if (nvp < g[static_cast<std::size_t>(p)]) {
                    g[static_cast<std::size_t>(p)] = nvp;
                    note_g(graph->node_sector(p), nvp);
                    next[static_cast<std::size_t>(p)] = v;
                    push(p);
                }
            }
            // Inside the sector.
            const std::int32_t base = graph->node_begin(s), count = graph->node_begin(s + 1) - base;
            const float* intra = graph->intra_costs(s).data();
            const float* const into_v = intra + static_cast<std::size_t>(v - base) * count;  // costs u -> v
            for (std::int32_t i = 0; i < count; ++i) {
                const std::int32_t u = base + i;
                // One test instead of three branches (settled, unreachable, not better), which
                // mispredicted; +inf costs give +inf, which is never below g.
                const double nu = gv + static_cast<double>(into_v[i]);
                if ((settled[static_cast<std::size_t>(u)] == 0) & (nu < g[static_cast<std::size_t>(u)])) {
                    g[static_cast<std::size_t>(u)] = nu;
                    note_g(s, nu);
                    next[static_cast<std::size_t>(u)] = v;
                    push(u);
                }
            }
        }
    }

    // The node a unit entering field-less sector `sec` at cell c heads for: the one minimising
    // (cost from c to it inside the sector + its g), found by a search in the sector seeded with
    // the nodes' g (and the goals). A sector can have parts that do not connect inside it, so the
    // nearest node with a low g may not be reachable from c at all. -1: a goal, or no node.
    std::int32_t entry_node(int sec, Cell c) {
        int x0, y0, x1, y1;
        graph->sector_rect(sec, x0, y0, x1, y1);
        search.load(*cost, x0, y0, x1, y1, graph->config().params);
        seed_goals(sec);
        const auto nodes = graph->nodes();
        const std::int32_t b = graph->node_begin(sec), e = graph->node_begin(sec + 1);
        for (std::int32_t i = b; i < e; ++i) {
            const Cell nc = nodes[static_cast<std::size_t>(i)].cell;
            if (g[static_cast<std::size_t>(i)] < kInf) search.seed(nc.x, nc.y, g[static_cast<std::size_t>(i)]);
        }
        if (c.x < x0 || c.y < y0 || c.x >= x1 || c.y >= y1 || !cost->passable(c.x, c.y)) return -1;
        const std::int32_t stop = search.local(c.x, c.y);
        search.run(std::span<const std::int32_t>(&stop, 1));
        int x = c.x, y = c.y;
        for (int steps = 0; steps < (x1 - x0) * (y1 - y0); ++steps) {
            const double v = search.value(search.local(x, y));
            if (!(v < kInf) || v == 0.0) return -1;
            for (std::int32_t i = b; i < e; ++i) {
                const Cell nc = nodes[static_cast<std::size_t>(i)].cell;
                if (nc.x == x && nc.y == y && v <= g[static_cast<std::size_t>(i)] + 1e-3) return i;
            }
            const int d = search.move(search.local(x, y));
            x += kDirectionDx[d];
            y += kDirectionDy[d];
            if (x < x0 || y < y0 || x >= x1 || y >= y1) return -1;
        }
        return -1;
    }

    // The least value a cell of sector `to` (neighbour k of sector `from`) would take through one
    // move onto a cell of from's field, over the cells where that is lower than to's field has
    // now by more than kSettleAbsolute + kSettleRelative x the value; +inf when from's field cannot lower to's.
    double improvement(int from, int to, int k) const {
        const SectorField* a = fields[static_cast<std::size_t>(from)].get();
        const SectorField* b = fields[static_cast<std::size_t>(to)].get();
        if (a == nullptr || b == nullptr) return kInf;
        const double diag = graph->config().params.diagonal_factor;
        const bool eight = graph->config().params.connectivity == Connectivity::eight;
        // from's cells next to `to`: one column or row for a shared border, a corner otherwise.
        const int dx = kDirectionDx[k], dy = kDirectionDy[k];
        const int ax0 = dx > 0 ? a->x0 + a->width - 1 : a->x0, ax1 = dx < 0 ? a->x0 : a->x0 + a->width - 1;
        const int ay0 = dy > 0 ? a->y0 + a->height - 1 : a->y0, ay1 = dy < 0 ? a->y0 : a->y0 + a->height - 1;
        // Every cell read here is on the map (in a's or b's rectangle): no bounds checks.
        const Cost* const cells = cost->cells().data();
        const std::size_t mw = static_cast<std::size_t>(cost->width());
        auto at = [&](int x, int y) { return cells[static_cast<std::size_t>(y) * mw + static_cast<std::size_t>(x)]; };
        // The moves from a cell of a into b: across a shared border the three that cross it
        // (diagonals only with eight directions), into a corner sector the one diagonal.
        int moves[3];
        int n_moves = 0;
        for (int m = 0; m < kDirectionCount; ++m) {
            if ((m & 1) != 0 && !eight) continue;
            if ((dx == 0 || kDirectionDx[m] == dx) && (dy == 0 || kDirectionDy[m] == dy)) moves[n_moves++] = m;
        }
        // Walls and unreached cells are scattered along a border: the tests are folded into one
        // select per move instead of branches (which mispredicted: 2% of a cold 4096x4096 query).
        // An unreached cell of a has +inf, whose offer compares false on its own.
        double best = kInf;
        for (int y = ay0; y <= ay1; ++y) {
            for (int x = ax0; x <= ax1; ++x) {
                const double v = a->integration[static_cast<std::size_t>(y - a->y0) * a->width + (x - a->x0)];
                const Cost cx = at(x, y);
                for (int i = 0; i < n_moves; ++i) {
                    const int m = moves[i];
                    const int px = x + kDirectionDx[m], py = y + kDirectionDy[m];  // a cell of `to`?
                    if (px < b->x0 || py < b->y0 || px >= b->x0 + b->width || py >= b->y0 + b->height) continue;
                    const bool diagonal = (m & 1) != 0;
                    const bool open = (at(px, py) != kCostWall) &
                                      ((!diagonal) | ((at(x, py) != kCostWall) & (at(px, y) != kCostWall)));
                    const double w = b->integration[static_cast<std::size_t>(py - b->y0) * b->width + (px - b->x0)];
                    const double c = v + (diagonal ? diag : 1.0) * cx;
                    const bool lower = open & (c < w - kSettleAbsolute - kSettleRelative * c);
                    const std::uint64_t use = std::uint64_t{0} - static_cast<std::uint64_t>(lower);
                    best = std::min(best, std::bit_cast<double>((std::bit_cast<std::uint64_t>(c) & use) |
                                                                (std::bit_cast<std::uint64_t>(kInf) & ~use)));
                }
            }
        }
        return best;
    }

    void ensure_settled(int s) {
        start();
        add_target(s);
        rekey();
        search_targets();
    }

    // Stores f as sector s's field; false when it equals the field it replaces.
    bool store(int s, std::unique_ptr<SectorField> f) {
        f->build = ++builds;
        auto& slot = fields[static_cast<std::size_t>(s)];
        const bool same = slot && slot->integration == f->integration && slot->directions == f->directions;
        if (slot) {
            bytes -= slot->integration.capacity() * sizeof(float) + slot->directions.capacity();
        } else {
            ++built;
        }
        bytes += f->integration.capacity() * sizeof(float) + f->directions.capacity();
        slot = std::move(f);
        return !same;
    }

    // Builds (or rebuilds) the field of sector s; its nodes must be settled. False when a rebuild
    // changed nothing.
    bool build_field(int s) { return store(s, make_field(s, search)); }

    // The field of sector s from the fields and costs there are now (reads only: fields of
    // sectors that are not neighbours of each other can be made at once).
    // With `lower`, the field starts from the sector's current one and only lowers it (settling:
    // its seeds only dropped since), which touches only the cells that improve.
    std::unique_ptr<SectorField> make_field(int s, SectorSearch& search, bool lower = false) const {
        return make_field(s, search, lower, [&](int t) { return fields[static_cast<std::size_t>(t)].get(); });
    }
    // The same, reading neighbour t's field as around(t) (the dependency-ordered builds hand in
    // the fields as a wave-by-wave build would see them).
    template <class Around>
    std::unique_ptr<SectorField> make_field(int s, SectorSearch& search, bool lower, const Around& around) const {
        TIDE_ASSERT(unsettled_goal_nodes(s) == 0);  // a field is built only once its nodes are settled
        const auto& cfg = graph->config();
        int x0, y0, x1, y1;
        graph->sector_rect(s, x0, y0, x1, y1);
        search.load(*cost, x0, y0, x1, y1, cfg.params);
        if (lower) {
            const SectorField* old = fields[static_cast<std::size_t>(s)].get();
            TIDE_ASSERT(old != nullptr);
            search.preset(old->integration, old->directions);
        }
        seed_goals(s, search);
        const int sx = s % graph->sectors_x(), sy = s / graph->sectors_x();
        std::uint16_t mask = 0;
        for (int k = 0; k < kDirectionCount; ++k) {
            const int tx = sx + kDirectionDx[k], ty = sy + kDirectionDy[k];
            if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
            const int t = ty * graph->sectors_x() + tx;
            // The part of s's frame inside t.
            int tx0, ty0, tx1, ty1;
            graph->sector_rect(t, tx0, ty0, tx1, ty1);
            const int fx0 = std::max(tx0, x0 - 1), fx1 = std::min(tx1, x1 + 1);
            const int fy0 = std::max(ty0, y0 - 1), fy1 = std::min(ty1, y1 + 1);
            if (const SectorField* f = around(t)) {
                mask |= static_cast<std::uint16_t>(1u << k);
                for (int y = fy0; y < fy1; ++y) {
                    for (int x = fx0; x < fx1; ++x) {
                        const float v = f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
                        if (v < std::numeric_limits<float>::infinity()) search.seed(x, y, v);
                    }
                }
            } else {
                // No field there yet: its nodes on the frame, with their cost to the goals; along
                // a shared border also the cells beside them, at that cost plus the walk along the
                // border to the node (a real path, so still a bound from above).
                const bool side = (k & 1) == 0;  // E, S, W, N share a border with s
                for (std::int32_t i = graph->node_begin(t); i < graph->node_begin(t + 1); ++i) {
                    const Cell c = graph->nodes()[static_cast<std::size_t>(i)].cell;
                    if (c.x < fx0 || c.x >= fx1 || c.y < fy0 || c.y >= fy1) continue;
                    const double gi = g[static_cast<std::size_t>(i)];
                    if (!(gi < kInf)) continue;
                    search.seed(c.x, c.y, gi);
                    if (!side) continue;
                    const int ax = kDirectionDy[k] != 0 ? 1 : 0, ay = 1 - ax;  // along the border
                    for (int dir = -1; dir <= 1; dir += 2) {
                        double acc = gi;
                        Cell prev = c;
                        for (;;) {
                            const Cell nc{prev.x + dir * ax, prev.y + dir * ay};
                            if (nc.x < fx0 || nc.x >= fx1 || nc.y < fy0 || nc.y >= fy1 || !cost->passable(nc.x, nc.y))
                                break;
                            acc += cost->at(prev);  // nc -> prev enters prev
                            search.seed(nc.x, nc.y, acc);
                            prev = nc;
                        }
                    }
                }
            }
        }
        search.run();
        auto f = std::make_unique<SectorField>();
        f->x0 = x0;
        f->y0 = y0;
        f->width = x1 - x0;
        f->height = y1 - y0;
        if (lower) {
            // A lowering changes the cells it settles only (a few hundred of 4,096 while settling):
            // the old field with those written over, instead of every cell converted again.
            const SectorField* old = fields[static_cast<std::size_t>(s)].get();
            f->integration = old->integration;
            f->directions = old->directions;
            search.write_lowered(f->integration, f->directions);
        } else {
            const std::size_t cells = static_cast<std::size_t>(f->width) * f->height;
            f->integration.resize(cells);
            f->directions.resize(cells);
            search.write_field(f->integration, f->directions);
        }
        f->seeded_from = mask;
        return f;
    }

    // Builds the fields of `wave` (no two share a border) at once on the job system, then stores
    // them in order.
    void build_wave(const std::vector<int>& wave, bool lower = false) {
        std::vector<std::unique_ptr<SectorField>> made(wave.size());
        if (jobs == nullptr || wave.size() < 2) {
            for (std::size_t i = 0; i < wave.size(); ++i) made[i] = make_field(wave[i], search, lower);
        } else {
            auto task = [&](std::size_t b, std::size_t e) {
                std::unique_ptr<SectorSearch> own = take_search();
                for (std::size_t i = b; i < e; ++i) made[i] = make_field(wave[i], *own, lower);
                give_search(std::move(own));
            };
            parallel_for(*jobs, wave.size(), 1, task);
        }
        for (std::size_t i = 0; i < wave.size(); ++i) store(wave[i], std::move(made[i]));
    }

    // Fills in the value of every offer (improvement()), on the job system when there are many.
    void check_offers(std::vector<Offer>& offers) const {
        auto task = [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i)
                offers[i].value = improvement(offers[i].from, offers[i].to, offers[i].k);
        };
        constexpr std::size_t kGrain = 16;  // a check takes about a microsecond
        if (jobs == nullptr || jobs->max_concurrency() < 2 || offers.size() < 2 * kGrain) {
            task(0, offers.size());
        } else {
            parallel_for(*jobs, offers.size(), kGrain, task);
        }
    }

    // Builds the fields of the waves `by_wave` (`level`: each sector's wave), as build_wave one
    // wave after the other would, but on the job system without a barrier between waves: a sector
    // starts as soon as the neighbours it reads (those of earlier waves, diagonal ones too) are
    // made. It reads those as made now and every other neighbour as it was before, so it makes the
    // same field as wave by wave; the fields are stored in wave order once all are made. A route
    // is a chain of waves of one to three sectors, so the barriers left a thread idle for much of
    // each wave.
    void build_levels(const std::vector<std::vector<int>>& by_wave, const std::vector<int>& level) {
        if (jobs == nullptr || jobs->max_concurrency() < 2) {
            for (const auto& wave : by_wave) build_wave(wave);
            return;
        }
        std::vector<int> items;
        for (const auto& wave : by_wave) items.insert(items.end(), wave.begin(), wave.end());
        const std::size_t n = items.size();
        if (slot_of.size() != fields.size()) slot_of.assign(fields.size(), -1);
        for (std::size_t i = 0; i < n; ++i) slot_of[static_cast<std::size_t>(items[i])] = static_cast<std::int32_t>(i);
        LevelWaits w = level_waits(items, level);
        std::vector<std::unique_ptr<SectorField>> made(n);
        // Ready items, the longest chain of items waiting behind it first, then in wave order.
        auto later = [&](std::int32_t a, std::int32_t b) {  // heap order: true when a comes after b
            const std::int32_t ta = w.tail[static_cast<std::size_t>(a)], tb = w.tail[static_cast<std::size_t>(b)];
            return ta != tb ? ta < tb : a > b;
        };
        std::vector<std::int32_t> ready;
        for (std::size_t i = 0; i < n; ++i)
            if (w.waiting[i] == 0) ready.push_back(static_cast<std::int32_t>(i));
        std::make_heap(ready.begin(), ready.end(), later);
        std::mutex m;
        std::condition_variable cv;
        std::size_t in_flight = 0;
        std::exception_ptr failure;
        std::atomic<std::uint64_t> events{0};
        auto worker = [&](std::size_t, std::size_t) {
            std::unique_ptr<SectorSearch> own = take_search();
            std::unique_lock<std::mutex> lock(m);
            for (;;) {
                // An item in flight on another thread may make more ready; none in flight and none
                // ready means all are made (or one failed).
                if (ready.empty() && in_flight > 0 && !failure) {
                    // Spin a little before sleeping: the next item is usually a field's build
                    // (about 0.1 ms) away, and waking a sleeping thread costs about as much.
                    const std::uint64_t seen = events.load(std::memory_order_relaxed);
                    lock.unlock();
                    const auto spin_start = std::chrono::steady_clock::now();
                    while (events.load(std::memory_order_acquire) == seen &&
                           std::chrono::steady_clock::now() - spin_start < std::chrono::microseconds(300)) {
                        std::this_thread::yield();
                    }
                    lock.lock();
                }
                cv.wait(lock, [&] { return !ready.empty() || in_flight == 0 || failure; });
                if (ready.empty() || failure) break;
                std::pop_heap(ready.begin(), ready.end(), later);
                const std::int32_t i = ready.back();
                ready.pop_back();
                ++in_flight;
                lock.unlock();
                const int sec = items[static_cast<std::size_t>(i)];
                std::unique_ptr<SectorField> f;
                std::exception_ptr err;
                try {
                    f = make_field(sec, *own, false, [&](int t) -> const SectorField* {
                        const std::int32_t j = slot_of[static_cast<std::size_t>(t)];
                        if (j >= 0 && level[static_cast<std::size_t>(t)] < level[static_cast<std::size_t>(sec)])
                            return made[static_cast<std::size_t>(j)].get();
                        return fields[static_cast<std::size_t>(t)].get();
                    });
                } catch (...) {
                    err = std::current_exception();
                }
                lock.lock();
                --in_flight;
                if (err) {
                    failure = err;
                } else {
                    made[static_cast<std::size_t>(i)] = std::move(f);
                    for (std::int32_t e = w.first[static_cast<std::size_t>(i)];
                         e < w.first[static_cast<std::size_t>(i) + 1]; ++e) {
                        const std::int32_t d = w.after[static_cast<std::size_t>(e)];
                        if (--w.waiting[static_cast<std::size_t>(d)] == 0) {
                            ready.push_back(d);
                            std::push_heap(ready.begin(), ready.end(), later);
                        }
                    }
                }
                events.fetch_add(1, std::memory_order_release);
                cv.notify_all();
            }
            lock.unlock();
            give_search(std::move(own));
        };
        const std::size_t workers = static_cast<std::size_t>(jobs->max_concurrency());
        parallel_for(*jobs, std::min(workers, n), 1, worker);
        for (int sec : items) slot_of[static_cast<std::size_t>(sec)] = -1;
        if (failure) std::rethrow_exception(failure);
        for (std::size_t i = 0; i < n; ++i) {
            TIDE_ASSERT(made[i] != nullptr);
            store(items[i], std::move(made[i]));
        }
    }

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
    LevelWaits level_waits(const std::vector<int>& items, const std::vector<int>& level) const {
        const std::size_t n = items.size();
        const int sxc = graph->sectors_x(), syc = graph->sectors_y();
        auto earlier = [&](int sec, int k) -> std::int32_t {  // slot of neighbour k when it comes first
            const int tx = sec % sxc + kDirectionDx[k], ty = sec / sxc + kDirectionDy[k];
            if (tx < 0 || ty < 0 || tx >= sxc || ty >= syc) return -1;
            const int t = ty * sxc + tx;
            const std::int32_t j = slot_of[static_cast<std::size_t>(t)];
            return j >= 0 && level[static_cast<std::size_t>(t)] < level[static_cast<std::size_t>(sec)] ? j : -1;
        };
        LevelWaits w;
        w.waiting.assign(n, 0);
        w.first.assign(n + 1, 0);
        for (std::size_t i = 0; i < n; ++i) {
            for (int k = 0; k < kDirectionCount; ++k) {
                const std::int32_t j = earlier(items[i], k);
                if (j < 0) continue;
                ++w.waiting[i];
                ++w.first[static_cast<std::size_t>(j) + 1];
            }
        }
        for (std::size_t j = 0; j < n; ++j) w.first[j + 1] += w.first[j];
        w.after.resize(static_cast<std::size_t>(w.first[n]));
        std::vector<std::int32_t> fill(w.first.begin(), w.first.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            for (int k = 0; k < kDirectionCount; ++k) {
                const std::int32_t j = earlier(items[i], k);
                if (j >= 0)
                    w.after[static_cast<std::size_t>(fill[static_cast<std::size_t>(j)]++)] =
                        static_cast<std::int32_t>(i);
            }
        }
        w.tail.assign(n, 0);
        for (std::size_t i = n; i-- > 0;) {
            for (std::int32_t e = w.first[i]; e < w.first[i + 1]; ++e)
                w.tail[i] =
                    std::max(w.tail[i], w.tail[static_cast<std::size_t>(w.after[static_cast<std::size_t>(e)])] + 1);
        }
        return w;
    }

    std::unique_ptr<SectorSearch> take_search() {
        std::lock_guard<std::mutex> lock(pool_mutex);
        if (pool.empty()) return std::make_unique<SectorSearch>();
        std::unique_ptr<SectorSearch> own = std::move(pool.back());
        pool.pop_back();
        return own;
    }
    void give_search(std::unique_ptr<SectorSearch> own) {
        std::lock_guard<std::mutex> lock(pool_mutex);
        pool.push_back(std::move(own));
    }

    std::int32_t unsettled_goal_nodes(int s) const {
        std::int32_t count = 0;
        for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
            count += !settled[static_cast<std::size_t>(i)] && in_goal_comp(i);
        }
        return count;
    }

    void drop(int s) {
        auto& f = fields[static_cast<std::size_t>(s)];
        if (!f) return;
        bytes -= f->integration.capacity() * sizeof(float) + f->directions.capacity();
        f.reset();
        --built;
    }

    const SectorField* field_at(int x, int y) const {
        return fields[static_cast<std::size_t>(graph->sector_of(x, y))].get();
    }

    // route()'s phases, in the order it runs them.

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

    // Sector neighbour k (kDirectionDx, kDirectionDy) of sector sec; -1 off the map.
    int neighbour(int sec, int k) const {
        const int sxc = graph->sectors_x();
        const int tx = sec % sxc + kDirectionDx[k], ty = sec / sxc + kDirectionDy[k];
        return tx < 0 || ty < 0 || tx >= sxc || ty >= graph->sectors_y() ? -1 : ty * sxc + tx;
    }

    // A unit standing on cell c needs a route: its sector has no field, or one built alone
    // (ensure_field), whose way on may lead into sectors without a field yet.
    bool needs_work(Cell c) const {
        const SectorField* f = fields[static_cast<std::size_t>(graph->sector_of(c.x, c.y))].get();
        return f == nullptr || !f->routed;
    }

    // Every start stands where fields of earlier routes are: route() has nothing to do (the common
    // case once a group is on its way: it is called every tick).
    bool routed_already(std::span<const Cell> starts) const {
        if (!started) return false;
        for (const Cell& c : starts) {
            if (needs_work(c)) return false;
        }
        return true;
    }

    // Phase 1: the search settles the start sectors' nodes, aimed at them.
    void settle_start_nodes(const std::vector<int>& start_sectors) {
        start();
        for (int sec : start_sectors) add_target(sec);
        rekey();
        search_targets();
    }

    // Phase 2: the start sectors' fields that do not exist yet, from the search's costs alone (so
    // units move at once; phase 7 rebuilds them with their route neighbours).
    void build_start_fields(const std::vector<int>& start_sectors, std::chrono::steady_clock::time_point t0,
                            RouteStats& stats) {
        for (int sec : start_sectors) {
            if (fields[static_cast<std::size_t>(sec)]) continue;
            build_field(sec);
            if (stats.first_field_ms == 0.0) stats.first_field_ms = ms_since(t0);
            ++stats.fields_built;
        }
    }

    // Phase 3a: the start cells to trace: those that needed work or stand in a field this call
    // built, at most 32 per sector (units of one sector share most of their way).
    std::vector<Cell> cells_to_trace(std::span<const Cell> starts, std::uint32_t first_build) const {
        std::vector<Cell> cells;
        for (const Cell& c : starts) {
            const SectorField* f = fields[static_cast<std::size_t>(graph->sector_of(c.x, c.y))].get();
            if (needs_work(c) || !f || f->build >= first_build) cells.push_back(c);
        }
        std::sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) {
            const int sa = graph->sector_of(a.x, a.y), sb = graph->sector_of(b.x, b.y);
            return sa != sb ? sa < sb : (a.y != b.y ? a.y < b.y : a.x < b.x);
        });
        cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
        std::vector<Cell> picked;
        for (std::size_t b = 0; b < cells.size();) {
            const int home = graph->sector_of(cells[b].x, cells[b].y);
            std::size_t e = b;
            while (e < cells.size() && graph->sector_of(cells[e].x, cells[e].y) == home) ++e;
            const std::size_t step = (e - b + 31) / 32;
            for (std::size_t i = b; i < e; i += step) picked.push_back(cells[i]);
            b = e;
        }
        return picked;
    }

    // Phase 3b: the route. Each traced cell follows the fields already built (its own sector's at
    // least) to where they end: a goal, or a cell of a sector without a field; from there on, the
    // route is the chain of best next nodes the search found, from the node the cell heads for
    // (entry_node). A trace stops in a sector another trace already entered.
    void trace_routes(RouteWay& way) {
        std::vector<std::uint8_t> traced_into(static_cast<std::size_t>(graph->sector_count()), 0);
        for (const Cell& c0 : way.traced) {
            const int home = graph->sector_of(c0.x, c0.y);
            way.add(home);
            int x = c0.x, y = c0.y;
            for (std::size_t steps = 0; steps <= cost->size(); ++steps) {
                const int sec = graph->sector_of(x, y);
                const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
                if (f == nullptr) {
                    // Entered a sector without a field: continue on the chain of its best node here.
                    way.add(sec);
                    if (traced_into[static_cast<std::size_t>(sec)]) break;
                    traced_into[static_cast<std::size_t>(sec)] = 1;
                    const std::int32_t best = entry_node(sec, Cell{x, y});
                    if (best >= 0) follow_chain(way, best);
                    break;
                }
                if (sec != home) {
                    if (traced_into[static_cast<std::size_t>(sec)]) break;
                    traced_into[static_cast<std::size_t>(sec)] = 1;
                }
                const Direction d = f->directions[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
                if (!is_move(d)) break;
                x += kDirectionDx[static_cast<int>(d)];
                y += kDirectionDy[static_cast<int>(d)];
            }
        }
    }

    // The sectors of the chain of best next nodes from node `from`, up to a goal or a node an
    // earlier chain passed.
    void follow_chain(RouteWay& way, std::int32_t from) const {
        const auto nodes = graph->nodes();
        for (std::int32_t n = from;
             n >= 0 && !way.chain[static_cast<std::size_t>(n)] && g[static_cast<std::size_t>(n)] < kInf;
             n = next[static_cast<std::size_t>(n)]) {
            way.chain[static_cast<std::size_t>(n)] = 1;
            const Cell c = nodes[static_cast<std::size_t>(n)].cell;
            way.add(graph->sector_of(c.x, c.y));
        }
    }

    // Phase 4: where the route turns around a sector corner (two diagonal sectors of a 2 x 2 block
    // on it), the other two sectors of the block join: the best path often cuts that corner. With
    // a corner reach, only corners near the route's way: its chain's nodes and the start cells
    // traced.
    void fill_corners(RouteWay& way) const {
        std::vector<Cell> near;
        if (config.corner_reach >= 0) {
            const auto nodes = graph->nodes();
            for (std::size_t n = 0; n < nodes.size(); ++n)
                if (way.chain[n]) near.push_back(nodes[n].cell);
            near.insert(near.end(), way.traced.begin(), way.traced.end());
        }
        auto near_way = [&](int cx, int cy) {
            if (config.corner_reach < 0) return true;
            for (const Cell& c : near)
                if (std::max(std::abs(c.x - cx), std::abs(c.y - cy)) <= config.corner_reach) return true;
            return false;
        };
        const int side = graph->sector_size();
        const std::size_t count = way.sectors.size();
        for (std::size_t i = 0; i < count; ++i) {
            const int sx = way.sectors[i] % graph->sectors_x(), sy = way.sectors[i] / graph->sectors_x();
            for (int dy = -1; dy <= 1; dy += 2) {
                for (int dx = -1; dx <= 1; dx += 2) {
                    const int tx = sx + dx, ty = sy + dy;
                    if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
                    if (!way.on_route[static_cast<std::size_t>(ty * graph->sectors_x() + tx)]) continue;
                    // The grid point the two sectors share.
                    if (!near_way((sx + (dx > 0 ? 1 : 0)) * side, (sy + (dy > 0 ? 1 : 0)) * side)) continue;
                    way.add(sy * graph->sectors_x() + tx);
                    way.add(ty * graph->sectors_x() + sx);
                }
            }
        }
    }

    // Phase 5: `corridor` rings of neighbours around the route; short routes (cheap, and where a
    // detour weighs most) get one more.
    void widen(RouteWay& way) const {
        const bool short_route = way.sectors.size() <= static_cast<std::size_t>(config.short_route);
        for (int ring = 0; ring < config.corridor + (short_route ? 1 : 0); ++ring) {
            const std::size_t count = way.sectors.size();
            for (std::size_t i = 0; i < count; ++i) {
                for (int k = 0; k < kDirectionCount; ++k) {
                    const int t = neighbour(way.sectors[i], k);
                    if (t >= 0) way.add(t);
                }
            }
        }
    }

    // Phase 6: the search goes on, aimed at the starts still, until every node of the route's
    // sectors is settled: a field is built only then, which is what keeps the values below the
    // search's costs and the flow free of loops.
    void settle_route_nodes(const std::vector<int>& route) {
        for (int sec : route) add_target(sec, false);
        search_targets();
    }

    // The route's sectors goal first: by the least cost to the goals of their nodes (0 for a goal
    // sector), then by index.
    std::vector<int> goal_first(const std::vector<int>& route) const {
        std::vector<double> key(route.size(), kInf);
        for (std::size_t i = 0; i < route.size(); ++i) {
            const int sec = route[i];
            if (!goals_by_sector[static_cast<std::size_t>(sec)].empty()) key[i] = 0.0;
            for (std::int32_t n = graph->node_begin(sec); n < graph->node_begin(sec + 1); ++n) {
                key[i] = std::min(key[i], g[static_cast<std::size_t>(n)]);
            }
        }
        std::vector<std::size_t> order(route.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return key[a] != key[b] ? key[a] < key[b] : route[a] < route[b];
        });
        std::vector<int> sorted;
        sorted.reserve(order.size());
        for (std::size_t i : order) sorted.push_back(route[i]);
        return sorted;
    }

    // The sectors of `route` (goal first) whose fields this call builds: all but the fields of
    // earlier calls, which are kept. The start sectors' are rebuilt (built before their route,
    // seeded by the search's costs alone).
    std::vector<int> fields_to_build(const std::vector<int>& route, std::uint32_t first_build,
                                     RouteStats& stats) const {
        std::vector<int> todo;
        for (int sec : route) {
            const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
            if (f != nullptr && f->build < first_build) continue;
            if (f != nullptr) ++stats.fields_rebuilt;
            todo.push_back(sec);
        }
        return todo;
    }

    // Phase 7: the route fields, in the order of `todo`, in waves: a sector waits for the sectors
    // beside it (sharing a border) that come before it in the order, and sees the fields of earlier
    // waves. On a job system a sector starts as soon as the neighbours it reads are made
    // (build_levels: no barrier between waves). `refine_passes` more passes rebuild them all the
    // same way. The waves depend only on the order, so the fields do not depend on the number of
    // threads.
    void build_route_fields(const std::vector<int>& todo, RouteStats& stats) {
        std::vector<int> level(static_cast<std::size_t>(graph->sector_count()), -1);
        for (int pass = 0; pass <= config.refine_passes; ++pass) {
            int waves = 0;
            for (int sec : todo) {
                int lv = 0;
                for (int k = 0; k < kDirectionCount; k += 2) {
                    const int t = neighbour(sec, k);
                    if (t >= 0) lv = std::max(lv, level[static_cast<std::size_t>(t)] + 1);
                }
                level[static_cast<std::size_t>(sec)] = lv;
                waves = std::max(waves, lv + 1);
            }
            std::vector<std::vector<int>> by_wave(static_cast<std::size_t>(waves));
            for (int sec : todo) by_wave[static_cast<std::size_t>(level[static_cast<std::size_t>(sec)])].push_back(sec);
            build_levels(by_wave, level);
            stats.fields_built += todo.size();
            for (int sec : todo) level[static_cast<std::size_t>(sec)] = -1;
            if (pass > 0) stats.fields_rebuilt += todo.size();
        }
    }

    // Phase 8, settling: a field built before a neighbour had one was seeded there by the search's
    // node costs, which overestimate the neighbour's field (most where a route passes a sector
    // twice, or turns inside it). A field that one move onto a neighbour's field would lower (by
    // more than the tolerance, see kSettleAbsolute) is queued, its priority the least value it
    // would take that way; queued fields are lowered (make_field's `lower`: only the improving
    // cells are searched) lowest priority first, in waves (next_settle_wave), and each queues the
    // neighbours it would lower in turn: a Dijkstra over sectors, until nothing is queued or the
    // budget (settle_budget x the fields of this call) is spent. Values only drop, so it ends; at
    // its end the fields equal one search over all the route's sectors (up to the tolerance).
    void settle_fields(const std::vector<int>& todo, RouteStats& stats) {
        std::vector<std::uint8_t> mine(static_cast<std::size_t>(graph->sector_count()), 0);
        for (int sec : todo) mine[static_cast<std::size_t>(sec)] = 1;
        std::vector<double> prio(mine.size(), kInf);  // least seed value that would lower a queued field
        std::vector<int> work;
        // Offers: neighbour `to` (neighbour k of sector `from`) is queued when from's field would
        // lower it. The checks only read fields, so a batch of them runs on the job system and their
        // results are applied in the batch's order: the same queue as one after the other (about
        // 2,000 checks, 2.5 ms, before the first lowering of a 4096x4096 corner-to-corner query).
        std::vector<Offer> offers;
        auto add_offer = [&](int from, int k) {
            const int to = neighbour(from, k);
            if (to >= 0 && mine[static_cast<std::size_t>(to)]) offers.push_back({from, to, k, kInf});
        };
        auto apply_offers = [&] {
            check_offers(offers);
            for (const Offer& o : offers) {
                if (!(o.value < prio[static_cast<std::size_t>(o.to)])) continue;
                if (prio[static_cast<std::size_t>(o.to)] == kInf) work.push_back(o.to);
                prio[static_cast<std::size_t>(o.to)] = o.value;
            }
            offers.clear();
        };
        for (int sec : todo) {
            for (int k = 0; k < kDirectionCount; ++k) {
                const int t = neighbour(sec, k);
                if (t >= 0 && fields[static_cast<std::size_t>(t)]) add_offer(t, (k + 4) % kDirectionCount);
            }
        }
        apply_offers();
        std::size_t budget = static_cast<std::size_t>(config.settle_budget) * todo.size();
        std::vector<std::uint8_t> in_wave(mine.size(), 0);
        while (!work.empty() && budget > 0) {
            const std::vector<int> wave = next_settle_wave(work, prio, in_wave, budget);
            for (int sec : wave) prio[static_cast<std::size_t>(sec)] = kInf;
            build_wave(wave, true);
            stats.fields_built += wave.size();
            stats.fields_rebuilt += wave.size();
            budget -= wave.size();
            for (int sec : wave) {
                in_wave[static_cast<std::size_t>(sec)] = 0;
                for (int k = 0; k < kDirectionCount; ++k) add_offer(sec, k);
            }
            apply_offers();
        }
    }

    // Takes the next wave of settling out of the queue `work`: lowest priority first, the sectors
    // whose priority lies within kSettleBand sector crossings (at the cheapest cost) of the best
    // and that share no border with one taken before, at most `budget` of them (marked in
    // `in_wave`).
    std::vector<int> next_settle_wave(std::vector<int>& work, const std::vector<double>& prio,
                                      std::vector<std::uint8_t>& in_wave, std::size_t budget) const {
        std::sort(work.begin(), work.end(), [&](int a, int b) {
            const double ka = prio[static_cast<std::size_t>(a)], kb = prio[static_cast<std::size_t>(b)];
            return ka != kb ? ka < kb : a < b;
        });
        std::vector<int> wave, rest;
        const double band =
            prio[static_cast<std::size_t>(work.front())] + kSettleBand * graph->sector_size() * graph->cheapest_cost();
        for (int sec : work) {
            bool free = wave.size() < budget && prio[static_cast<std::size_t>(sec)] <= band;
            for (int k = 0; k < kDirectionCount && free; k += 2) {
                const int t = neighbour(sec, k);
                free = t < 0 || !in_wave[static_cast<std::size_t>(t)];
            }
            if (free) {
                wave.push_back(sec);
                in_wave[static_cast<std::size_t>(sec)] = 1;
            } else {
                rest.push_back(sec);
            }
        }
        work.swap(rest);
        return wave;
    }
};

HierarchicalField::HierarchicalField(std::unique_ptr<State> state) : s_(std::move(state)) {}
HierarchicalField::HierarchicalField(HierarchicalField&&) noexcept = default;
HierarchicalField& HierarchicalField::operator=(HierarchicalField&&) noexcept = default;
HierarchicalField::~HierarchicalField() = default;

Result<void> check_route_config(const RouteConfig& config) {
    if (config.corridor < 0 || config.corridor > 4) {
        return Error{"corridor " + std::to_string(config.corridor) + " is outside 0..4"};
    }
    if (config.corner_reach < -1 || config.corner_reach > kMaxDimension) {
        return Error{"corner reach " + std::to_string(config.corner_reach) + " is outside -1.." +
                     std::to_string(kMaxDimension)};
    }
    if (config.refine_passes < 0 || config.refine_passes > 4) {
        return Error{"refine passes " + std::to_string(config.refine_passes) + " is outside 0..4"};
    }
    if (config.settle_budget < 0 || config.settle_budget > 16) {
        return Error{"settle budget " + std::to_string(config.settle_budget) + " is outside 0..16"};
    }
    if (config.short_route < 0) return Error{"short route " + std::to_string(config.short_route) + " is negative"};
    return {};
}

Result<HierarchicalField> HierarchicalField::create(const CostField& cost, const SectorGraph& graph,
                                                    std::span<const Cell> goals, const RouteConfig& config) {
    if (auto r = check_route_config(config); !r) return r.error();
    if (cost.width() != graph.width() || cost.height() != graph.height()) {
        return Error{"cost field is " + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                     ", the sector graph was built for " + std::to_string(graph.width()) + "x" +
                     std::to_string(graph.height())};
    }
    if (goals.empty()) return Error{"no goal given"};
    for (const Cell& c : goals) {
        if (auto r = detail::check_open_cell(cost, c, "goal"); !r) return r.error();
    }
    auto st = std::make_unique<State>();
    st->cost = &cost;
    st->graph = &graph;
    st->config = config;
    st->jobs = config.jobs;
    st->goals.assign(goals.begin(), goals.end());
    std::sort(st->goals.begin(), st->goals.end(),
              [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    st->goals.erase(std::unique(st->goals.begin(), st->goals.end()), st->goals.end());
    st->goals_by_sector.resize(static_cast<std::size_t>(graph.sector_count()));
    for (const Cell& c : st->goals) {
        auto& list = st->goals_by_sector[static_cast<std::size_t>(graph.sector_of(c.x, c.y))];
        if (list.empty()) st->goal_sectors.push_back(graph.sector_of(c.x, c.y));
        list.push_back(c);
    }
    st->fields.resize(static_cast<std::size_t>(graph.sector_count()));
    HierarchicalField h(std::move(st));
    return h;
}

std::span<const Cell> HierarchicalField::goals() const noexcept {
    return s_->goals;
}
std::size_t HierarchicalField::built_sectors() const noexcept {
    return s_->built;
}
std::size_t HierarchicalField::field_bytes() const noexcept {
    return s_->bytes;
}
double HierarchicalField::diagonal_factor() const noexcept {
    return s_->graph->config().params.diagonal_factor;
}
const SectorGraph& HierarchicalField::graph() const noexcept {
    return *s_->graph;
}
const CostField& HierarchicalField::cost() const noexcept {
    return *s_->cost;
}

std::size_t HierarchicalField::memory_bytes() const noexcept {
    const State& s = *s_;
    return s.bytes + s.g.capacity() * sizeof(double) + s.next.capacity() * sizeof(std::int32_t) + s.settled.capacity() +
           s.goal_comp.capacity() + s.open.memory_bytes() + s.target.capacity() +
           s.unsettled.capacity() * sizeof(std::int32_t) + s.fields.capacity() * sizeof(std::unique_ptr<SectorField>) +
           s.slot_of.capacity() * sizeof(std::int32_t) + s.h_cache.capacity() * sizeof(double) +
           s.h_stamp.capacity() * sizeof(std::uint32_t) + s.sector_min_g.capacity() * sizeof(double) +
           (s.lm_to_min.capacity() + s.lm_from_max.capacity() + s.lm_from_eff.capacity()) * sizeof(float) +
           s.target_rects.capacity() * sizeof(Rect);
}

Result<RouteStats> HierarchicalField::route(std::span<const Cell> starts) {
    State& s = *s_;
    for (const Cell& c : starts) {
        if (!s.cost->contains(c)) return detail::outside_error("start", c, s.cost->width(), s.cost->height());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const SectorGraph& graph = *s.graph;
    RouteStats stats;
    std::vector<int> start_sectors;
    for (const Cell& c : starts) start_sectors.push_back(graph.sector_of(c.x, c.y));
    std::sort(start_sectors.begin(), start_sectors.end());
    start_sectors.erase(std::unique(start_sectors.begin(), start_sectors.end()), start_sectors.end());
    if (s.routed_already(starts)) {
        stats.nodes_settled = s.settled_count;
        return stats;
    }

    // 1-2. The start sectors' nodes, then their fields (so units move at once).
    double search_ms = 0.0, fields_ms = 0.0;
    auto t = std::chrono::steady_clock::now();
    s.settle_start_nodes(start_sectors);
    search_ms += ms_since(t);
    const std::uint32_t first_build = s.builds + 1;
    t = std::chrono::steady_clock::now();
    s.build_start_fields(start_sectors, t0, stats);
    fields_ms += ms_since(t);
    if (stats.first_field_ms == 0.0) stats.first_field_ms = ms_since(t0);

    // 3-5. The route: the sectors the starts' traces cross and the chains of best next nodes they
    // continue on, then corner fill and corridor.
    State::RouteWay way;
    way.on_route.assign(static_cast<std::size_t>(graph.sector_count()), 0);
    way.chain.assign(graph.nodes().size(), 0);
    way.traced = s.cells_to_trace(starts, first_build);
    s.trace_routes(way);
    stats.route_sectors = way.sectors.size();
    if (s.config.fill_corners) s.fill_corners(way);
    s.widen(way);

    // 6-7. Their nodes, then their fields, goal first: each seeded with the fields built before it.
    t = std::chrono::steady_clock::now();
    s.settle_route_nodes(way.sectors);
    search_ms += ms_since(t);
    const std::vector<int> ordered = s.goal_first(way.sectors);
    t = std::chrono::steady_clock::now();
    const std::vector<int> todo = s.fields_to_build(ordered, first_build, stats);
    s.build_route_fields(todo, stats);

    // 8. Settling: fields lowered where a neighbour built later would lower them.
    const auto settle_t0 = std::chrono::steady_clock::now();
    s.settle_fields(todo, stats);
    stats.settle_ms = ms_since(settle_t0);
    for (int sec : way.sectors) s.fields[static_cast<std::size_t>(sec)]->routed = true;
    fields_ms += ms_since(t);
    stats.nodes_settled = s.settled_count;
    stats.search_ms = search_ms;
    stats.fields_ms = fields_ms;
    return stats;
}

const SectorField* HierarchicalField::sector_field(int s) const noexcept {
    if (s < 0 || s >= s_->graph->sector_count()) return nullptr;
    return s_->fields[static_cast<std::size_t>(s)].get();
}

Result<const SectorField*> HierarchicalField::ensure_field(int x, int y) {
    State& s = *s_;
    if (!s.cost->contains(x, y)) return detail::outside_error("cell", {x, y}, s.cost->width(), s.cost->height());
    const int sec = s.graph->sector_of(x, y);
    if (s.fields[static_cast<std::size_t>(sec)] == nullptr) {
        s.ensure_settled(sec);
        s.build_field(sec);
    }
    return s.fields[static_cast<std::size_t>(sec)].get();
}

Direction HierarchicalField::direction(int x, int y) const {
    TIDE_ASSERT(s_->cost->contains(x, y));
    const SectorField* f = s_->field_at(x, y);
    if (f == nullptr) return s_->cost->at(x, y) == kCostWall ? Direction::wall : Direction::unreachable;
    return f->directions[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
}

float HierarchicalField::integration(int x, int y) const {
    TIDE_ASSERT(s_->cost->contains(x, y));
    const SectorField* f = s_->field_at(x, y);
    if (f == nullptr) return kUnreachable;
    return f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
}

bool HierarchicalField::reachable(int x, int y) const {
    State& s = *s_;
    if (!s.cost->passable(x, y)) return false;
    s.start();
    const int sec = s.graph->sector_of(x, y);
    int x0, y0, x1, y1;
    s.graph->sector_rect(sec, x0, y0, x1, y1);
    s.search.load(*s.cost, x0, y0, x1, y1, s.graph->config().params);
    s.search.seed(x, y, 0.0);
    s.search.run();
    for (const Cell& c : s.goals_by_sector[static_cast<std::size_t>(sec)]) {
        if (s.search.value(s.search.local(c.x, c.y)) < kInf) return true;
    }
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const Cell c = s.graph->nodes()[static_cast<std::size_t>(i)].cell;
        if (s.search.value(s.search.local(c.x, c.y)) < kInf && s.in_goal_comp(i)) return true;
    }
    return false;
}

float HierarchicalField::to_go(int x, int y) const {
    const State& s = *s_;
    TIDE_ASSERT(s.cost->contains(x, y));
    if (const SectorField* f = s.field_at(x, y))
        return f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
    if (!s.started || !s.cost->passable(x, y)) return kUnreachable;
    const int sec = s.graph->sector_of(x, y);
    const double lo = s.graph->cheapest_cost();
    double best = kInf;
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const Cell c = s.graph->nodes()[static_cast<std::size_t>(i)].cell;
        const double gi = s.g[static_cast<std::size_t>(i)];
        if (gi < kInf) best = std::min(best, gi + lo * std::max(std::abs(c.x - x), std::abs(c.y - y)));
    }
    return best < kInf ? static_cast<float>(best) : kUnreachable;
}

Vec2 HierarchicalField::coarse_direction(int x, int y) const {
    const State& s = *s_;
    if (!s.started || !s.cost->contains(x, y)) return {};
    const int sec = s.graph->sector_of(x, y);
    const double lo = s.graph->cheapest_cost();
    double best = kInf;
    Cell to{x, y};
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const SectorNode& n = s.graph->nodes()[static_cast<std::size_t>(i)];
        if (!(s.g[static_cast<std::size_t>(i)] < kInf)) continue;
        const double d = lo * std::hypot(n.cell.x - x, n.cell.y - y) + s.g[static_cast<std::size_t>(i)];
        if (d < best) {
            best = d;
            to = n.cell == Cell{x, y} ? s.graph->nodes()[static_cast<std::size_t>(n.partner)].cell : n.cell;
        }
    }
    const float dx = static_cast<float>(to.x - x), dy = static_cast<float>(to.y - y);
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len == 0.0f) return {};
    return {dx / len, dy / len};
}

Vec2 HierarchicalField::blend(Vec2 p) const {
    const int w = s_->cost->width(), h = s_->cost->height();
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(w) && p.y < static_cast<float>(h))) return {};
    const float fx = p.x - 0.5f, fy = p.y - 0.5f;
    const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
    const float tx = fx - static_cast<float>(x0), ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    const int cx[4] = {x0, x0 + 1, x0, x0 + 1};
    const int cy[4] = {y0, y0, y0 + 1, y0 + 1};
    float vx = 0.0f, vy = 0.0f;
    auto cell_vector = [&](int x, int y) -> Vec2 {
        if (s_->field_at(x, y) == nullptr) return s_->cost->passable(x, y) ? coarse_direction(x, y) : Vec2{};
        const Direction d = direction(x, y);
        return is_move(d) ? kUnit[static_cast<int>(d)] : Vec2{};
    };
    for (int i = 0; i < 4; ++i) {
        if (cx[i] < 0 || cy[i] < 0 || cx[i] >= w || cy[i] >= h) continue;
        const Vec2 v = cell_vector(cx[i], cy[i]);
        vx += weight[i] * v.x;
        vy += weight[i] * v.y;
    }
    float len2 = vx * vx + vy * vy;
    if (len2 < 1e-8f) {
        const Vec2 own = cell_vector(static_cast<int>(p.x), static_cast<int>(p.y));
        vx = own.x;
        vy = own.y;
        len2 = vx * vx + vy * vy;
        if (len2 == 0.0f) return {};
    }
    const float inv = 1.0f / std::sqrt(len2);
    return {vx * inv, vy * inv};
}

Result<void> HierarchicalField::terrain_changed(const CostField& cost, int x0, int y0, int x1, int y1) {
    if (cost.width() != s_->graph->width() || cost.height() != s_->graph->height()) {
        return Error{"cost field is " + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                     ", the plan's graph " + std::to_string(s_->graph->width()) + "x" +
                     std::to_string(s_->graph->height())};
    }
    s_->cost = &cost;
    return terrain_changed(x0, y0, x1, y1);
}

Result<void> HierarchicalField::terrain_changed(int x0, int y0, int x1, int y1) {
    State& s = *s_;
    for (const Cell& c : s.goals) {
        if (!s.cost->passable(c.x, c.y))
            return Error{ErrorCode::on_wall, "goal " + detail::cell_text(c) + " is on a wall after the edit"};
    }
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    const SectorGraph& graph = *s.graph;
    x0 = std::clamp(x0 - 1, 0, graph.width() - 1);
    y0 = std::clamp(y0 - 1, 0, graph.height() - 1);
    x1 = std::clamp(x1 + 1, 0, graph.width() - 1);
    y1 = std::clamp(y1 + 1, 0, graph.height() - 1);
    const int n = graph.sector_size();
    auto in_edit = [&](int sec) {
        int fx0, fy0, fx1, fy1;
        graph.sector_rect(sec, fx0, fy0, fx1, fy1);
        return fx1 > x0 && fx0 <= x1 && fy1 > y0 && fy0 <= y1;
    };
    auto min_value = [](const SectorField& f) {
        double m = kInf;
        for (float v : f.integration) m = std::min(m, static_cast<double>(v));
        return m;
    };
    // The least value a path through the edited sectors can have had: a field's value is the cost
    // of its path, so only fields with values at or above it may have used the edited cells. An
    // edited sector without a field was seen only through its nodes by its neighbours' fields.
    // Two bounds, the smaller wins:
    // - paths that got dearer: a field value is a path cost, so only values at least the least
    //   value a path through the edited cells had can have used them: the edited sectors' fields,
    //   and the costs the search gave their nodes (neighbours seed with those);
    // - paths that got cheaper: any new path through the edited cells costs at least the straight
    //   distance from them to the nearest goal at the cheapest cost.
    double threshold = kInf;
    const double lo = graph.cheapest_cost();
    for (int sy = y0 / n; sy <= y1 / n; ++sy) {
        for (int sx = x0 / n; sx <= x1 / n; ++sx) {
            const int sec = sy * graph.sectors_x() + sx;
            if (const SectorField* f = s.fields[static_cast<std::size_t>(sec)].get()) {
                threshold = std::min(threshold, min_value(*f));
            }
            if (sec < static_cast<int>(s.sector_min_g.size())) {
                threshold = std::min(threshold, s.sector_min_g[static_cast<std::size_t>(sec)]);
            }
            for (int k = 0; k < kDirectionCount; ++k) {
                const int tx = sx + kDirectionDx[k], ty = sy + kDirectionDy[k];
                if (tx < 0 || ty < 0 || tx >= graph.sectors_x() || ty >= graph.sectors_y()) continue;
                if (const SectorField* f = s.fields[static_cast<std::size_t>(ty * graph.sectors_x() + tx)].get()) {
                    threshold = std::min(threshold, min_value(*f));
                }
            }
        }
    }
    for (const Cell& c : s.goals) {
        const int dx = std::max({0, x0 - c.x, c.x - x1}), dy = std::max({0, y0 - c.y, c.y - y1});
        threshold = std::min(threshold, lo * std::max(dx, dy));
    }
    auto drop = [&](int sec) { s.drop(sec); };
    for (int sec = 0; sec < graph.sector_count(); ++sec) {
        const SectorField* f = s.fields[static_cast<std::size_t>(sec)].get();
        if (f == nullptr) continue;
        double top = 0.0;
        for (float v : f->integration) {
            if (v < kUnreachable) top = std::max(top, static_cast<double>(v));
        }
        if (in_edit(sec) || top >= threshold) drop(sec);
    }
    // Node indices changed: search again from the goals. Cells a kept field had cut off may now
    // reach a goal through an opened wall: such fields go too. Kept fields may lead into dropped
    // ones: the next route() from their cells routes them again.
    s.started = false;
    s.start();
    for (auto& f : s.fields) {
        if (f) f->routed = false;
    }
    for (int sec = 0; sec < graph.sector_count(); ++sec) {
        const SectorField* f = s.fields[static_cast<std::size_t>(sec)].get();
        if (f == nullptr) continue;
        if (std::find(f->directions.begin(), f->directions.end(), Direction::unreachable) == f->directions.end())
            continue;
        int fx0, fy0, fx1, fy1;
        graph.sector_rect(sec, fx0, fy0, fx1, fy1);
        s.search.load(*s.cost, fx0, fy0, fx1, fy1, graph.config().params);
        s.seed_goals(sec);
        for (std::int32_t i = graph.node_begin(sec); i < graph.node_begin(sec + 1); ++i) {
            const Cell c = graph.nodes()[static_cast<std::size_t>(i)].cell;
            if (s.in_goal_comp(i)) s.search.seed(c.x, c.y, 0.0);
        }
        s.search.run();
        bool opened = false;
        for (int y = fy0; y < fy1 && !opened; ++y) {
            for (int x = fx0; x < fx1 && !opened; ++x) {
                const std::size_t o = static_cast<std::size_t>(y - fy0) * f->width + (x - fx0);
                opened = f->directions[o] == Direction::unreachable && s.search.value(s.search.local(x, y)) < kInf;
            }
        }
        if (opened) drop(sec);
    }
    return {};
}

Result<double> hierarchical_path_cost(HierarchicalField& field, const CostField& cost, Cell start, std::size_t* steps) {
    if (auto r = detail::check_open_cell(cost, start, "start"); !r) return r.error();
    double sum = 0.0;
    int x = start.x, y = start.y;
    const std::size_t limit = cost.size() + 1;
    for (std::size_t k = 0; k <= limit; ++k) {
        auto f = field.ensure_field(x, y);
        if (!f) return f.error();
        const SectorField& sf = **f;
        const Direction d = sf.directions[static_cast<std::size_t>(y - sf.y0) * sf.width + (x - sf.x0)];
        if (d == Direction::goal) {
            if (steps) *steps = k;
            return sum;
        }
        if (!is_move(d)) {
            if (steps) *steps = k;
            return std::numeric_limits<double>::infinity();
        }
        const int m = static_cast<int>(d);
        const double c = cost.at(x + kDirectionDx[m], y + kDirectionDy[m]);
        sum += (m & 1) ? c * field.diagonal_factor() : c;
        x += kDirectionDx[m];
        y += kDirectionDy[m];
    }
    return Error{ErrorCode::internal, "the hierarchical flow from " + detail::cell_text(start) + " loops (a bug)"};
}

}  // namespace tide
