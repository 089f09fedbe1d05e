#pragma once
/// \file viewer.hpp
/// What one viewer of a World keeps apart from the world (target tide::world): the units it
/// selected and the group whose field it is shown. A host with several viewers of one world (the
/// demo server: one per page) keeps a Viewer for each; the world itself stays shared. Not
/// thread-safe: use it on the thread that drives the world.

#include <optional>
#include <span>
#include <vector>

#include "tide/export.h"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide {

/// The group most of `units` belong to (stale handles skipped; ties: the lowest id); 0 when none.
TIDE_WORLD_API UnitGroupId majority_group(const World& world, std::span<const AgentId> units);

/// One viewer's selection and shown group.
class TIDE_WORLD_API Viewer {
public:
    /// Selects the units in `box` (World::select), or clears the selection when there is none.
    void select(const World& world, const std::optional<SelectBox>& box);
    /// Clears the selection (a respawn: new units may reuse old handles).
    void clear_selection() noexcept { selection_.clear(); }
    /// Drops the handles of units that left the world; true when any went.
    bool drop_departed(const World& world);
    /// The selected units, in roster order at the time of selection.
    const std::vector<AgentId>& selection() const noexcept { return selection_; }

    /// Shows `group`'s field (0: automatic, see shown_group()). Error (not_found) for a group the
    /// world does not have; the choice is kept then.
    Result<void> show(const World& world, UnitGroupId group);
    /// The group chosen with show() (0: automatic).
    UnitGroupId chosen_group() const noexcept { return chosen_; }
    /// The group whose field this viewer is shown: its choice while that group lives, else the
    /// majority group of its selection, else the world's largest group (0 when there is none).
    UnitGroupId shown_group(const World& world) const;

    /// An order for the selected units to `goals` (fleeing from them with `flee`), for
    /// World::apply(). Error (invalid_argument) when nothing is selected.
    Result<Order> order(std::vector<Cell> goals, bool flee) const;

    /// Forgets the selection and the choice (a new map).
    void reset() noexcept {
        selection_.clear();
        chosen_ = 0;
    }

private:
    std::vector<AgentId> selection_;
    UnitGroupId chosen_ = 0;
};

}  // namespace tide
