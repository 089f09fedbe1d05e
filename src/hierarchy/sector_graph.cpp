// Sectors, portals and the portal graph (see include/tide/hierarchy.hpp and docs/hierarchy.md).
//
// Layout: border 2s is the east border of sector s (to s + 1), border 2s + 1 its south border (to
// s + sectors_x); borders on the map's edge stay empty. A sector's nodes are, in order, the
// a-sides of its east and south portals and the b-sides of its west and north neighbours'
// portals, so the node list of a sector depends only on its four borders: an update that leaves a
// border alone leaves the node order, and the costs computed for it, valid.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "sector_search.hpp"
#include "tide/assert.hpp"
#include "tide/sector_graph.hpp"

namespace tide {
namespace {

using hier_detail::SectorSearch;
constexpr std::uint16_t kNoLabel = 0xFFFF;

// Labels of the cells of one sector by connected part (moves as the fields make them), written
// for the four border lines: east column, south row, west column, north row, each `size` long
// (kNoLabel for walls and positions off the map).
void label_borders(const CostField& cost, const FieldParams& params, int x0, int y0, int x1, int y1, int size,
                   std::vector<std::uint16_t>& label, std::vector<std::int32_t>& stack,
                   std::vector<std::uint16_t>& out) {
    const int w = x1 - x0, h = y1 - y0;
    label.assign(static_cast<std::size_t>(w) * h, kNoLabel);
    const bool eight = params.connectivity == Connectivity::eight;
    std::uint16_t next = 0;
    auto open = [&](int x, int y) { return x >= x0 && x < x1 && y >= y0 && y < y1 && cost.passable(x, y); };
    for (int sy = 0; sy < h; ++sy) {
        for (int sx = 0; sx < w; ++sx) {
            const std::size_t i0 = static_cast<std::size_t>(sy) * w + sx;
            if (label[i0] != kNoLabel || !cost.passable(x0 + sx, y0 + sy)) continue;
            const std::uint16_t id = next++;  // at most 32768 parts in 256 x 256 cells
            label[i0] = id;
            stack.assign(1, static_cast<std::int32_t>(i0));
            while (!stack.empty()) {
                const std::int32_t c = stack.back();
                stack.pop_back();
                const int cx = x0 + c % w, cy = y0 + c / w;
                for (int d = 0; d < kDirectionCount; d += eight ? 1 : 2) {
                    const int nx = cx + kDirectionDx[d], ny = cy + kDirectionDy[d];
                    if (!open(nx, ny)) continue;
                    if ((d & 1) && !(cost.passable(nx, cy) && cost.passable(cx, ny))) continue;
                    const std::size_t ni = static_cast<std::size_t>(ny - y0) * w + (nx - x0);
                    if (label[ni] != kNoLabel) continue;
                    label[ni] = id;
                    stack.push_back(static_cast<std::int32_t>(ni));
                }
            }
        }
    }
    out.assign(static_cast<std::size_t>(4) * size, kNoLabel);
    for (int k = 0; k < h; ++k) {
        out[static_cast<std::size_t>(k)] = label[static_cast<std::size_t>(k) * w + (w - 1)];   // east
        out[static_cast<std::size_t>(2 * size + k)] = label[static_cast<std::size_t>(k) * w];  // west
    }
    for (int k = 0; k < w; ++k) {
        out[static_cast<std::size_t>(size + k)] = label[static_cast<std::size_t>(h - 1) * w + k];  // south
        out[static_cast<std::size_t>(3 * size + k)] = label[static_cast<std::size_t>(k)];          // north
    }
}

// The sectors whose border labels a recompute of `sectors` needs: those sectors and their four
// neighbours (whose borders with them are redone), one flag per sector.
std::vector<char> sectors_to_label(const SectorGraph& g, std::span<const int> sectors) {
    std::vector<char> need(static_cast<std::size_t>(g.sector_count()), 0);
    for (int s : sectors) {
        const int sx = s % g.sectors_x(), sy = s / g.sectors_x();
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if ((dx != 0 && dy != 0)) continue;
                const int tx = sx + dx, ty = sy + dy;
                if (tx < 0 || ty < 0 || tx >= g.sectors_x() || ty >= g.sectors_y()) continue;
                need[static_cast<std::size_t>(ty * g.sectors_x() + tx)] = 1;
            }
        }
    }
    return need;
}

// Border labels (label_borders) of every sector flagged in `need`, on the job system; empty for the others.
std::vector<std::vector<std::uint16_t>> border_labels(const SectorGraph& g, const CostField& cost,
                                                      const std::vector<char>& need, JobSystem& js) {
    std::vector<int> list;
    for (int s = 0; s < g.sector_count(); ++s) {
        if (need[static_cast<std::size_t>(s)]) list.push_back(s);
    }
    std::vector<std::vector<std::uint16_t>> labels(static_cast<std::size_t>(g.sector_count()));
    auto task = [&](std::size_t b, std::size_t e) {
        std::vector<std::uint16_t> scratch;
        std::vector<std::int32_t> stack;
        for (std::size_t k = b; k < e; ++k) {
            const int s = list[k];
            int sx0, sy0, sx1, sy1;
            g.sector_rect(s, sx0, sy0, sx1, sy1);
            label_borders(cost, g.config().params, sx0, sy0, sx1, sy1, g.config().sector_size, scratch, stack,
                          labels[static_cast<std::size_t>(s)]);
        }
    };
    parallel_for(js, list.size(), 16, task);
    return labels;
}

// Every border of the sectors in `sectors` (their east/south borders and their west/north
// neighbours' east/south borders), sorted, once each.
std::vector<int> borders_of(const SectorGraph& g, std::span<const int> sectors) {
    std::vector<int> list;
    for (int s : sectors) {
        const int sx = s % g.sectors_x(), sy = s / g.sectors_x();
        list.push_back(2 * s);
        list.push_back(2 * s + 1);
        if (sx > 0) list.push_back(2 * (s - 1));
        if (sy > 0) list.push_back(2 * (s - g.sectors_x()) + 1);
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    return list;
}

// The portals of one border (layout in the file comment) into `out`, from the border labels of
// its two sectors: runs of crossable positions split into pieces, pieces merged into portals.
void border_portals(const SectorGraph& g, const CostField& cost, int border,
                    const std::vector<std::vector<std::uint16_t>>& labels, std::vector<Portal>& out) {
    const int n = g.config().sector_size;
    const int limit = g.config().portal_limit;
    const int a = border / 2;
    const bool vertical = (border % 2) == 0;
    const int ax = a % g.sectors_x(), ay = a / g.sectors_x();
    out.clear();
    if (vertical ? ax + 1 >= g.sectors_x() : ay + 1 >= g.sectors_y()) return;
    const int b = vertical ? a + 1 : a + g.sectors_x();
    int x0, y0, x1, y1;
    g.sector_rect(a, x0, y0, x1, y1);
    const int len = vertical ? y1 - y0 : x1 - x0;
    const auto& la = labels[static_cast<std::size_t>(a)];
    const auto& lb = labels[static_cast<std::size_t>(b)];
    // Cell on a's side and b's side at border position k.
    auto side_a = [&](int k) { return vertical ? Cell{x1 - 1, y0 + k} : Cell{x0 + k, y1 - 1}; };
    auto side_b = [&](int k) { return vertical ? Cell{x1, y0 + k} : Cell{x0 + k, y1}; };
    auto crossable = [&](int k) {
        const Cell ca = side_a(k), cb = side_b(k);
        return cost.passable(ca.x, ca.y) && cost.passable(cb.x, cb.y);
    };
    auto label_pair = [&](int k) {
        const std::uint16_t p = vertical ? la[static_cast<std::size_t>(k)] : la[static_cast<std::size_t>(n + k)];
        const std::uint16_t q =
            vertical ? lb[static_cast<std::size_t>(2 * n + k)] : lb[static_cast<std::size_t>(3 * n + k)];
        return (static_cast<std::uint32_t>(p) << 16) | q;
    };
    // Pieces: runs of crossable positions, split evenly into stretches of at most `limit`.
    struct Piece {
        int first, last;
        std::uint32_t labels;
    };
    std::vector<Piece> pieces;
    for (int k = 0; k < len;) {
        if (!crossable(k)) {
            ++k;
            continue;
        }
        int e = k;
        while (e + 1 < len && crossable(e + 1)) ++e;
        const int run = e - k + 1;
        const int parts = (run + limit - 1) / limit;
        for (int p = 0; p < parts; ++p) {
            const int f = k + run * p / parts, l = k + run * (p + 1) / parts - 1;
            pieces.push_back({f, l, label_pair(f)});
        }
        k = e + 1;
    }
    // Portals: one per piece, or (merge_runs) consecutive pieces joining the same two parts
    // while they span at most `limit` positions.
    for (std::size_t i = 0; i < pieces.size();) {
        std::size_t j = i;
        if (g.config().merge_runs) {
            while (j + 1 < pieces.size() && pieces[j + 1].labels == pieces[i].labels &&
                   pieces[j + 1].last - pieces[i].first + 1 <= limit) {
                ++j;
            }
        }
        // Node: the crossable position nearest the portal's middle (ties: the lower one).
        const int first = pieces[i].first, last = pieces[j].last;
        const int mid2 = first + last;  // twice the middle
        int best = pieces[i].first, best_gap = 1 << 30;
        for (std::size_t q = i; q <= j; ++q) {
            const int c = std::clamp(mid2 / 2, pieces[q].first, pieces[q].last);
            const int gap = std::abs(2 * c - mid2);
            if (gap < best_gap) {
                best_gap = gap;
                best = c;
            }
        }
        Portal p;
        p.sector_a = a;
        p.sector_b = b;
        p.vertical = vertical;
        p.first = vertical ? y0 + first : x0 + first;
        p.last = vertical ? y0 + last : x0 + last;
        p.node_a = side_a(best);
        p.node_b = side_b(best);
        out.push_back(p);
        i = j + 1;
    }
}

// The node cells of every sector flagged in `need` (empty lists for the others).
std::vector<std::vector<Cell>> node_cells(const SectorGraph& g, const std::vector<char>& need) {
    std::vector<std::vector<Cell>> cells(static_cast<std::size_t>(g.sector_count()));
    for (int s = 0; s < g.sector_count(); ++s) {
        if (!need[static_cast<std::size_t>(s)]) continue;
        for (std::int32_t i = g.node_begin(s); i < g.node_begin(s + 1); ++i) {
            cells[static_cast<std::size_t>(s)].push_back(g.nodes()[static_cast<std::size_t>(i)].cell);
        }
    }
    return cells;
}

// The costs between the nodes of sector s (`intra`, to-major: intra[j * count + i] is from node i
// to node j): one search per node, restricted to the sector. Returns the searches run.
std::size_t sector_costs(const SectorGraph& g, const CostField& cost, int s, SectorSearch& search,
                         std::vector<std::int32_t>& stops, std::vector<float>& intra) {
    const std::int32_t base = g.node_begin(s);
    const std::int32_t count = g.node_begin(s + 1) - base;
    intra.assign(static_cast<std::size_t>(count) * count, std::numeric_limits<float>::infinity());
    intra.shrink_to_fit();
    if (count == 0) return 0;
    int x0, y0, x1, y1;
    g.sector_rect(s, x0, y0, x1, y1);
    search.load(cost, x0, y0, x1, y1, g.config().params);
    stops.clear();
    for (std::int32_t i = 0; i < count; ++i) {
        const Cell c = g.nodes()[static_cast<std::size_t>(base + i)].cell;
        stops.push_back(search.local(c.x, c.y));
    }
    for (std::int32_t j = 0; j < count; ++j) {
        search.reset();
        const Cell c = g.nodes()[static_cast<std::size_t>(base + j)].cell;
        search.seed(c.x, c.y, 0.0);
        search.run(stops);
        for (std::int32_t i = 0; i < count; ++i) {
            intra[static_cast<std::size_t>(j) * count + i] =
                static_cast<float>(search.value(stops[static_cast<std::size_t>(i)]));
        }
    }
    return static_cast<std::size_t>(count);
}

}  // namespace

void SectorGraph::sector_rect(int s, int& x0, int& y0, int& x1, int& y1) const noexcept {
    const int n = config_.sector_size;
    x0 = (s % sectors_x_) * n;
    y0 = (s / sectors_x_) * n;
    x1 = std::min(x0 + n, width_);
    y1 = std::min(y0 + n, height_);
}

double SectorGraph::intra_cost(std::int32_t from, std::int32_t to) const {
    const auto& a = nodes_[static_cast<std::size_t>(from)];
    const auto& b = nodes_[static_cast<std::size_t>(to)];
    const int s = sector_of(a.cell.x, a.cell.y);
    TIDE_ASSERT(s == sector_of(b.cell.x, b.cell.y));
    const std::int32_t base = node_begin_[static_cast<std::size_t>(s)];
    const std::int32_t n = node_begin_[static_cast<std::size_t>(s) + 1] - base;
    return costs_[static_cast<std::size_t>(s)].intra[static_cast<std::size_t>(to - base) * n + (from - base)];
}

std::size_t SectorGraph::memory_bytes() const noexcept {
    std::size_t bytes = portals_.capacity() * sizeof(Portal) + nodes_.capacity() * sizeof(SectorNode) +
                        node_begin_.capacity() * sizeof(std::int32_t) + component_.capacity() * sizeof(std::int32_t) +
                        node_sector_.capacity() * sizeof(std::int32_t) + node_cost_.capacity() * sizeof(Cost) +
                        costs_.capacity() * sizeof(SectorCosts) + borders_.capacity() * sizeof(std::vector<Portal>) +
                        (to_landmark_.capacity() + from_landmark_.capacity()) * sizeof(float);
    for (const auto& c : costs_) bytes += c.intra.capacity() * sizeof(float);
    for (const auto& b : borders_) bytes += b.capacity() * sizeof(Portal);
    return bytes;
}

Result<SectorGraph> SectorGraph::build(const CostField& cost, const SectorConfig& config, JobSystem* jobs) {
    if (config.sector_size < 16 || config.sector_size > 256) {
        return Error{"sector size " + std::to_string(config.sector_size) + " is outside 16..256"};
    }
    if (config.portal_limit < 1 || config.portal_limit > config.sector_size) {
        return Error{"portal limit " + std::to_string(config.portal_limit) + " is outside 1.." +
                     std::to_string(config.sector_size) + " (the sector size)"};
    }
    if (config.landmarks < 0 || config.landmarks > kMaxLandmarks) {
        return Error{"landmark count " + std::to_string(config.landmarks) + " is outside 0.." +
                     std::to_string(kMaxLandmarks)};
    }
    const double f = config.params.diagonal_factor;
    if (!(f >= 1.0 && f <= 2.0)) return Error{"diagonal factor " + std::to_string(f) + " is outside 1..2"};
    SectorGraph g;
    g.config_ = config;
    g.width_ = cost.width();
    g.height_ = cost.height();
    g.sectors_x_ = (g.width_ + config.sector_size - 1) / config.sector_size;
    g.sectors_y_ = (g.height_ + config.sector_size - 1) / config.sector_size;
    g.borders_.resize(static_cast<std::size_t>(g.sector_count()) * 2);
    g.costs_.resize(static_cast<std::size_t>(g.sector_count()));
    std::vector<int> all(static_cast<std::size_t>(g.sector_count()));
    std::iota(all.begin(), all.end(), 0);
    if (auto r = g.compute(cost, all, jobs); !r) return r.error();
    return g;
}

Result<SectorGraphStats> SectorGraph::update(const CostField& cost, int x0, int y0, int x1, int y1, JobSystem* jobs) {
    if (cost.width() != width_ || cost.height() != height_) {
        return Error{"cost field is " + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                     ", the sector graph was built for " + std::to_string(width_) + "x" + std::to_string(height_)};
    }
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    // A cell's change moves the portals of the borders it lies on; the margin catches the sector
    // across a border the rectangle touches.
    x0 = std::clamp(x0 - 1, 0, width_ - 1);
    y0 = std::clamp(y0 - 1, 0, height_ - 1);
    x1 = std::clamp(x1 + 1, 0, width_ - 1);
    y1 = std::clamp(y1 + 1, 0, height_ - 1);
    const int n = config_.sector_size;
    std::vector<int> sectors;
    for (int sy = y0 / n; sy <= y1 / n; ++sy) {
        for (int sx = x0 / n; sx <= x1 / n; ++sx) sectors.push_back(sy * sectors_x_ + sx);
    }
    if (auto r = compute(cost, sectors, jobs); !r) return r.error();
    ++version_;
    return stats_;
}

Result<void> SectorGraph::compute(const CostField& cost, std::span<const int> sectors, JobSystem* jobs) {
    SerialJobSystem serial;
    JobSystem& js = jobs != nullptr ? *jobs : serial;
    const bool first_build = node_begin_.empty();

    // 1. Border labels of the sectors whose borders are redone, and of their neighbours.
    std::vector<char> redo(static_cast<std::size_t>(sector_count()), 0);
    for (int s : sectors) redo[static_cast<std::size_t>(s)] = 1;
    const std::vector<char> need_labels = sectors_to_label(*this, sectors);
    const auto labels = border_labels(*this, cost, need_labels, js);

    // 2. Portals of every border of a redone sector.
    for (int border : borders_of(*this, sectors)) {
        border_portals(*this, cost, border, labels, borders_[static_cast<std::size_t>(border)]);
    }

    // 3. Node lists: which sectors' lists changed (their costs must be redone).
    std::vector<std::vector<Cell>> old_cells(static_cast<std::size_t>(sector_count()));
    if (!first_build) old_cells = node_cells(*this, need_labels);
    assemble(cost);
    std::vector<int> redo_costs;
    for (int s = 0; s < sector_count(); ++s) {
        if (!need_labels[static_cast<std::size_t>(s)]) continue;
        bool same = !first_build && redo[static_cast<std::size_t>(s)] == 0;
        if (same) {
            const auto& old = old_cells[static_cast<std::size_t>(s)];
            same = old.size() == static_cast<std::size_t>(node_begin(s + 1) - node_begin(s));
            for (std::size_t k = 0; same && k < old.size(); ++k) {
                same = old[k] == nodes_[static_cast<std::size_t>(node_begin(s)) + k].cell;
            }
        }
        if (!same) redo_costs.push_back(s);
    }

    // 4. Costs between the nodes of each redone sector.
    std::vector<std::size_t> searches(redo_costs.size(), 0);
    auto task = [&](std::size_t b, std::size_t e) {
        SectorSearch search;
        std::vector<std::int32_t> stops;
        for (std::size_t k = b; k < e; ++k) {
            const int s = redo_costs[k];
            searches[k] = sector_costs(*this, cost, s, search, stops, costs_[static_cast<std::size_t>(s)].intra);
        }
    };
    parallel_for(js, redo_costs.size(), 4, task);
    label_components();
    compute_landmarks(cost, js);
    stats_ = {};
    stats_.sectors = redo_costs.size();
    stats_.nodes = nodes_.size();
    stats_.portals = portals_.size();
    stats_.searches = std::accumulate(searches.begin(), searches.end(), std::size_t{0});
    return {};
}

void SectorGraph::assemble(const CostField& cost) {
    cheapest_ = kCostWall;
    for (Cost c : cost.cells()) {
        if (c < cheapest_) cheapest_ = c;
    }
    if (cheapest_ == kCostWall) cheapest_ = kCostPlain;
    portals_.clear();
    std::vector<std::int32_t> portal_base(borders_.size() + 1, 0);
    for (std::size_t b = 0; b < borders_.size(); ++b) {
        portal_base[b + 1] = portal_base[b] + static_cast<std::int32_t>(borders_[b].size());
        portals_.insert(portals_.end(), borders_[b].begin(), borders_[b].end());
    }
    // Nodes per sector: east a-sides, south a-sides, west b-sides, north b-sides.
    const int count = sector_count();
    node_begin_.assign(static_cast<std::size_t>(count) + 1, 0);
    for (int s = 0; s < count; ++s) {
        const int sx = s % sectors_x_, sy = s / sectors_x_;
        std::int32_t k = static_cast<std::int32_t>(borders_[2 * static_cast<std::size_t>(s)].size() +
                                                   borders_[2 * static_cast<std::size_t>(s) + 1].size());
        if (sx > 0) k += static_cast<std::int32_t>(borders_[2 * static_cast<std::size_t>(s - 1)].size());
        if (sy > 0) k += static_cast<std::int32_t>(borders_[2 * static_cast<std::size_t>(s - sectors_x_) + 1].size());
        node_begin_[static_cast<std::size_t>(s) + 1] = node_begin_[static_cast<std::size_t>(s)] + k;
    }
    nodes_.assign(static_cast<std::size_t>(node_begin_.back()), SectorNode{});
    // Index of the a-side and b-side nodes of each portal.
    std::vector<std::int32_t> node_a(portals_.size()), node_b(portals_.size());
    for (int s = 0; s < count; ++s) {
        const int sx = s % sectors_x_, sy = s / sectors_x_;
        std::int32_t at = node_begin_[static_cast<std::size_t>(s)];
        auto add = [&](int border, bool a_side) {
            const std::int32_t pb = portal_base[static_cast<std::size_t>(border)];
            for (std::size_t i = 0; i < borders_[static_cast<std::size_t>(border)].size(); ++i) {
                const Portal& p = borders_[static_cast<std::size_t>(border)][i];
                const std::int32_t pi = pb + static_cast<std::int32_t>(i);
                nodes_[static_cast<std::size_t>(at)].cell = a_side ? p.node_a : p.node_b;
                nodes_[static_cast<std::size_t>(at)].portal = pi;
                (a_side ? node_a : node_b)[static_cast<std::size_t>(pi)] = at;
                ++at;
            }
        };
        add(2 * s, true);
        add(2 * s + 1, true);
        if (sx > 0) add(2 * (s - 1), false);
        if (sy > 0) add(2 * (s - sectors_x_) + 1, false);
    }
    for (std::size_t p = 0; p < portals_.size(); ++p) {
        nodes_[static_cast<std::size_t>(node_a[p])].partner = node_b[p];
        nodes_[static_cast<std::size_t>(node_b[p])].partner = node_a[p];
    }
    // The route search settles thousands of nodes per query: their sector and cell cost are read
    // here, not from the map (a cache miss per node on big maps, a fifth of the search's time).
    node_sector_.resize(nodes_.size());
    node_cost_.resize(nodes_.size());
    for (int s = 0; s < count; ++s) {
        for (std::int32_t i = node_begin(s); i < node_begin(s + 1); ++i) {
            node_sector_[static_cast<std::size_t>(i)] = s;
            node_cost_[static_cast<std::size_t>(i)] = cost.at(nodes_[static_cast<std::size_t>(i)].cell);
        }
    }
}

void SectorGraph::label_components() {
    std::vector<std::int32_t> parent(nodes_.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](std::int32_t x) {
        while (parent[static_cast<std::size_t>(x)] != x) {
            parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
            x = parent[static_cast<std::size_t>(x)];
        }
        return x;
    };
    auto unite = [&](std::int32_t a, std::int32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    };
    for (int s = 0; s < sector_count(); ++s) {
        const std::int32_t base = node_begin(s), count = node_begin(s + 1) - base;
        const auto& intra = costs_[static_cast<std::size_t>(s)].intra;
        for (std::int32_t i = 0; i < count; ++i) {
            for (std::int32_t j = i + 1; j < count; ++j) {
                if (std::isfinite(intra[static_cast<std::size_t>(i) * count + j])) unite(base + i, base + j);
            }
        }
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) unite(static_cast<std::int32_t>(i), nodes_[i].partner);
    component_.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) component_[i] = find(static_cast<std::int32_t>(i));
}

void SectorGraph::compute_landmarks(const CostField& cost, JobSystem& jobs) {
    // Landmarks: the nodes nearest the map's corners and edge middles (then its centre), in the
    // largest connected part; for each, a Dijkstra over the graph each way.
    const std::size_t n = nodes_.size();
    std::vector<std::int32_t> size(n, 0);
    for (std::size_t i = 0; i < n; ++i) ++size[static_cast<std::size_t>(component_[i])];
    std::int32_t big = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (size[i] > size[static_cast<std::size_t>(big)]) big = static_cast<std::int32_t>(i);
    }
    const int wanted = n == 0 ? 0 : config_.landmarks;
    const int w = width_ - 1, h = height_ - 1;
    const Cell spots[9] = {{0, 0},     {w, h},     {w, 0},     {0, h},        {w / 2, 0},
                           {w / 2, h}, {0, h / 2}, {w, h / 2}, {w / 2, h / 2}};
    std::vector<std::int32_t> marks;
    for (int k = 0; k < wanted; ++k) {
        const Cell p = spots[k % 9];
        std::int32_t best = -1;
        long long best_d = -1;
        for (std::size_t i = 0; i < n; ++i) {
            if (component_[i] != big ||
                std::find(marks.begin(), marks.end(), static_cast<std::int32_t>(i)) != marks.end())
                continue;
            const long long dx = nodes_[i].cell.x - p.x, dy = nodes_[i].cell.y - p.y;
            const long long d = dx * dx + dy * dy;
            if (best < 0 || d < best_d) {
                best = static_cast<std::int32_t>(i);
                best_d = d;
            }
        }
        if (best < 0) break;
        marks.push_back(best);
    }
    landmark_count_ = static_cast<int>(marks.size());
    const int L = landmark_count_;
    to_landmark_.assign(n * static_cast<std::size_t>(L), std::numeric_limits<float>::infinity());
    from_landmark_.assign(n * static_cast<std::size_t>(L), std::numeric_limits<float>::infinity());
    if (L == 0) return;
    // Task 2l: costs to landmark l (reverse search); task 2l + 1: costs from it (forward search).
    auto task = [&](std::size_t b, std::size_t e) {
        std::vector<double> dist;
        std::vector<std::pair<double, std::int32_t>> heap;
        const auto cmp = [](const auto& a, const auto& c) { return a.first > c.first; };
        for (std::size_t t = b; t < e; ++t) {
            const int l = static_cast<int>(t / 2);
            const bool reverse = (t % 2) == 0;
            dist.assign(n, std::numeric_limits<double>::infinity());
            heap.clear();
            dist[static_cast<std::size_t>(marks[static_cast<std::size_t>(l)])] = 0.0;
            heap.push_back({0.0, marks[static_cast<std::size_t>(l)]});
            while (!heap.empty()) {
                std::pop_heap(heap.begin(), heap.end(), cmp);
                // Plain variables, not a structured binding: the lambda below captures d, which
                // clang before 16 refuses for bindings (the fuzz build uses clang).
                const double d = heap.back().first;
                const std::int32_t v = heap.back().second;
                heap.pop_back();
                if (d > dist[static_cast<std::size_t>(v)]) continue;
                const SectorNode& nv = nodes_[static_cast<std::size_t>(v)];
                auto relax = [&](std::int32_t u, double c) {
                    if (d + c < dist[static_cast<std::size_t>(u)]) {
                        dist[static_cast<std::size_t>(u)] = d + c;
                        heap.push_back({d + c, u});
                        std::push_heap(heap.begin(), heap.end(), cmp);
                    }
                };
                // Reverse: predecessors u of v (u -> v); forward: successors of v.
                const Cell pc = nodes_[static_cast<std::size_t>(nv.partner)].cell;
                relax(nv.partner, reverse ? static_cast<double>(cost.at(nv.cell)) : static_cast<double>(cost.at(pc)));
                const int s = sector_of(nv.cell.x, nv.cell.y);
                const std::int32_t base = node_begin_[static_cast<std::size_t>(s)];
                const std::int32_t count = node_begin_[static_cast<std::size_t>(s) + 1] - base;
                const float* intra = costs_[static_cast<std::size_t>(s)].intra.data();
                const std::int32_t me = v - base;
                for (std::int32_t i = 0; i < count; ++i) {
                    const float c = reverse ? intra[static_cast<std::size_t>(me) * count + i]
                                            : intra[static_cast<std::size_t>(i) * count + me];
                    if (i != me && c < std::numeric_limits<float>::infinity()) relax(base + i, c);
                }
            }
            auto& out = reverse ? to_landmark_ : from_landmark_;
            for (std::size_t i = 0; i < n; ++i)
                out[i * static_cast<std::size_t>(L) + static_cast<std::size_t>(l)] = static_cast<float>(dist[i]);
        }
    };
    parallel_for(jobs, static_cast<std::size_t>(2 * L), 1, task);
}

}  // namespace tide
