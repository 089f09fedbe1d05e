#pragma once
// The world's internals shared by world.cpp, world_orders.cpp, world_terrain.cpp and
// world_spawn.cpp: a group's record and small helpers.

#include <chrono>
#include <memory>
#include <vector>

#include "tide/world.hpp"

namespace tide::world_detail {

using Clock = std::chrono::steady_clock;
inline constexpr GroupId kNoCrowdGroup{0xFFFFFFFFu, 0xFFFFFFFFu};  // no crowd group yet

inline double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace tide::world_detail

namespace tide {

using world_detail::Clock;
using world_detail::kNoCrowdGroup;
using world_detail::ms_between;

struct World::Group {
    UnitGroupId id = 0;
    std::vector<Cell> goals;
    int size = 1;  // of its units: movement class size - 1
    bool flee = false;
    bool exit = false;       // its goals are exits (Crowd::set_group_exit)
    Formation formation;     // the order's formation (given to its crowd group when that is made)
    std::size_t exited = 0;  // units that left through them
    FieldTicket ticket;
    GroupId crowd_group = kNoCrowdGroup;  // set when its first field is published
    FieldView applied;                    // the field or plan its crowd group follows
    std::vector<AgentId> pending;         // ordered here, still following another crowd group
    // Congestion: a second ticket for the field toward the same goals with the density term.
    FieldTicket steer_ticket;
    bool has_steer_ticket = false;
    bool steer_pending = false;                   // asked for at the last refresh, not handed over yet
    std::vector<Cell> steer_goals;                // the goals it was asked for
    std::shared_ptr<const FlowField> steer_next;  // published, handed to the crowd at the next refresh
    std::size_t members = 0;                      // ordered here
    bool dropped = false;                         // no members (kept while units still follow its crowd group)
    std::uint64_t field_serial = 0;
    Clock::time_point ordered;
    double order_to_field_ms = -1.0;
    double order_to_ready_ms = -1.0;
};

}  // namespace tide
