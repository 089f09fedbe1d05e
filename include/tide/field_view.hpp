#pragma once
/// \file field_view.hpp
/// What a group of units follows, whatever planned it: a whole-map FlowField or a hierarchical
/// plan (HierarchicalField: sector fields built along the routes units need). The FieldService
/// hands one out per ticket and the Crowd samples it; neither the crowd nor the host needs to
/// know which kind it holds. A view is a pair of shared pointers: copying it is cheap, and the
/// field or plan lives while any copy does.
///
/// Threads: a FlowField is immutable. A plan grows (route() adds sector fields, edits drop some)
/// only in the service's planning calls (FieldService::route(), publish(), request()), which the
/// host makes between the readers' steps; between those, any number of threads may read it (why
/// plans are not copied at each change instead: docs/architecture.md, "One request path").

#include <memory>
#include <vector>

#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"

namespace tide {

/// A whole-map field or a hierarchical plan, read the same way. See the file comment.
class FieldView {
public:
    FieldView() = default;
    /// A view of a whole-map field (null: an empty view).
    FieldView(std::shared_ptr<const FlowField> field) noexcept : flat_(std::move(field)) {}  // NOLINT: implicit
    /// A view of a hierarchical plan (null: an empty view).
    FieldView(std::shared_ptr<const HierarchicalField> plan) noexcept : plan_(std::move(plan)) {}  // NOLINT

    /// True when the view holds a field or a plan.
    explicit operator bool() const noexcept { return flat_ || plan_; }
    /// The whole-map field, or null (a plan, or an empty view).
    const std::shared_ptr<const FlowField>& flat() const noexcept { return flat_; }
    /// The hierarchical plan, or null (a whole-map field, or an empty view).
    const std::shared_ptr<const HierarchicalField>& plan() const noexcept { return plan_; }
    /// Goal or flee field (plans are goal fields). On an empty view: goal.
    FieldKind kind() const noexcept { return flat_ ? flat_->kind() : FieldKind::goal; }
    /// Map columns (0 for an empty view).
    int width() const noexcept { return flat_ ? flat_->width() : plan_ ? plan_->graph().width() : 0; }
    /// Map rows (0 for an empty view).
    int height() const noexcept { return flat_ ? flat_->height() : plan_ ? plan_->graph().height() : 0; }

    /// Cost still to go from (x, y), on the map, for progress and arrival: the field's stopping
    /// cost (FlowField::to_stop()), or the plan's value or estimate (HierarchicalField::to_go()).
    float to_go(int x, int y) const {
        if (flat_)
            return flat_->to_stop()[static_cast<std::size_t>(y) * static_cast<std::size_t>(flat_->width()) +
                                    static_cast<std::size_t>(x)];
        return plan_->to_go(x, y);
    }
    /// Flow code at (x, y), on the map (a plan's sector without a field: Direction::unreachable).
    Direction direction(int x, int y) const {
        if (flat_) return flat_->direction(x, y);
        return plan_->direction(x, y);
    }
    /// Integration value at (x, y), on the map (+inf where none, or not built yet).
    float integration(int x, int y) const {
        if (flat_)
            return flat_->integration()[static_cast<std::size_t>(y) * static_cast<std::size_t>(flat_->width()) +
                                        static_cast<std::size_t>(x)];
        return plan_->integration(x, y);
    }
    /// Wall-safe flow direction at a continuous position (FlowField::sample(),
    /// HierarchicalField::sample()).
    Vec2 sample(Vec2 p) const { return flat_ ? flat_->sample(p) : plan_->sample(p); }
    /// Smooth flow direction, not wall-safe (FlowField::blend(), HierarchicalField::blend()).
    Vec2 blend(Vec2 p) const { return flat_ ? flat_->blend(p) : plan_->blend(p); }
    /// True when the view grows by routing (a plan: FieldService::route() builds its sector
    /// fields where units stand); false for a whole-map field, which covers every cell already.
    bool routes() const noexcept { return plan_ != nullptr; }
    /// True when a unit on (x, y) needs no more planning to follow the view to a goal: always for a
    /// whole-map field; for a plan, when the cell's sector has a field made by a route.
    bool routed_at(int x, int y) const {
        if (!plan_) return true;
        const SectorField* f = plan_->sector_field(plan_->graph().sector_of(x, y));
        return f != nullptr && f->routed;
    }

    /// The field's or plan's address (null for an empty view): which one a view holds, for
    /// remembering it without keeping it alive.
    const void* id() const noexcept {
        return flat_ ? static_cast<const void*>(flat_.get()) : static_cast<const void*>(plan_.get());
    }

    /// Same field or plan.
    friend bool operator==(const FieldView& a, const FieldView& b) noexcept {
        return a.flat_ == b.flat_ && a.plan_ == b.plan_;
    }

private:
    std::shared_ptr<const FlowField> flat_;
    std::shared_ptr<const HierarchicalField> plan_;
};

}  // namespace tide
