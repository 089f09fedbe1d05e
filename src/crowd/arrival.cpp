// Arrival regions and fill fields; see arrival.hpp and docs/crowd.md ("Arrival regions").

#include "arrival.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <queue>
#include <utility>
#include "../grid/float_to_int.hpp"

namespace tide::detail {
namespace {

constexpr int kMaxWalk = 1 << 14;  // moves a path walk follows at most
// Moves all walks of one refresh follow at most (traffic walks, then entry walks), shared evenly
// by the groups with moving units; each group's units are walked nearest to its goal first. On
// the default map's scenarios the walks stay far below it; 2,000 units on a 1200 x 1200 map with
// paths of a thousand cells took 550 ms a refresh without it.
constexpr std::size_t kWalkBudget = std::size_t{1} << 18;
constexpr int kNarrowCap = 8;   // passages narrower than this (cells, and than the pack) can be plugged by it
constexpr int kFillMargin = 6;  // the fill field reaches this many cells beyond the region's box
constexpr int kMouthReach =
    3;  // a way in: where a path enters the region at most this many cells past a passage in use
constexpr float kPackDensity =
    0.66f;                          // how densely a settled pack stands (measured: 0.855 of the ideal disc's distance)
constexpr int kMouthSpread = 8;     // ways in that lie within a box this many cells a side are one way in
constexpr float kSmallPack = 4.0f;  // packs narrower than this (cells) need no anchor away from the goal
constexpr float kAnchorSlack = 1.5f;   // the anchor is this many cells deeper than the pack's radius
constexpr float kDepthWeight = 1.0f;   // the pack fills a region cell this much sooner per cell of depth
constexpr float kFreeArea = 0.4f;      // a cell with this much disc area of arrived units on it is taken
constexpr float kTakenCost = 50.0f;    // the fill field's extra price of entering a taken cell
constexpr float kNextShare = 0.25f;    // the next places hold this share of the pack more ...
constexpr std::size_t kNextCells = 6;  // ... and this many cells
constexpr float kUnitDiagonal = 1.41421356f;

std::uint32_t hash_cell(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

using Entry = std::pair<float, std::uint32_t>;  // value, cell: the heap pops the least (ties: lowest cell)
using MinHeap = std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>;

}  // namespace

// Goal fields only: their integration is their cost to stop. A plan's sectors without a field yet
// have no value.
float RegionField::value(int x, int y) const {
    return view->integration(x, y);
}

std::uint8_t RegionField::move(int x, int y) const {
    return static_cast<std::uint8_t>(view->direction(x, y));
}

template <class V>
void ArrivalRegions::CellTable<V>::reset(std::size_t expected) {
    std::size_t n = 64;
    while (n < 2 * expected) n *= 2;
    slots.assign(n, V{});
    used = 0;
}

template <class V>
V& ArrivalRegions::CellTable<V>::insert(std::uint32_t cell) {
    if (2 * (used + 1) > slots.size()) {  // keep the load at most one half
        std::vector<V> old = std::move(slots);
        slots.assign(std::max<std::size_t>(64, old.size() * 2), V{});
        const std::size_t mask = slots.size() - 1;
        for (const V& v : old) {
            if (v.key == 0) continue;
            std::size_t i = hash_cell(v.key) & mask;
            while (slots[i].key != 0) i = (i + 1) & mask;
            slots[i] = v;
        }
    }
    const std::uint32_t key = cell + 1;
    const std::size_t mask = slots.size() - 1;
    std::size_t i = hash_cell(key) & mask;
    while (slots[i].key != 0 && slots[i].key != key) i = (i + 1) & mask;
    if (slots[i].key == 0) {
        slots[i].key = key;
        ++used;
    }
    return slots[i];
}

template <class V>
const V* ArrivalRegions::CellTable<V>::find(std::uint32_t cell) const {
    if (slots.empty()) return nullptr;
    const std::uint32_t key = cell + 1;
    const std::size_t mask = slots.size() - 1;
    std::size_t i = hash_cell(key) & mask;
    while (slots[i].key != 0) {
        if (slots[i].key == key) return &slots[i];
        i = (i + 1) & mask;
    }
    return nullptr;
}

constexpr int kAxisDx[4] = {1, 0, 1, 1}, kAxisDy[4] = {0, 1, 1, -1};

// Width of the passage through (x, y): the shortest run of passable cells through it along the
// row, the column or a diagonal (a diagonal run of n cells counts as n x 1.41), capped at `cap`;
// `axis` names that line (index into kAxisDx/kAxisDy).
int ArrivalRegions::passage_width(const CostField& terrain, int x, int y, int cap, int& axis) {
    int best = cap;
    axis = 0;
    for (int a = 0; a < 4; ++a) {
        const int dx = kAxisDx[a], dy = kAxisDy[a];
        int n = 1;
        for (int k = 1; n < cap && terrain.passable(x + k * dx, y + k * dy); ++k) ++n;
        for (int k = 1; n < cap && terrain.passable(x - k * dx, y - k * dy); ++k) ++n;
        const int w = a < 2 ? n : static_cast<int>(static_cast<float>(n) * 1.41f);
        if (w < best) {
            best = w;
            axis = a;
        }
    }
    return best;
}

// Whether (x, y) lies in a passage narrower than `narrow` (cells), and if so whether moving units
// pass through it: some cell of its narrowest line through (x, y) carries traffic.
ArrivalRegions::Passage ArrivalRegions::passage_at(const CostField& terrain, int x, int y, int narrow) {
    const int W = terrain.width();
    auto traffic = [&](int cx, int cy) {
        const PathCell* p = paths_.find(static_cast<std::uint32_t>(cy) * static_cast<std::uint32_t>(W) +
                                        static_cast<std::uint32_t>(cx));
        return p != nullptr && p->traffic != 0;
    };
    const std::uint32_t cell =
        static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(x);
    // Measured once per refresh (walks have marked all traffic by the time anything asks).
    if (const PathCell* p = paths_.find(cell); p != nullptr && p->width >= 0) {
        return p->width >= narrow ? Passage::none : p->in_use ? Passage::in_use : Passage::idle;
    }
    int axis = 0;
    const int width = passage_width(terrain, x, y, kNarrowCap, axis);
    bool in_use = false;
    if (width < kNarrowCap) {
        in_use = traffic(x, y);
        const int dx = kAxisDx[axis], dy = kAxisDy[axis];
        for (int k = 1; !in_use && k < kNarrowCap && terrain.passable(x + k * dx, y + k * dy); ++k)
            in_use = traffic(x + k * dx, y + k * dy);
        for (int k = 1; !in_use && k < kNarrowCap && terrain.passable(x - k * dx, y - k * dy); ++k)
            in_use = traffic(x - k * dx, y - k * dy);
    }
    PathCell& pc = paths_.insert(cell);
    pc.width = static_cast<std::int16_t>(width);
    pc.in_use = in_use;
    return width >= narrow ? Passage::none : in_use ? Passage::in_use : Passage::idle;
}

// Passages narrower than the pack of a group of this disc area (its diameter) are narrow for it.
int ArrivalRegions::narrow_for(float area) {
    return std::clamp(static_cast<int>(2.0f * std::sqrt(area / kDensity / std::numbers::pi_v<float>)), 2, kNarrowCap);
}

// Follows a moving unit's path from its cell along the group's moves to the goal, marking the
// cells as the group's traffic. Walks of one group merge: one stops where an earlier walk of the
// group went on exactly as it would.
int ArrivalRegions::walk_traffic(const CostField& terrain, const RegionField& f, std::uint32_t group, int x, int y) {
    const int W = terrain.width(), H = terrain.height();
    const std::uint32_t tag = group + 1;
    for (int step = 0; step < kMaxWalk; ++step) {
        if (x < 0 || y < 0 || x >= W || y >= H) return step;
        PathCell& pc = paths_.insert(static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(W) +
                                     static_cast<std::uint32_t>(x));
        if (pc.walked == tag) return step;
        pc.walked = tag;
        if (pc.traffic == 0 || pc.traffic == tag) {
            pc.traffic = tag;
        } else if (pc.traffic2 == 0 || pc.traffic2 == tag) {
            pc.traffic2 = tag;
        } else {
            pc.traffic2 = kMany;  // a third group: which ones no longer matters, the cell is busy
        }
        const std::uint8_t m = f.move(x, y);
        if (m >= kDirectionCount) return step;  // the goal, a cut-off cell, or no sector field there
        x += kDirectionDx[m];
        y += kDirectionDy[m];
    }
    return kMaxWalk;
}

// Follows the same path until it enters the region r, and marks the cell it enters by as a way in
// when it came through a narrow passage units use just before (within kMouthReach cells): a way in
// the pack must keep free. Walks of a group merge once past any such passage.
int ArrivalRegions::walk_entry(const CostField& terrain, const RegionField& f, const Region& r, std::uint32_t group,
                               int narrow, int x, int y) {
    const int W = terrain.width(), H = terrain.height();
    const std::uint32_t tag = group + 1;
    if (contains(r, x, y)) return 0;  // already in: it shows no way in
    int since = kMouthReach + 1;      // cells since the last narrow passage in use
    for (int step = 0; step < kMaxWalk; ++step) {
        if (x < 0 || y < 0 || x >= W || y >= H) return step;
        const std::uint32_t cell =
            static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(x);
        if (contains(r, x, y)) {
            if (since <= kMouthReach) {
                PathCell& pc = paths_.insert(cell);
                if (pc.entered != tag) entries_.push_back(cell);
                pc.entered = tag;
            }
            return step;
        }
        if (f.value(x, y) <= r.radius + static_cast<float>(kMouthReach + 2)) {
            since = passage_at(terrain, x, y, narrow) == Passage::in_use ? 0 : since + 1;
        }
        PathCell& pc = paths_.insert(cell);
        if (pc.walked_entry == tag && since > kMouthReach) return step;  // merged: an earlier walk went on from here
        pc.walked_entry = tag;
        const std::uint8_t m = f.move(x, y);
        if (m >= kDirectionCount) return step;
        x += kDirectionDx[m];
        y += kDirectionDy[m];
    }
    return kMaxWalk;
}

// True when the group's region leaves (x, y) out: it lies on, or next to, the way of another group
// that passes through (not one that ends here: a group with goals in this region joins the pack).
bool ArrivalRegions::excluded(std::uint32_t group, int width, int height, int x, int y) const {
    const std::uint32_t tag = group + 1;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int cx = x + dx, cy = y + dy;
            if (cx < 0 || cy < 0 || cx >= width || cy >= height) continue;
            const PathCell* p = paths_.find(static_cast<std::uint32_t>(cy) * static_cast<std::uint32_t>(width) +
                                            static_cast<std::uint32_t>(cx));
            if (p == nullptr) continue;
            for (const std::uint32_t t : {p->traffic, p->traffic2}) {
                if (t == 0 || t == tag) continue;
                if (t == kMany || !ends_here_[t - 1]) return true;
            }
        }
    }
    return false;
}

bool ArrivalRegions::contains(const Region& r, int x, int y) const noexcept {
    const int ix = x - r.x0, iy = y - r.y0;
    if (ix < 0 || iy < 0 || ix >= r.w || iy >= r.h) return false;
    const std::size_t i = static_cast<std::size_t>(iy) * r.w + ix;
    return (r.bits[i >> 6] >> (i & 63)) & 1u;
}

// Grows a region from the goals in order of cost to go over the cells the field reaches (4
// neighbours) until it holds the area (at kDensity, with a rim). With `passages` (one way in), the
// cells of passages narrower than the pack are not crossed until nothing else is left (the goal's
// side first), and those moving units pass through last of all. With `others`, cells excluded()
// are taken only once nothing else is left.
void ArrivalRegions::grow(const CostField& terrain, const RegionField& f, std::uint32_t group, float area,
                          float max_radius, bool others, bool passages, Region& out) {
    const int W = terrain.width(), H = terrain.height();
    // Room for the pack at kDensity, and round it for one unit more (a unit touching the pack's edge).
    // The region only bounds where units may arrive; the order they fill it in is the fill keys'.
    const float rim = std::sqrt(area / kDensity / std::numbers::pi_v<float>) + max_radius + 0.5f;
    const float need = std::numbers::pi_v<float> * rim * rim;
    const int narrow = narrow_for(area);
    seen_.reset(static_cast<std::size_t>(4.0f * need) + 64);
    admitted_.clear();
    MinHeap open, deferred;
    auto cell_of = [W](int x, int y) {
        return static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(x);
    };
    auto offer = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= W || y >= H) return;
        const float v = f.value(x, y);
        if (!(v < kUnreachable)) return;
        const std::uint32_t cell = cell_of(x, y);
        if (seen_.find(cell) != nullptr) return;
        seen_.insert(cell);
        open.push({v, cell});
    };
    for (const std::uint32_t g : f.goals)
        offer(static_cast<int>(g % static_cast<std::uint32_t>(W)), static_cast<int>(g / static_cast<std::uint32_t>(W)));
    float radius = 0.0f;
    auto admit = [&](float v, std::uint32_t cell) {
        admitted_.push_back(cell);
        radius = std::max(radius, v);
    };
    // Left out for now, and taken nearest first only when nothing else is left: cells beside
    // other groups' ways (crossed, so the region goes on beyond them) and cells of narrow passages
    // nobody passes (not crossed: the goal's side comes first); last of all, narrow passages units
    // still come through (a cluttered map may leave no other way to hold the group).
    MinHeap beside, idle, in_use;
    auto neighbours = [&](int x, int y) { offer(x + 1, y), offer(x, y + 1), offer(x - 1, y), offer(x, y - 1); };
    while (static_cast<float>(admitted_.size()) < need) {
        if (open.empty()) {
            MinHeap* next = beside.empty() || (!idle.empty() && idle.top() < beside.top()) ? &idle : &beside;
            if (next->empty()) next = &in_use;
            if (next->empty()) break;
            const auto [v, cell] = next->top();
            next->pop();
            admit(v, cell);
            neighbours(static_cast<int>(cell % static_cast<std::uint32_t>(W)),
                       static_cast<int>(cell / static_cast<std::uint32_t>(W)));
            continue;
        }
        const auto [v, cell] = open.top();
        open.pop();
        const int x = static_cast<int>(cell % static_cast<std::uint32_t>(W)),
                  y = static_cast<int>(cell / static_cast<std::uint32_t>(W));
        const bool goal = f.move(x, y) == static_cast<std::uint8_t>(Direction::goal);
        if (!goal) {
            const Passage passage = passages ? passage_at(terrain, x, y, narrow) : Passage::none;
            if (passage != Passage::none) {
                (passage == Passage::idle ? idle : in_use).push({v, cell});
                continue;
            }
            if (others && excluded(group, W, H, x, y)) {
                beside.push({v, cell});
                neighbours(x, y);
                continue;
            }
        }
        admit(v, cell);
        neighbours(x, y);
    }
    out = Region{};
    out.active = true;
    out.radius = radius;
    out.cells = admitted_.size();
    // The passages units still come through, next to the region: no unit may stand in them.
    while (!in_use.empty()) {
        out.keep_clear.push_back(in_use.top().second);
        in_use.pop();
    }
    std::sort(out.keep_clear.begin(), out.keep_clear.end());
    if (admitted_.empty()) return;
    int x0 = W, y0 = H, x1 = -1, y1 = -1;
    for (const std::uint32_t c : admitted_) {
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(W)),
                  y = static_cast<int>(c / static_cast<std::uint32_t>(W));
        x0 = std::min(x0, x);
        y0 = std::min(y0, y);
        x1 = std::max(x1, x);
        y1 = std::max(y1, y);
    }
    out.x0 = x0;
    out.y0 = y0;
    out.w = x1 - x0 + 1;
    out.h = y1 - y0 + 1;
    out.bits.assign((static_cast<std::size_t>(out.w) * out.h + 63) / 64, 0);
    for (const std::uint32_t c : admitted_) {
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(W)),
                  y = static_cast<int>(c / static_cast<std::uint32_t>(W));
        const std::size_t i = static_cast<std::size_t>(y - y0) * out.w + (x - x0);
        out.bits[i >> 6] |= std::uint64_t{1} << (i & 63);
    }
}

namespace {

constexpr float kFar = std::numeric_limits<float>::infinity();  // no value yet (fill scratch)

// A region's fill box (Region::fx0, fy0, fw, fh): the fill scratch and fields are indexed over it.
struct FillBox {
    int x0, y0, w, h;
    std::size_t local(int x, int y) const { return static_cast<std::size_t>(y - y0) * w + (x - x0); }
    bool in_box(int x, int y) const { return x >= x0 && y >= y0 && x < x0 + w && y < y0 + h; }
};

std::uint32_t cell_of(int W, int x, int y) {
    return static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(x);
}

// A Dijkstra from `open` over the box: a move costs its length x (terrain cost of the cell
// entered + `extra` of that cell), over the cells the group's field reaches; fills value and
// fill (the move codes). With `inside` (a region's cells), no way leads out of the region and
// back in: a cell outside it is reached from the region, never the other way round.
template <class Inside>
void spread_fill(const CostField& terrain, const RegionField& f, const FillBox& box, MinHeap& open,
                 const std::vector<float>* extra, std::vector<float>& value, std::vector<std::uint8_t>& fill,
                 const Inside& inside) {
    auto passable = [&](int x, int y) {
        return box.in_box(x, y) && terrain.passable(x, y) && f.value(x, y) < kUnreachable;
    };
    while (!open.empty()) {
        const auto [v, i] = open.top();
        open.pop();
        if (v > value[i]) continue;  // an older offer
        const int x = box.x0 + static_cast<int>(i % static_cast<std::uint32_t>(box.w));
        const int y = box.y0 + static_cast<int>(i / static_cast<std::uint32_t>(box.w));
        const float price = static_cast<float>(terrain.at(x, y)) + (extra != nullptr ? (*extra)[i] : 0.0f);
        const bool out = !inside(x, y);
        for (int d = 0; d < kDirectionCount; ++d) {
            // The neighbour in direction d moves back into (x, y): direction (d + 4) % 8.
            const int nx = x + kDirectionDx[d], ny = y + kDirectionDy[d];
            if (!passable(nx, ny) || (out && inside(nx, ny))) continue;
            if ((d & 1) != 0 && (!passable(nx, y) || !passable(x, ny))) continue;  // no corner cutting
            const float offer = v + ((d & 1) != 0 ? kUnitDiagonal : 1.0f) * price;
            const std::size_t j = box.local(nx, ny);
            if (!(offer < value[j])) continue;
            value[j] = offer;
            fill[j] = static_cast<std::uint8_t>((d + 4) % kDirectionCount);
            open.push({offer, static_cast<std::uint32_t>(j)});
        }
    }
}

}  // namespace

// The anchor and the fill field of a region, in phases: the fill box, the depth of the region's
// cells, the anchor, the cost to it and the order the pack takes cells in, then the fill field
// from the next places.
void ArrivalRegions::fill(const CostField& terrain, const RegionField& f, std::uint32_t group, float area, bool started,
                          bool one_way_in, std::span<const RegionAgent> agents, Region& r) {
    const int W = terrain.width(), H = terrain.height();
    const Region& own = own_;
    r.fx0 = std::max(0, std::min(r.x0, own.x0) - kFillMargin);
    r.fy0 = std::max(0, std::min(r.y0, own.y0) - kFillMargin);
    r.fw = std::min(W, std::max(r.x0 + r.w, own.x0 + own.w) + kFillMargin) - r.fx0;
    r.fh = std::min(H, std::max(r.y0 + r.h, own.y0 + own.h) + kFillMargin) - r.fy0;
    fill_depth(W, group, r);
    // The anchor. A pack smaller than kSmallPack cells across plugs no passage, and ways in all
    // round need no keeping free: the pack gathers at the goal, as without ways in.
    const float pack = std::sqrt(area / kPackDensity / std::numbers::pi_v<float>);
    const float deep_enough = pack + kAnchorSlack;
    if (2.0f * pack < kSmallPack || !one_way_in) std::fill(depth_.begin(), depth_.end(), kFar);
    r.anchor = fill_anchor(f, W, group, started, deep_enough, r);
    // Units are led round the pack once there is one, or to an anchor away from the goal; before,
    // they steer as they would without a region (line of sight to the goal).
    r.guide = started || f.move(static_cast<int>(r.anchor % static_cast<std::uint32_t>(W)),
                                static_cast<int>(r.anchor / static_cast<std::uint32_t>(W))) !=
                             static_cast<std::uint8_t>(Direction::goal);
    fill_keys(terrain, f, deep_enough, r);
    fill_from_next_places(terrain, f, group, agents, r);
}

// Depth of each region cell (depth_, over the fill box): distance inside the region (own_) from
// the nearest way in, where the group's moving units' paths enter it (none: every cell counts as
// deep). A Dijkstra over 8 moves, diagonals sqrt 2, no corner cutting.
void ArrivalRegions::fill_depth(int W, std::uint32_t group, const Region& r) {
    const Region& own = own_;
    const FillBox box{r.fx0, r.fy0, r.fw, r.fh};
    depth_.assign(static_cast<std::size_t>(r.fw) * r.fh, kFar);
    queue_.clear();
    const std::uint32_t tag = group + 1;
    for (int y = own.y0; y < own.y0 + own.h; ++y) {
        for (int x = own.x0; x < own.x0 + own.w; ++x) {
            if (!contains(own, x, y)) continue;
            const PathCell* p = paths_.find(cell_of(W, x, y));
            if (p != nullptr && p->entered == tag) {
                depth_[box.local(x, y)] = 0.0f;
                queue_.push_back(static_cast<std::uint32_t>(box.local(x, y)));
            }
        }
    }
    MinHeap deep;
    for (const std::uint32_t i : queue_) deep.push({0.0f, i});
    while (!deep.empty()) {
        const auto [d0, i] = deep.top();
        deep.pop();
        if (d0 > depth_[i]) continue;
        const int x = r.fx0 + static_cast<int>(i % static_cast<std::uint32_t>(r.fw));
        const int y = r.fy0 + static_cast<int>(i / static_cast<std::uint32_t>(r.fw));
        for (int m = 0; m < kDirectionCount; ++m) {
            const int nx = x + kDirectionDx[m], ny = y + kDirectionDy[m];
            if (!contains(own, nx, ny)) continue;
            if ((m & 1) != 0 && (!contains(own, nx, y) || !contains(own, x, ny))) continue;
            const float d = d0 + ((m & 1) != 0 ? kUnitDiagonal : 1.0f);
            const std::size_t j = box.local(nx, ny);
            if (!(d < depth_[j])) continue;
            depth_[j] = d;
            deep.push({d, static_cast<std::uint32_t>(j)});
        }
    }
}

// The anchor, where the pack is centred: the cell nearest the goal whose depth is at least
// deep_enough (the pack's radius plus kAnchorSlack), so that a round pack round it leaves the ways
// in free; without such a cell, the deepest one. The previous anchor stays while the group follows
// the same field: once some of its units have arrived (`started`), whatever the region does (a
// pack once started does not move); before, while it is still in the region and at least half
// that deep. Returns its cell (kept in anchors_).
std::uint32_t ArrivalRegions::fill_anchor(const RegionField& f, int W, std::uint32_t group, bool started,
                                          float deep_enough, const Region& r) {
    const Region& own = own_;
    const FillBox box{r.fx0, r.fy0, r.fw, r.fh};
    Anchor& a = anchors_[group];
    const bool same_field = a.field == f.id();
    bool keep = same_field && a.cell != kNoAnchor;
    if (keep) {
        const int ax = static_cast<int>(a.cell % static_cast<std::uint32_t>(W)),
                  ay = static_cast<int>(a.cell / static_cast<std::uint32_t>(W));
        keep = box.in_box(ax, ay) &&
               (started || (contains(own, ax, ay) && depth_[box.local(ax, ay)] >= 0.5f * deep_enough));
    }
    if (!keep) {
        std::uint32_t best = kNoAnchor, deepest = kNoAnchor;
        float best_value = kFar, deepest_depth = -1.0f, deepest_value = kFar;
        for (int y = own.y0; y < own.y0 + own.h; ++y) {
            for (int x = own.x0; x < own.x0 + own.w; ++x) {
                if (!contains(own, x, y)) continue;
                const float d = depth_[box.local(x, y)], v = f.value(x, y);
                if (d >= deep_enough && v < best_value) {
                    best_value = v;
                    best = cell_of(W, x, y);
                }
                if (d > deepest_depth || (d == deepest_depth && v < deepest_value)) {
                    deepest_depth = d;
                    deepest_value = v;
                    deepest = cell_of(W, x, y);
                }
            }
        }
        a.cell = best != kNoAnchor ? best : deepest;
        a.field = f.id();
    }
    return a.cell;
}

// The cost to the anchor from every cell of the box (value_, r.toward: 8 moves, no corner cutting,
// a move costs its length x the terrain cost of the cell entered, over the cells the group's field
// reaches), and the order the pack fills the region in (r.fill_key, r.by_key): that cost less
// kDepthWeight x depth, so the cells near a way in come last (on open ground, where the ways in are
// all round, that is the order of the cost to the anchor: the pack grows round). pack_key() reads
// it per area.
void ArrivalRegions::fill_keys(const CostField& terrain, const RegionField& f, float deep_enough, Region& r) {
    const int W = terrain.width();
    const FillBox box{r.fx0, r.fy0, r.fw, r.fh};
    const std::size_t n = static_cast<std::size_t>(r.fw) * r.fh;
    const int ax = static_cast<int>(r.anchor % static_cast<std::uint32_t>(W)),
              ay = static_cast<int>(r.anchor / static_cast<std::uint32_t>(W));
    value_.assign(n, kFar);
    r.fill.assign(n, static_cast<std::uint8_t>(Direction::unreachable));
    {
        MinHeap open;
        value_[box.local(ax, ay)] = 0.0f;
        open.push({0.0f, static_cast<std::uint32_t>(box.local(ax, ay))});
        spread_fill(terrain, f, box, open, nullptr, value_, r.fill, [](int, int) { return true; });
    }
    r.anchor_i = box.local(ax, ay);
    r.toward = r.fill;  // the moves toward the anchor (what a unit at a next place follows)
    r.fill_key.assign(n, kFar);
    r.by_key.clear();
    for (int y = r.fy0; y < r.fy0 + r.fh; ++y) {
        for (int x = r.fx0; x < r.fx0 + r.fw; ++x) {
            const std::size_t i = box.local(x, y);
            if (value_[i] == kFar) continue;
            // Only the cells less than deep_enough from a way in wait (a pack that plugs no way in
            // fills as it would without any).
            r.fill_key[i] = value_[i] + kDepthWeight * std::max(0.0f, deep_enough - depth_[i]);
            if (contains(r, x, y)) r.by_key.push_back(r.fill_key[i]);
        }
    }
}

// The fill field (r.fill, r.fill_value): from the next places, the free cells of the region the
// pack takes next (in key order, room for kNextShare more of the pack and kNextCells cells), each
// starting at its key, round the cells arrived units take (kTakenCost more to enter a full one):
// units walk round the pack to where it grows next instead of into it, so it grows round. Without
// such a cell, from every free cell of the region; once all are taken, toward the anchor. Also
// r.foreign, the other groups' arrived area in the region. Reads value_ as fill_keys() left it.
void ArrivalRegions::fill_from_next_places(const CostField& terrain, const RegionField& f, std::uint32_t group,
                                           std::span<const RegionAgent> agents, Region& r) {
    const FillBox box{r.fx0, r.fy0, r.fw, r.fh};
    const std::size_t n = static_cast<std::size_t>(r.fw) * r.fh;
    const std::vector<float> to_anchor = value_;
    taken_.assign(n, 0.0f);
    r.foreign = 0.0f;
    float packed = 0.0f;
    for (const RegionAgent& u : agents) {
        if (u.role != RegionRole::arrived || !box.in_box(u.x, u.y)) continue;
        taken_[box.local(u.x, u.y)] += u.area;
        if (u.group != group && contains(r, u.x, u.y)) r.foreign += u.area;
        if (u.group == group || contains(r, u.x, u.y)) packed += u.area;
    }
    std::sort(r.by_key.begin(), r.by_key.end());
    const float next =
        r.by_key.empty()
            ? kFar
            : r.by_key[std::min(r.by_key.size() - 1,
                                static_cast<std::size_t>(packed / kPackDensity * (1.0f + kNextShare)) + kNextCells)];
    for (float& t : taken_) t = kTakenCost * std::min(1.0f, t / kFreeArea);
    r.taken.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.taken[i] = taken_[i] >= kTakenCost ? 1 : 0;
    value_.assign(n, kFar);
    r.fill.assign(n, static_cast<std::uint8_t>(Direction::unreachable));
    MinHeap open;
    for (const float bound : {next, kFar}) {
        for (int y = r.y0; y < r.y0 + r.h; ++y) {
            for (int x = r.x0; x < r.x0 + r.w; ++x) {
                if (!contains(r, x, y) || !box.in_box(x, y)) continue;
                const std::size_t i = box.local(x, y);
                if (taken_[i] >= kTakenCost || r.fill_key[i] == kFar || r.fill_key[i] > bound) continue;
                value_[i] = r.fill_key[i];
                r.fill[i] = static_cast<std::uint8_t>(Direction::goal);
                open.push({value_[i], static_cast<std::uint32_t>(i)});
            }
        }
        if (!open.empty()) break;
    }
    if (open.empty()) {
        value_ = to_anchor;
        r.fill = r.toward;
    } else {
        // Not through a passage (nor round by another group's way) and back in: the pack may
        // close such a way round itself (the gap swap led units out through the gap and in again
        // along the wall, past arrived mates, and they queued for good).
        spread_fill(terrain, f, box, open, &taken_, value_, r.fill, [&](int x, int y) { return contains(r, x, y); });
    }
    r.fill_value = value_;
}

void ArrivalRegions::refresh(const CostField& terrain, std::span<const RegionGroup> groups,
                             std::span<const RegionAgent> agents) {
    const std::size_t n_groups = groups.size();
    regions_.assign(n_groups, Region{});
    anchors_.resize(n_groups);
    // 1. The remaining paths of every moving unit, group by group (the walks of a group merge).
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < agents.size(); ++i) {
        const RegionAgent& a = agents[i];
        if (a.role == RegionRole::moving && a.group < n_groups && groups[a.group].field) order.push_back(i);
    }
    // By group, then nearest to the goal first (ties: roster order), each group walking its share
    // of kWalkBudget (half for these walks, half for the entry walks below).
    std::vector<float> near(agents.size(), 0.0f);
    std::size_t walking_groups = 0;
    for (const std::uint32_t i : order) near[i] = groups[agents[i].group].field.value(agents[i].x, agents[i].y);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return agents[a].group != agents[b].group ? agents[a].group < agents[b].group : near[a] < near[b];
    });
    for (std::size_t k = 0; k < order.size(); ++k)
        walking_groups += k == 0 || agents[order[k]].group != agents[order[k - 1]].group;
    const std::size_t share = kWalkBudget / 2 / std::max<std::size_t>(1, walking_groups);
    paths_.reset(std::min(4 * order.size(), kWalkBudget) + 256);
    std::size_t walked = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const RegionAgent& a = agents[order[k]];
        if (k > 0 && a.group != agents[order[k - 1]].group) walked = 0;
        if (walked >= share) continue;
        walked += static_cast<std::size_t>(walk_traffic(terrain, groups[a.group].field, a.group, a.x, a.y));
    }
    started_.assign(n_groups, 0);
    for (const RegionAgent& a : agents) {
        if (a.role == RegionRole::arrived && a.group < n_groups) started_[a.group] = 1;
    }
    // 2. Per group: the region its own traffic allows (where the pack is anchored, away from the
    // ways its units come in by), the region that also leaves the others' ways out (where its
    // units may arrive), and the fill field toward the anchor.
    std::size_t next = 0;
    shares_.assign(n_groups * n_groups, 0);
    for (std::uint32_t g = 0; g < n_groups; ++g) {
        const std::size_t first = next;
        while (next < order.size() && agents[order[next]].group == g) ++next;
        if (!groups[g].field || !(groups[g].area > 0.0f)) {
            anchors_[g] = Anchor{};
            continue;
        }
        // Groups with goals in the region gather in the same pack: the region holds them too.
        grow(terrain, groups[g].field, g, groups[g].area, groups[g].max_radius, false, true, own_);
        float area = groups[g].area, max_radius = groups[g].max_radius;
        mark_ends_here(terrain, groups);
        for (std::uint32_t h = 0; h < n_groups; ++h) {
            shares_[static_cast<std::size_t>(g) * n_groups + h] = ends_here_[h];
            if (h == g || !ends_here_[h]) continue;
            area += groups[h].area;
            max_radius = std::max(max_radius, groups[h].max_radius);
        }
        if (area > groups[g].area) grow(terrain, groups[g].field, g, area, max_radius, false, true, own_);
        entries_.clear();
        std::size_t entered = 0;
        for (std::size_t k = first; k < next && entered < share; ++k) {
            const RegionAgent& a = agents[order[k]];
            entered += static_cast<std::size_t>(
                walk_entry(terrain, groups[g].field, own_, g, narrow_for(groups[g].area), a.x, a.y));
        }
        // One way in (the ways in lie close together: a gap, a door, a corridor's end): the pack
        // must keep it free. Ways in all round (units come from every side, through the many small
        // passages of a cluttered map) plug nothing: the region grows as the field does.
        // Once seen, a group keeps it while it follows the same field: the last units to come in
        // (a few stragglers) must find the way in as free as the first did.
        Anchor& remembered = anchors_[g];
        const bool same_field = remembered.field == groups[g].field.id();
        const bool one_way_in =
            (!entries_.empty() && spread(terrain, entries_) <= kMouthSpread) || (same_field && remembered.one_way_in);
        remembered.one_way_in = one_way_in;
        grow(terrain, groups[g].field, g, area, max_radius, true, one_way_in, regions_[g]);
        if (regions_[g].cells > 0 && own_.cells > 0) {
            fill(terrain, groups[g].field, g, area, started_[g] != 0, one_way_in, agents, regions_[g]);
        } else {
            anchors_[g] = Anchor{};
        }
    }
}

// The larger side of the bounding box of `cells`, cells.
int ArrivalRegions::spread(const CostField& terrain, std::span<const std::uint32_t> cells) {
    const auto W = static_cast<std::uint32_t>(terrain.width());
    int x0 = terrain.width(), y0 = terrain.height(), x1 = -1, y1 = -1;
    for (const std::uint32_t c : cells) {
        const int x = static_cast<int>(c % W), y = static_cast<int>(c / W);
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
    }
    return std::max(x1 - x0, y1 - y0) + 1;
}

// ends_here_[h]: group h has a goal cell in own_.
void ArrivalRegions::mark_ends_here(const CostField& terrain, std::span<const RegionGroup> groups) {
    const auto W = static_cast<std::uint32_t>(terrain.width());
    ends_here_.assign(groups.size(), 0);
    for (std::uint32_t h = 0; h < groups.size(); ++h) {
        for (const std::uint32_t c : groups[h].field.goals) {
            if (contains(own_, static_cast<int>(c % W), static_cast<int>(c / W))) {
                ends_here_[h] = 1;
                break;
            }
        }
    }
}

bool ArrivalRegions::shares(std::uint32_t group, std::uint32_t other) const noexcept {
    const std::size_t n = regions_.size();
    return group < n && other < n && shares_[static_cast<std::size_t>(group) * n + other] != 0;
}

float ArrivalRegions::foreign_area(std::uint32_t group) const noexcept {
    return active(group) ? regions_[group].foreign : 0.0f;
}

bool ArrivalRegions::allows(std::uint32_t group, int x, int y) const noexcept {
    if (group >= regions_.size() || !regions_[group].active) return true;
    return contains(regions_[group], x, y);
}

float ArrivalRegions::pack_key(std::uint32_t group, float cells) const noexcept {
    if (!active(group) || regions_[group].by_key.empty()) return -kUnreachable;
    const std::vector<float>& v = regions_[group].by_key;
    const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(std::max(0.0f, std::ceil(cells))));
    return v[i];
}

bool ArrivalRegions::keep_clear(std::uint32_t group, std::uint32_t cell) const noexcept {
    return active(group) &&
           std::binary_search(regions_[group].keep_clear.begin(), regions_[group].keep_clear.end(), cell);
}

float ArrivalRegions::radius(std::uint32_t group) const noexcept {
    return active(group) ? regions_[group].radius : kUnreachable;
}

bool ArrivalRegions::steer(std::uint32_t group, float px, float py, Steer& out) const noexcept {
    if (!active(group)) return false;
    const Region& r = regions_[group];
    if (r.fill.empty()) return false;
    const int cx = clamped_floor(px, -1, kCellLimit), cy = clamped_floor(py, -1, kCellLimit);
    if (cx < r.fx0 || cy < r.fy0 || cx >= r.fx0 + r.fw || cy >= r.fy0 + r.fh) return false;
    const std::size_t own_i = static_cast<std::size_t>(cy - r.fy0) * r.fw + (cx - r.fx0);
    const std::uint8_t own = r.fill[own_i];
    if (own == static_cast<std::uint8_t>(Direction::unreachable)) return false;
    out.value = r.fill_value[own_i];
    out.key = r.fill_key[own_i];
    out.guide = r.guide;
    out.place = own == static_cast<std::uint8_t>(Direction::goal);
    out.anchor = own_i == r.anchor_i;
    out.taken = r.taken[own_i] != 0;
    out.dx = out.dy = 0.0f;
    // At a next place: on toward the anchor, into the pack's edge.
    const std::vector<std::uint8_t>& moves = out.place ? r.toward : r.fill;
    const std::uint8_t here = moves[own_i];
    if (here >= kDirectionCount) return true;
    // Bilinear blend of the move vectors of the four cells whose centres surround p.
    static constexpr float kH = 0.70710678f;
    static constexpr float kUx[kDirectionCount] = {1, kH, 0, -kH, -1, -kH, 0, kH};
    static constexpr float kUy[kDirectionCount] = {0, kH, 1, kH, 0, -kH, -1, -kH};
    const float fx = px - 0.5f, fy = py - 0.5f;
    const int x0 = clamped_floor(fx, -1, kCellLimit), y0 = clamped_floor(fy, -1, kCellLimit);
    const float tx = fx - static_cast<float>(x0), ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    // Only where all four cells have a move: beside a wall the blend could point into it, so the
    // cell's own move (which never cuts a corner) is followed there.
    float vx = 0.0f, vy = 0.0f;
    bool all = true;
    for (int i = 0; i < 4 && all; ++i) {
        const int x = x0 + (i & 1), y = y0 + (i >> 1);
        if (x < r.fx0 || y < r.fy0 || x >= r.fx0 + r.fw || y >= r.fy0 + r.fh) {
            all = false;
            break;
        }
        const std::uint8_t m = moves[static_cast<std::size_t>(y - r.fy0) * r.fw + (x - r.fx0)];
        all = m < kDirectionCount;
        if (!all) break;
        vx += weight[i] * kUx[m];
        vy += weight[i] * kUy[m];
    }
    float len2 = vx * vx + vy * vy;
    if (!all || len2 < 1e-8f) {
        vx = kUx[here];
        vy = kUy[here];
        len2 = 1.0f;
    }
    const float inv = 1.0f / std::sqrt(len2);
    out.dx = vx * inv;
    out.dy = vy * inv;
    return true;
}

}  // namespace tide::detail
