#pragma once
// Arrival regions: where a group's units may stand as arrived, and the way to a free place in it.
//
// A group's region grows from its goals outward over the cells its field reaches, in order of
// their cost to go, until it holds the group's units at a packing density. It leaves out the
// cells other groups' moving units still have to pass (their remaining paths, and the cells
// beside them), and it does not reach across a passage narrower than the pack (a gap, a door, a
// corridor) that moving units still pass through, its own units included: no place is behind a
// wall from the goal while the way round it is in use. Its units fill it from the far end: each region cell has a
// depth, its distance inside the region from where the group's own moving units come in (the cells where their paths
// enter it), and a fill field leads every unit near the region to the deepest free place it can reach, round the places
// already taken. A pack therefore grows from the back of the region toward the way in and never plugs the gap, door or
// corridor its own units still come through; on open ground, where units come from every side, the deepest places are
// round the goal and the pack grows round. docs/crowd.md, "Arrival regions".
//
// Everything is made again by refresh(), serially from one state of the crowd, so the result is
// the same for any job system.

#include <cstdint>
#include <span>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"

namespace tide::detail {

/// One group's goal field or plan as the refresh reads it, or none (no region: the group's units
/// arrive as they did without regions, e.g. flee groups).
struct RegionField {
    const FieldView* view = nullptr;
    std::span<const std::uint32_t> goals;  ///< Goal cells (y * width + x).

    explicit operator bool() const noexcept { return view != nullptr; }
    /// Which field or plan it is (FieldView::id()), null for none.
    const void* id() const noexcept { return view ? view->id() : nullptr; }
    /// Cost to go at a top-left cell on the map (kUnreachable where there is none).
    float value(int x, int y) const;
    /// Move code (Direction) at a top-left cell.
    std::uint8_t move(int x, int y) const;
};

/// What the refresh needs to know of one group (index = crowd group id).
struct RegionGroup {
    RegionField field;        ///< Null: the group has no region.
    float area = 0.0f;        ///< Summed disc area of its units, cells^2.
    float max_radius = 0.0f;  ///< Largest radius of its units, cells.
};

/// What an agent is doing, as the refresh sees it.
enum class RegionRole : std::uint8_t { other, moving, arrived };

/// One agent: its group, its top-left cell, its disc area and what it is doing.
struct RegionAgent {
    std::uint32_t group = 0;
    std::int32_t x = 0, y = 0;
    float area = 0.0f;
    RegionRole role = RegionRole::other;
};

/// The regions and fill fields of every group, made again by refresh(). Not thread-safe while
/// refreshing; the const queries may be called from any number of threads between refreshes.
class ArrivalRegions {
public:
    /// No anchor (anchor() of a group without a region).
    static constexpr std::uint32_t kNoAnchor = 0xffffffffu;
    /// Packing density the region is sized for: cells = summed disc area / this. Low: the region
    /// only bounds where units may arrive (never behind a passage, never in another group's way);
    /// the pack fills it in the order of its fill keys and stands denser.
    static constexpr float kDensity = 0.35f;

    /// Makes every group's region and fill field from the groups' fields and the agents.
    void refresh(const CostField& terrain, std::span<const RegionGroup> groups, std::span<const RegionAgent> agents);
    /// Forgets every region (every unit may arrive anywhere, as without regions).
    void clear() noexcept { regions_.clear(); }
    /// True when the group has a region.
    bool active(std::uint32_t group) const noexcept { return group < regions_.size() && regions_[group].active; }
    /// True when the top-left cell (x, y) is in the group's region, or the group has none.
    bool allows(std::uint32_t group, int x, int y) const noexcept;
    /// True when `cell` (y * width + x) lies in a passage units still come through, at the edge of
    /// the group's region: its units must not stand there.
    bool keep_clear(std::uint32_t group, std::uint32_t cell) const noexcept;
    /// Largest cost to go of the group's region (kUnreachable when it has none).
    float radius(std::uint32_t group) const noexcept;
    /// The fill key (Steer::key) within which the first `cells` cells of the group's region lie: a
    /// pack of that area gathered round the anchor covers the cells of lower keys. -inf without a region.
    float pack_key(std::uint32_t group, float cells) const noexcept;
    /// True when `other` has goals in `group`'s region: its units end in the same pack (and are not
    /// passing through it).
    bool shares(std::uint32_t group, std::uint32_t other) const noexcept;
    /// The cell the group's pack is centred on (kNoAnchor when it has none).
    std::uint32_t anchor(std::uint32_t group) const noexcept {
        return active(group) ? regions_[group].anchor : kNoAnchor;
    }
    /// Disc area of other groups' arrived units standing in the group's region at the last refresh
    /// (a group with goals there shares the pack).
    float foreign_area(std::uint32_t group) const noexcept;
    /// Cells of the group's region (0 when it has none).
    std::size_t cells(std::uint32_t group) const noexcept { return active(group) ? regions_[group].cells : 0; }
    /// What the fill field says at a top-left point.
    struct Steer {
        float dx = 0.0f, dy = 0.0f;  ///< Direction, blended like FlowField::sample(); at a place, toward the anchor.
        float value = 0.0f;          ///< Fill value of the cell: cost to the anchor.
        float key = 0.0f;            ///< Order in which the pack takes the cell (lower first).
        bool place = false;          ///< The cell is a free place nothing leads on from.
        bool anchor = false;         ///< The cell is the anchor, the pack's centre.
        bool guide = false;          ///< Steer by dx, dy (the pack has started, or is anchored away from the goal).
        bool taken = false;          ///< Arrived units cover the cell (the pack stands on it).
    };
    /// The fill field at the top-left point p (cell units); false when p is outside the group's
    /// fill field (the unit follows the group's field there).
    bool steer(std::uint32_t group, float px, float py, Steer& out) const noexcept;

private:
    struct Region {
        bool active = false;
        int x0 = 0, y0 = 0, w = 0, h = 0;  // bounding box of the region's cells
        std::vector<std::uint64_t> bits;   // row-major over the box
        float radius = kUnreachable;
        std::size_t cells = 0;
        // The fill field, over the box grown by kFillMargin: a move code per cell (Direction:
        // a move, goal for a free place nothing leads on from, unreachable outside it).
        int fx0 = 0, fy0 = 0, fw = 0, fh = 0;
        std::vector<std::uint8_t> fill;
        std::vector<std::uint8_t> toward;  // move codes toward the anchor
        std::vector<float> fill_value;
        std::vector<std::uint8_t> taken;        // 1: arrived units cover the cell (kFreeArea of disc area on it)
        std::size_t anchor_i = 0;               // the anchor's index in the fill box
        std::uint32_t anchor = kNoAnchor;       // the cell the pack is centred on
        bool guide = false;                     // Steer::guide
        std::vector<float> fill_key;            // the order the pack fills cells in (lower first)
        std::vector<float> by_key;              // the region's keys, ascending
        std::vector<std::uint32_t> keep_clear;  // cells of passages in use at its edge, ascending
        float foreign = 0.0f;                   // disc area of other groups' arrived units in the region
    };
    // Where a group's pack is centred, kept from refresh to refresh while the group follows the
    // same field and the cell stays suitable.
    struct Anchor {
        std::uint32_t cell = kNoAnchor;
        const void* field = nullptr;  // FieldView::id() of the field it was found on
        bool one_way_in = false;      // its units came in by one way (kept with the field)
    };
    std::vector<Anchor> anchors_;
    std::vector<std::uint8_t> started_;    // by group: some of its units have arrived
    std::vector<std::uint8_t> ends_here_;  // by group: it has goals in the region being grown
    std::vector<std::uint8_t> shares_;     // by group pair (g * groups + h): shares(g, h)
    std::vector<std::uint32_t> entries_;   // the ways in of the group being made
    // Path cells of the refresh.
    struct PathCell {
        std::uint32_t key = 0;           // cell index + 1; 0: empty slot
        std::uint32_t traffic = 0;       // group + 1 whose moving units pass here
        std::uint32_t traffic2 = 0;      // a second such group + 1, kMany for more
        std::uint32_t walked = 0;        // group + 1 of the last walk through it (merging walks stop)
        std::uint32_t entered = 0;       // group + 1 whose walks entered its region here
        std::uint32_t walked_entry = 0;  // group + 1 of the last entry walk through it
        std::int16_t width = -1;         // passage width, cells (-1: not measured yet)
        bool in_use = false;             // traffic crosses the passage's narrowest line through the cell
    };
    struct Seen {
        std::uint32_t key = 0;
    };
    static constexpr std::uint32_t kMany = 0xffffffffu;
    // A small open-addressing table from cell index to V (V has a `key` member: cell index + 1, 0 =
    // empty slot). Lookups and inserts only, so its contents never depend on the order of a hash.
    template <class V>
    struct CellTable {
        std::vector<V> slots;
        std::size_t used = 0;
        void reset(std::size_t expected);
        V& insert(std::uint32_t cell);
        const V* find(std::uint32_t cell) const;
    };

    static int passage_width(const CostField& terrain, int x, int y, int cap, int& axis);
    enum class Passage : std::uint8_t { none, idle, in_use };
    Passage passage_at(const CostField& terrain, int x, int y, int narrow);
    // Both walks return the moves they followed.
    int walk_traffic(const CostField& terrain, const RegionField& f, std::uint32_t group, int x, int y);
    static int narrow_for(float area);
    void mark_ends_here(const CostField& terrain, std::span<const RegionGroup> groups);
    int walk_entry(const CostField& terrain, const RegionField& f, const Region& r, std::uint32_t group, int narrow,
                   int x, int y);
    bool excluded(std::uint32_t group, int width, int height, int x, int y) const;
    void grow(const CostField& terrain, const RegionField& f, std::uint32_t group, float area, float max_radius,
              bool others, bool passages, Region& out);
    static int spread(const CostField& terrain, std::span<const std::uint32_t> cells);
    bool contains(const Region& r, int x, int y) const noexcept;
    void fill(const CostField& terrain, const RegionField& f, std::uint32_t group, float area, bool started,
              bool one_way_in, std::span<const RegionAgent> agents, Region& r);
    // fill()'s phases, in the order they run.
    void fill_depth(int W, std::uint32_t group, const Region& r);
    std::uint32_t fill_anchor(const RegionField& f, int W, std::uint32_t group, bool started, float deep_enough,
                              const Region& r);
    void fill_keys(const CostField& terrain, const RegionField& f, float deep_enough, Region& r);
    void fill_from_next_places(const CostField& terrain, const RegionField& f, std::uint32_t group,
                               std::span<const RegionAgent> agents, Region& r);

    std::vector<Region> regions_;
    Region own_;  // scratch: the region a group's own traffic allows (its anchor's)
    CellTable<PathCell> paths_;
    CellTable<Seen> seen_;                 // growth: cells offered
    std::vector<std::uint32_t> admitted_;  // growth: cells admitted
    // Fill scratch over a region's fill box: depth, values.
    std::vector<float> depth_, value_, taken_;
    std::vector<std::uint32_t> queue_;
};

}  // namespace tide::detail
