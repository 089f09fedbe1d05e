#pragma once
// Formations (Crowd::set_group_formation): per group, an anchor walking the group's field and the
// slots around it; per unit, its slot. Updated once per sub-step before the agent phases, in slot
// order on the calling thread (the same for any job system); the agent phases only read it.

#include <cstdint>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"
#include "tide/field_view.hpp"

namespace tide::detail {

// One group's formation.
struct GroupFormation {
    bool active = false;
    Formation spec;
    bool started = false;  // the anchor is placed (at the first update with members)
    bool arrived = false;  // the anchor stands at the goal
    Vec2 anchor{}, heading{1.0f, 0.0f}, velocity{};
    float anchor_to_go = 0.0f;
    std::vector<Vec2> offsets;         // the slots in the formation's frame (x right, y ahead)
    std::vector<Vec2> place;           // each slot's place now (pulled in front of a wall that hides it)
    std::vector<std::uint8_t> hidden;  // 1: a wall hides the slot from the anchor
    std::size_t members = 0;           // members at the last assignment
    float error = 0.0f;                // mean distance of the units to their slots at the last update
    std::uint64_t reassignments = 0, units_reassigned = 0;
    float turned = 0.0f;  // radians the heading has turned while marching
};

class Formations {
public:
    std::vector<GroupFormation> groups;  // by group index
    std::vector<std::int32_t> slot_of;   // by agent slot (AgentId::index): its formation slot, -1 none
    // Scratch of Crowd::update_formations, kept between sub-steps: each group's entries, and the
    // slots seen taken while checking an assignment.
    std::vector<std::vector<std::uint32_t>> members;
    std::vector<std::uint8_t> taken;

    bool any() const noexcept {
        for (const GroupFormation& g : groups)
            if (g.active) return true;
        return false;
    }
    const GroupFormation* of(std::uint32_t group) const noexcept {
        return group < groups.size() && groups[group].active ? &groups[group] : nullptr;
    }
    std::int32_t slot(std::uint32_t agent_slot) const noexcept {
        return agent_slot < slot_of.size() ? slot_of[agent_slot] : -1;
    }
};

// The slots of `spec` for n units, in the formation's frame (x right, y ahead), centred on the
// anchor; ranks front first, each left to right. Custom offsets as given (units beyond them get
// box ranks behind).
std::vector<Vec2> formation_offsets(const Formation& spec, std::size_t n);

// True when the straight line from a to b crosses only passable cells of `cost` on the map, and
// cuts no wall corner (exactly: every cell it crosses).
bool open_line(const CostField& cost, Vec2 a, Vec2 b);

// How a formation unit pursues its slot: the anchor's velocity plus this gain (1/s) times its
// distance to the slot, up to its speed.
inline constexpr float kSlotGain = 2.0f;
// A unit arrives on its slot within this distance of it (once the anchor has arrived), and stays
// arrived within kSlotKeep.
inline constexpr float kSlotArrive = 0.25f;
inline constexpr float kSlotKeep = 0.6f;

}  // namespace tide::detail
