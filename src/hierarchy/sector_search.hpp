#pragma once
// A Dijkstra confined to one rectangle of the map (a sector, or a few), used by the portal graph
// (costs between the nodes of a sector) and by the sector fields (internal).
//
// Reverse search with forward costs, as FieldBuilder: a cell's value is the least cost of a path
// from it to a seed, a move x -> y costing length x cost(y), diagonals only when both orthogonal
// neighbours are passable. Seeds are cells of the rectangle (goals, value 0) or cells of the
// one-cell frame around it (exits, any value): frame cells pass their value in but never take one.
//
// Values are fixed point (16 fraction bits: an orthogonal move into a cell of cost c adds exactly
// c, a diagonal one c x factor rounded to 2^-16). The queue is an exact bucket queue (buckets as
// wide as the cheapest move, see src/fields/integration.cpp for why cells of one bucket are final); seeds
// far apart are fed in as the search reaches their value.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"

namespace tide::hier_detail {

class SectorSearch {
public:
    using Fixed = std::uint64_t;
    static constexpr Fixed kInf = std::numeric_limits<Fixed>::max();
    static constexpr int kFrac = 16;
    static constexpr double kScale = 1.0 / 65536.0;

    /// Prepares the rectangle [x0, x1) x [y0, y1) of `cost` (clipped rectangles only).
    void load(const CostField& cost, int x0, int y0, int x1, int y1, const FieldParams& params);
    /// Forgets every seed and value (keeps the loaded cells).
    void reset();
    /// Starts from an earlier field of the same rectangle (values and flow codes, row-major, as
    /// write_field() wrote them, on the same costs): run() then only lowers values, touching only
    /// the cells a seed improves, and gives what a search from scratch with all seeds would (up to
    /// the float rounding of the earlier values) when the seeds only dropped since.
    void preset(std::span<const float> values, std::span<const Direction> directions);
    /// Seeds map cell (x, y) (in the rectangle or its frame; walls, cells off the map, and values
    /// that are negative, not finite or 2^46 and above are ignored) with `value`, keeping the smaller
    /// of two seeds of one cell.
    void seed(int x, int y, double value);
    /// Runs the search. With `stop_cells` given, stops once all of them are settled.
    void run(std::span<const std::int32_t> stop_cells = {});

    /// Local index of map cell (x, y) (rectangle or frame).
    std::int32_t local(int x, int y) const noexcept { return (y - y0_ + 2) * pw_ + (x - x0_ + 2); }
    /// Value of local cell i in cost units (+inf when not reached).
    double value(std::int32_t i) const noexcept {
        return dist_[static_cast<std::size_t>(i)] == kInf
                   ? std::numeric_limits<double>::infinity()
                   : static_cast<double>(dist_[static_cast<std::size_t>(i)]) * kScale;
    }
    /// Flow code (0..7) of local cell i after run(): the move its value came through (meaningless
    /// for a seed that kept its seeded value).
    int move(std::int32_t i) const noexcept { return via_[static_cast<std::size_t>(i)]; }
    /// Writes the values (float, +inf when none) and flow codes of the rectangle's cells, row-major.
    void write_field(std::span<float> values, std::span<Direction> directions) const;
    /// After a run() that followed preset(): writes only the cells that run lowered into `values`
    /// and `directions` (which hold the preset field), as write_field() would write them. Every
    /// other cell keeps the preset value and code, which write_field() would write back unchanged
    /// (a float value survives the trip to fixed point and back), so the result is the same.
    void write_lowered(std::span<float> values, std::span<Direction> directions) const;

private:
    static constexpr std::uint8_t kNone = 0, kRegion = 1, kFrame = 2, kDone = 4;
    struct Seed {
        Fixed value;
        std::int32_t cell;
    };
    struct Bucket {
        std::vector<std::int32_t> data;  // capacity; the stack is data[0, size)
        std::size_t size = 0;
    };
    // What one run's offers read and write, held in the run's locals: the byte stores into via_
    // may alias anything, so through the members the compiler reloaded the arrays' addresses.
    struct Frontier {
        Fixed* dist;
        std::uint8_t* via;
        const Cost* cost;
        std::int32_t off[8];
        std::size_t mask;  // bucket index mask (ring_ - 1)
        int shift;         // bucket of a value: value >> shift
        std::size_t queued;
    };
    template <bool Eight>
    void run_impl(std::span<const std::int32_t> stop_cells);
    // Marks the rectangle's cells among `stop_cells` (once each) and returns how many there are.
    std::size_t mark_stops(std::span<const std::int32_t> stop_cells);
    // Clears what a run leaves behind: the stop marks, the settled marks and the buckets.
    void end_run(std::span<const std::int32_t> stop_cells);
    // Grows bucket bk so that one settled cell's offers fit on its stack.
    static void make_room(Bucket& bk);
    // Offers settled cell y (value dy) to the neighbours that would move into it.
    template <bool Eight>
    void relax(Frontier& f, std::int32_t y, Fixed dy);

    int x0_ = 0, y0_ = 0, x1_ = 0, y1_ = 0, pw_ = 0, ph_ = 0;
    bool eight_ = true;
    int shift_ = 0;
    double table_factor_ = -1.0;  // diagonal factor orth_ and diag_ were made for (-1: none yet)
    std::size_t ring_ = 0;
    std::int32_t off_[8] = {};
    Fixed orth_[256] = {};
    Fixed diag_[256] = {};
    std::vector<Cost> cost_;          // padded by 2; 255 for walls, off-map and padding
    std::vector<std::uint8_t> kind_;  // kNone / kRegion (passable rectangle cell) / kFrame
    std::vector<std::uint8_t> goal_;  // rectangle cells seeded (value 0 or any): no flow move
    std::vector<Fixed> dist_;
    std::vector<std::uint8_t> via_;  // move of each reached cell
    std::vector<std::uint8_t> stop_;
    bool preset_ = false;                // preset() since load(): run() records the cells it settles
    std::vector<std::int32_t> lowered_;  // cells settled by the last run() after a preset()
    std::vector<Seed> seeds_;
    std::vector<Bucket> buckets_;
};

}  // namespace tide::hier_detail
