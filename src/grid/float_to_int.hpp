#pragma once
// Float to int conversions of the simulation's state path (docs/determinism.md, "How it is
// made"). A plain cast is undefined for NaN and for values outside int's range, and CPUs answer
// differently there (x86 gives INT_MIN, ARM saturates, NaN gives 0 on ARM), so a value that ever
// slipped out of range would part two machines without a trace. These are defined for every
// input, and equal to the plain conversion for every value in range: replacing a cast by them
// changes no result.

#include <cmath>

namespace tide::detail {

/// Far beyond any cell coordinate (maps are at most 16384 a side): the bound of conversions whose
/// callers check the range themselves.
inline constexpr int kCellLimit = 1 << 30;

/// static_cast<int>(v) (truncation toward zero) clamped to [lo, hi]; NaN gives lo. Equals
/// std::clamp(static_cast<int>(v), lo, hi) wherever that is defined.
inline int clamped_int(float v, int lo, int hi) noexcept {
    if (!(v > static_cast<float>(lo))) return lo;  // below, or NaN
    if (v >= static_cast<float>(hi)) return hi;
    return static_cast<int>(v);
}

/// std::floor(v) as an int clamped to [lo, hi]; NaN gives lo.
inline int clamped_floor(float v, int lo, int hi) noexcept {
    return clamped_int(std::floor(v), lo, hi);
}

/// std::lround(v) clamped to [lo, hi]; NaN gives lo. Without the libm call (the crowd rounds two
/// headings per agent and sub-step): v minus its truncation is exact, so halves round away from
/// zero exactly as lround does.
inline int clamped_round(float v, int lo, int hi) noexcept {
    if (!(v > static_cast<float>(lo))) return lo;
    if (v >= static_cast<float>(hi)) return hi;
    const int i = static_cast<int>(v);
    const float frac = v - static_cast<float>(i);
    return i + (frac >= 0.5f ? 1 : 0) - (frac <= -0.5f ? 1 : 0);
}

}  // namespace tide::detail
