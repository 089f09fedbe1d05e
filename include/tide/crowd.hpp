#pragma once
/// \file crowd.hpp
/// Crowd steering: agents follow flow fields with inertia, keep apart, slow down in costly
/// terrain, never enter walls and settle at the goal. Positions and velocities are in cell units
/// (cell (x, y) covers [x, x+1) x [y, y+1)), time in seconds.
///
/// Determinism: a step reads only the previous state and writes each agent's new state into its
/// own slot, so the result is bit-identical for any job system and thread count.
///
/// A group follows a FieldView: a FlowField (one field over the whole map, immutable) or a
/// HierarchicalField (sector fields built as routes need them), read alike. The step only reads a
/// group's field, from several threads. Planning calls on a plan (FieldService::route(), or
/// HierarchicalField::route() for a host planning on its own) must happen between steps, on the
/// thread that calls step(): World routes its units' cells through its service before each step.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"
#include "tide/unit_class.hpp"

namespace tide {

namespace detail {
class SpatialHash;
class ArrivalRegions;
class Formations;
}  // namespace detail

/// Largest agent radius, cells: half the largest unit size.
inline constexpr float kMaxAgentRadius = 0.5f * kMaxUnitSize;
/// Most slots a custom formation may list.
inline constexpr std::size_t kMaxFormationSlots = 100000;

/// Crowd settings with their defaults. Plain data.
struct CrowdParams {
    float radius = 0.16f;           ///< Default agent radius, cells.
    float max_speed = 3.0f;         ///< Default top speed on cost-1 ground, cells/s.
    float max_force = 12.0f;        ///< Largest steering acceleration, cells/s^2 (agents faster than
                                    ///< 3 cells/s get proportionally more: the same time to top speed).
    float separation = 6.0f;        ///< Strength of the push between overlapping agents.
    float separation_range = 1.5f;  ///< Agents push apart within this many times (ri + rj).
    float arrival_distance = 1.0f;  ///< Cost-to-go below which an agent is at its goal.
    float settle_distance = 1.0f;   ///< Base cost-to-go within which touching an arrived mate stops a
                                    ///< unit (plus 1.1x the radius of a disc densely packed with the
                                    ///< group's arrived agents), so the pack grows round.
    float stuck_progress = 0.1f;    ///< Less cost-to-go progress than this in a stuck window: stuck.
    float stuck_seconds = 1.0f;     ///< Shortest window of the stuck check, s; a window also lasts at
                                    ///< least the time to cross two cells at the unit's terrain speed.
    float stuck_sidestep = 1.5f;    ///< Seconds a unit found stuck steps sideways to get free (other
                                    ///< side and twice as long on each check in a row that finds it
                                    ///< stuck, up to 8x); 0 turns recovery off. Units faster than
                                    ///< 3 cells/s on their terrain step aside for proportionally
                                    ///< less time (the same distance).
    float max_substep = 0.02f;      ///< Longer steps are split so nothing tunnels through a wall, s.
    int contact_passes = 2;         ///< Position passes per sub-step that push touching agents apart
                                    ///< (0..16): more keep a dense crowd from overlapping deeper.
    float yield_overlap = 0.15f;    ///< Overlap with a mate (radii, 0..1) at which a unit stops walking
                                    ///< into it (into an arrived mate: from this to twice this), so a
                                    ///< pressing queue does not pile up; 0: units squeeze through (denser,
                                    ///< faster through one-cell gaps, overlapping up to 2 radii).
    float pack_overlap = 0.4f;      ///< Deepest overlap (radii of the smaller, 0..2) left after each
                                    ///< sub-step between a unit and an arrived mate, or a mate flagged
                                    ///< stuck: the bound of packs and jams (other moving pairs may
                                    ///< squeeze deeper); 2 turns it off.
    bool sleep = true;              ///< Arrived or queued agents at rest for 15 sub-steps sleep (no
                                    ///< neighbour scan) until an agent that moved comes near, a new
                                    ///< field, a wall or the host moves them; results are the same as
                                    ///< without while nobody sleeps.
    bool arrival_regions = true;    ///< Goal groups arrive inside an arrival region: cells on the goal's
                                    ///< side of any passage their units still come through, off other
                                    ///< groups' ways, filled from the far side of a single way in
                                    ///< (docs/crowd.md, "Arrival regions"). Off: units arrive wherever they
                                    ///< touch the pack near the goal or are blocked against it.
    bool line_of_sight = true;      ///< Units steer straight at the furthest point of their field's path
                                    ///< their whole footprint can reach in a straight line over ground of
                                    ///< one cost (up to 1024 moves ahead): on goal fields built on the
                                    ///< crowd's costs (sized ones for units of size > 1; not wall margins
                                    ///< or class costs) and on hierarchical plans (across sectors with
                                    ///< fields), where the plan's own costs must be of one cost too.
};

/// What an agent is doing.
enum class AgentState : std::uint8_t {
    moving,   ///< Following its group's field.
    arrived,  ///< At the goal (or stopped against arrived mates): stays put.
    no_path,  ///< Its cell cannot reach the goal: stands still until a path opens.
    queued,   ///< Waiting behind others: blocked by units ahead, or outside its group's arrival
              ///< region against the pack (no progress by design; never flagged stuck).
};

/// The state's name as reports, snapshots and bindings write it: "moving", "arrived", "no_path",
/// "queued" ("?" for a value outside the enum).
TIDE_API const char* agent_state_name(AgentState state) noexcept;

/// A handle to an agent: an index and a generation, so a stale handle is detected.
struct AgentId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    friend bool operator==(const AgentId&, const AgentId&) = default;
};

/// A handle to a group of agents following one field (one goal or goal set): a slot and a
/// generation, as AgentId, so the id of a removed group is refused (not_found) and never names the
/// group that reuses its slot.
struct GroupId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    friend bool operator==(const GroupId&, const GroupId&) = default;
};

/// Settings of one agent (as DetourCrowd's dtCrowdAgentParams). Plain data; start from
/// Crowd::default_agent_params() to get the crowd-wide defaults.
struct AgentParams {
    float radius = 0.16f;             ///< Disc radius, cells, (0, kMaxAgentRadius].
    float max_speed = 3.0f;           ///< Top speed on cost-1 ground, cells/s, (0, 100].
    std::uint8_t movement_class = 0;  ///< The agent's movement class (FieldService's MovementClass): it
                                      ///< can only be in a group of the same class (see Crowd::add_group).
    std::uint64_t user_tag = 0;       ///< The host's value (an entity id, an index); never read by the crowd.
};

/// A group's arrival region (CrowdParams::arrival_regions) as the last refresh left it.
struct ArrivalRegion {
    bool active = false;          ///< False: the group has none (regions off, flee or exit group, no units).
    float radius = kUnreachable;  ///< Largest cost to go of its cells.
    std::size_t cells = 0;        ///< Its cells.
    Cell anchor{};                ///< Where its pack is centred (top-left cells of the group's unit size).
};

/// Shapes a group can march in (Formation).
enum class FormationShape : std::uint8_t {
    none,    ///< No formation: the units flow and pack round the goal.
    line,    ///< One rank across the direction of travel.
    column,  ///< One file along it.
    box,     ///< Ranks of `columns` (about square by default), front rank first.
    wedge,   ///< A V pointing ahead: ranks of 1, 3, 5, ... units.
    custom,  ///< Formation::offsets, one slot per unit.
};

/// A group's formation: slots in the formation's frame (x to the right of the heading, y ahead,
/// cells) around an anchor that walks the group's field. Plain data.
struct Formation {
    FormationShape shape = FormationShape::none;
    float spacing = 1.0f;       ///< Cells between neighbouring slots, 0.3..8 (at least the units' diameter).
    int columns = 0;            ///< box: slots per rank (0: about square), 0..1000.
    std::vector<Vec2> offsets;  ///< custom: the slots, x right and y ahead of the anchor (as many as units).
    /// At the goal the formation faces this way (normalised; (0, 0): the way it came).
    Vec2 facing{0.0f, 0.0f};
};

/// Checks a Formation's values as Crowd::set_group_formation() does (spacing, columns, offsets, facing).
TIDE_API Result<void> check_formation(const Formation& formation);

/// A group's formation as the last step left it (Crowd::group_formation).
struct FormationState {
    bool active = false;       ///< The group holds a formation.
    bool arrived = false;      ///< Its anchor stands at the goal (its units take their slots there).
    Vec2 anchor{};             ///< Where the formation is centred, cells.
    Vec2 heading{1.0f, 0.0f};  ///< The way it faces (unit vector).
    std::vector<Vec2> slots;   ///< Each slot's place now (pulled in front of walls where one hides it).
    std::vector<std::uint8_t>
        hidden;          ///< Per slot: 1 when a wall hides it from the anchor (its unit follows the field).
    float error = 0.0f;  ///< Mean distance of the units to their slots, cells.
    std::uint64_t reassignments = 0;     ///< Times slots were handed out (units joined or left), since set.
    std::uint64_t units_reassigned = 0;  ///< Units whose slot changed at those times.
    float turned = 0.0f;                 ///< Radians its heading has turned while marching.
};

/// Caller-owned outputs of Crowd::read_agents(): each non-empty span receives one item per live
/// agent, in slot order (the order of Crowd::agents()); empty spans are skipped.
struct AgentBuffers {
    std::span<AgentId> ids;              ///< Handles.
    std::span<Vec2> positions;           ///< Positions, cells.
    std::span<Vec2> velocities;          ///< Velocities, cells/s.
    std::span<AgentState> states;        ///< States.
    std::span<GroupId> groups;           ///< Groups.
    std::span<std::uint64_t> user_tags;  ///< AgentParams::user_tag.
};

/// Per-step counters.
struct CrowdStats {
    std::size_t agents = 0;         ///< Live agents.
    std::size_t arrived = 0;        ///< In AgentState::arrived.
    std::size_t no_path = 0;        ///< In AgentState::no_path.
    std::size_t queued = 0;         ///< In AgentState::queued.
    std::size_t stuck = 0;          ///< Moving agents flagged stuck (little progress in their last window).
    std::size_t sidestepping = 0;   ///< Stuck agents stepping sideways to get free (stuck_sidestep).
    std::size_t wall_contacts = 0;  ///< Agent-substeps whose disc was pushed out of a wall.
    std::size_t sleeping = 0;       ///< Arrived agents asleep in the last sub-step (CrowdParams::sleep).
    std::size_t exited = 0;         ///< Agents that left through an exit during the step (exited()).
};

/// The crowd. Holds a pointer to the cost field (the host keeps it alive and may edit it between
/// steps) and shared, immutable fields per group. Not thread-safe: one thread calls its methods;
/// step() spreads its own work over the job system.
class TIDE_API Crowd {
public:
    /// A crowd on `cost` (must outlive the crowd, or until set_terrain()) with `params`; buffers
    /// from `memory`.
    Crowd(const CostField& cost, const CrowdParams& params = {},
          std::pmr::memory_resource* memory = std::pmr::get_default_resource());
    /// The crowd reads `cost` from now on (a new snapshot of the terrain after an edit; it must
    /// outlive the crowd or the next call). Error (nothing changed) for other dimensions.
    Result<void> set_terrain(const CostField& cost);
    ~Crowd();
    Crowd(Crowd&&) noexcept;
    Crowd& operator=(Crowd&&) noexcept;

    /// Adds a group of units of `unit_size` cells (1..kMaxUnitSize, see unit_class.hpp) and of
    /// `movement_class` following `field`, built for that size and class (a unit's top-left cell
    /// follows the field; its position is the centre of its size x size block). Only agents of the
    /// group's movement class join it (add_agent, set_agent_group refuse others): a field planned
    /// for one class is never followed by units of another. Errors: a field of another size than
    /// the map, a bad unit size. The slot of a removed group is reused with the next generation:
    /// its old id stays refused.
    Result<GroupId> add_group(std::shared_ptr<const FlowField> field, int unit_size = 1,
                              std::uint8_t movement_class = 0);
    /// Adds a group following a hierarchical plan (sector fields; cells of sectors without one
    /// steer by HierarchicalField::sample()'s coarse direction and count the estimated cost to go).
    /// The host keeps the plan routed between steps (see the file comment). Errors as above.
    Result<GroupId> add_group(std::shared_ptr<const HierarchicalField> field, int unit_size = 1,
                              std::uint8_t movement_class = 0);
    /// Adds a group following a field or a plan, whichever `view` holds (FieldService::view()).
    /// Errors as above, and for an empty view.
    Result<GroupId> add_group(FieldView view, int unit_size = 1, std::uint8_t movement_class = 0);
    /// Unit size of a group (0 for an unknown group). Unknown groups here and below: ids never
    /// handed out, and ids of removed groups (stale, even once their slot holds a new group).
    int unit_size(GroupId group) const noexcept;
    /// Movement class of a group (0 for an unknown group: check has_group()).
    std::uint8_t movement_class(GroupId group) const noexcept;
    /// Changes a group's movement class (its field should then be one planned for that class).
    /// Error (nothing changed): not_found for an unknown group, invalid_argument while a member
    /// is of another class.
    Result<void> set_group_movement_class(GroupId group, std::uint8_t movement_class);
    /// Removes an empty group (its field is released); error when it has members or is unknown.
    Result<void> remove_group(GroupId group);
    /// Moves an agent to another group (a new order): it starts moving on the group's field at the
    /// next step, its stuck window restarts. Error (nothing changed) for a stale handle or an
    /// unknown group (not_found), or a group of another movement class (invalid_argument).
    Result<void> set_agent_group(AgentId id, GroupId group);
    /// Moves an agent to another group and replaces its settings in one call: how a unit changes
    /// movement class (params.movement_class must be the group's). Errors as in set_agent_group and
    /// set_agent_params; nothing changed on error.
    Result<void> set_agent_group(AgentId id, GroupId group, const AgentParams& params);
    /// Group of an agent (asserts on a stale handle).
    GroupId group(AgentId id) const;
    /// Live agents in a group (0 for an unknown group).
    std::size_t group_size(GroupId group) const noexcept;
    /// True when `group` names a live group (false for a stale id, as valid() for agents).
    bool has_group(GroupId group) const noexcept;
    /// Replaces a group's field (goal moved, terrain edited); takes effect at the next step. The
    /// members' stuck windows restart (progress is measured against the new field).
    Result<void> set_group_field(GroupId group, std::shared_ptr<const FlowField> field);
    /// Replaces a group's field with a hierarchical plan (a new goal set); as above.
    Result<void> set_group_field(GroupId group, std::shared_ptr<const HierarchicalField> field);
    /// Replaces a group's field with whatever `view` holds; as above (an empty view is an error).
    Result<void> set_group_field(GroupId group, FieldView view);
    /// The field or plan a group follows (an empty view for an unknown group).
    FieldView group_field(GroupId group) const;
    /// Lets a group's units steer by `steer` (direction and line of sight) while arrival, progress
    /// and no-path still read the group's field: a field toward the same goals planned on other
    /// costs, such as a congestion-aware field (congestion.hpp). Stuck windows go on. Null: steer by
    /// the group's field again; set_group_field() also clears it. Error for an unknown group, a
    /// hierarchical group, or a field that is not a goal field of the map's size.
    Result<void> set_group_steering(GroupId group, std::shared_ptr<const FlowField> steer);
    /// The field a group's units steer by when it is not the group's own field (else null).
    std::shared_ptr<const FlowField> group_steering(GroupId group) const;
    /// Makes a group's goals exits (or plain goals again): a unit of the group whose cell (its
    /// top-left cell, for units of size > 1) is one is listed in exited() during the step. With
    /// `remove` it leaves the crowd (the host removes it from its own books, or adds it again
    /// elsewhere); without, it stays, arrived on the exit, for the host to send on (set_agent_group
    /// to a group led further: units that continue past a door). Its group forms no pack (no
    /// arrival region). Error for an unknown group or a flee field.
    Result<void> set_group_exit(GroupId group, bool exit, bool remove = true);
    /// True when the group's goals are exits.
    bool group_exit(GroupId group) const noexcept;
    /// Gives the group a formation (FormationShape::none: none): its units take slots around an
    /// anchor that walks the group's field at 0.8x its slowest unit's speed, waiting for units that
    /// fall behind, turning at most as fast as its outer slots can follow; slots a wall hides from
    /// the anchor (a gap narrower than the formation) are left for the field until they show again;
    /// at the goal the units stand on their slots, arrived. Slots are handed out once (and again
    /// when units join or leave), rank by rank and left to right, so turns never swap units.
    /// Errors: an unknown group, an exit group, a flee field, values out of range, custom offsets
    /// that are not finite or more than kMaxFormationSlots.
    Result<void> set_group_formation(GroupId group, const Formation& formation);
    /// The group's formation as the last step left it (inactive without one).
    FormationState group_formation(GroupId group) const;
    /// The agent's slot in its group's formation (an index into FormationState::slots); -1 when it
    /// has none (no formation, a stale handle, not handed out yet).
    int formation_slot(AgentId id) const noexcept;
    /// The group's arrival region (inactive for an unknown group).
    ArrivalRegion arrival_region(GroupId group) const;
    /// True when the top-left cell (x, y) lies in the group's arrival region (or it has none).
    bool in_arrival_region(GroupId group, int x, int y) const noexcept;
    /// Units that reached their group's exit during the last step(), in slot order. Their handles
    /// are stale now (valid() is false), unless the group keeps them (set_group_exit, `remove` false).
    std::span<const AgentId> exited() const noexcept { return exited_; }

    /// Adds an agent at `position` in `group` with `params`; refuses NaN/infinite positions,
    /// positions off the map (ErrorCode::off_map) or inside a wall (on_wall), an unknown group
    /// (not_found), a radius outside (0, kMaxAgentRadius] or a speed outside (0, 100], and a
    /// movement class other than the group's (invalid_argument).
    Result<AgentId> add_agent(Vec2 position, GroupId group, const AgentParams& params);
    /// add_agent() with default_agent_params().
    Result<AgentId> add_agent(Vec2 position, GroupId group) {
        return add_agent(position, group, default_agent_params());
    }
    /// The crowd-wide defaults as agent settings: CrowdParams' radius and max_speed, class 0, tag 0.
    AgentParams default_agent_params() const noexcept;
    /// Replaces the crowd-wide settings from the next step. The radius and speed of agents already
    /// added stay (set_agent_params changes those); the defaults apply to agents added later. Error
    /// (nothing changed) for a value out of range: radius outside (0, kMaxAgentRadius], speed outside (0, 100],
    /// a negative or non-finite strength, range or time, or max_substep outside (0, 0.1].
    Result<void> set_params(const CrowdParams& params);
    /// The crowd-wide settings.
    const CrowdParams& params() const noexcept { return params_; }
    /// Replaces an agent's settings from the next step (ranges as in add_agent); error (nothing
    /// changed) for a stale handle, a value out of range or a movement class other than its
    /// group's (to change class, use set_agent_group with params).
    Result<void> set_agent_params(AgentId id, const AgentParams& params);
    /// An agent's settings (asserts on a stale handle).
    AgentParams agent_params(AgentId id) const;
    /// Removes an agent; error for a stale or unknown handle.
    Result<void> remove_agent(AgentId id);
    /// Moves an agent (teleport); same checks as add_agent. Velocity is reset.
    Result<void> set_position(AgentId id, Vec2 position);

    /// Advances by `dt` seconds (split into sub-steps of at most max_substep); error for dt <= 0,
    /// NaN or infinite, or dt over 10 s.
    Result<void> step(float dt, JobSystem& jobs);
    /// step() on the calling thread.
    Result<void> step(float dt);

    /// Live agent count.
    std::size_t size() const noexcept { return live_; }
    /// Position of an agent (asserts on a stale handle).
    Vec2 position(AgentId id) const;
    /// Velocity of an agent, cells/s.
    Vec2 velocity(AgentId id) const;
    /// Velocity the agent steered toward in the last step (flow direction x speed), cells/s.
    Vec2 desired_velocity(AgentId id) const;
    /// State of an agent.
    AgentState state(AgentId id) const;
    /// True when a moving agent made little progress during the last stuck window with room ahead
    /// (nobody right ahead of it now: one waiting behind others is not stuck).
    bool stuck(AgentId id) const;
    /// True when the handle names a live agent.
    bool valid(AgentId id) const noexcept;
    /// Simulated seconds since the crowd was made.
    double time() const noexcept { return time_; }
    /// Counters after the last step.
    const CrowdStats& stats() const noexcept { return stats_; }
    /// 64-bit FNV-1a hash of every live agent's slot, position, velocity and state bits.
    std::uint64_t state_hash() const;
    /// Handles of all live agents, in slot order.
    std::vector<AgentId> agents() const;
    /// Bulk read for rendering and hosts: writes every live agent into the non-empty spans of `out`,
    /// in slot order, without a lookup per handle. Returns size(); error (nothing written,
    /// ErrorCode::too_large) when a non-empty span holds fewer than size() items.
    Result<std::size_t> read_agents(const AgentBuffers& out) const;

private:
    /// Per-agent state, one entry per live agent, kept in bucket order (re-sorted every sub-step,
    /// so neighbours sit side by side); `slot` maps an entry to its handle's slot.
    struct Agents {
        explicit Agents(std::pmr::memory_resource* m)
            : px(m),
              py(m),
              vx(m),
              vy(m),
              radius(m),
              speed(m),
              progress_ref(m),
              progress_clock(m),
              sidestep(m),
              rest_x(m),
              rest_y(m),
              group(m),
              slot(m),
              sight(m),
              sight_from(m),
              aim_x(m),
              aim_y(m),
              state(m),
              stuck(m),
              rest(m),
              held(m),
              hx(m),
              hy(m) {}
        std::pmr::vector<float> px, py, vx, vy, radius, speed, progress_ref, progress_clock, sidestep;
        std::pmr::vector<float> rest_x, rest_y;  // where the agent's rest began (it stays near it while at rest)
        std::pmr::vector<std::uint32_t> group, slot;
        std::pmr::vector<std::uint32_t> sight, sight_from;  // look-ahead cell, and the field cell it was found from
        std::pmr::vector<float> aim_x, aim_y;               // the point the look-ahead aims at (with sight)
        std::pmr::vector<std::uint8_t> state,
            stuck,  // stuck: bit 0 flagged, bit 1 side, bits 2-3 stuck checks in a row
            rest,   // sub-steps in a row at rest (arrived or queued, slow, near where its rest began; to 255)
            held;   // bit 0: the last sub-step (contact passes included) moved it slower than its slow speed;
                    // bit 1: someone was right ahead of it (a stuck flag then reads as not stuck)
        std::pmr::vector<std::int8_t> hx, hy;  // heading of the last desired velocity, x 127 (0 when not moving)
        /// Calls fn(vector) for every member.
        template <class Fn>
        void each(Fn&& fn) {
            each_with(*this, [&fn](auto& v, auto&) { fn(v); });
        }
        /// Calls fn(mine, theirs) for every member of this and `other` (the one list of members).
        template <class Fn>
        void each_with(Agents& other, Fn&& fn) {
            using F = std::pmr::vector<float> Agents::*;
            using U = std::pmr::vector<std::uint32_t> Agents::*;
            using B = std::pmr::vector<std::uint8_t> Agents::*;
            for (F v : {&Agents::px, &Agents::py, &Agents::vx, &Agents::vy, &Agents::radius, &Agents::speed,
                        &Agents::progress_ref, &Agents::progress_clock, &Agents::sidestep, &Agents::rest_x,
                        &Agents::rest_y, &Agents::aim_x, &Agents::aim_y})
                fn(this->*v, other.*v);
            for (U v : {&Agents::group, &Agents::slot, &Agents::sight, &Agents::sight_from}) fn(this->*v, other.*v);
            for (B v : {&Agents::state, &Agents::stuck, &Agents::rest, &Agents::held}) fn(this->*v, other.*v);
            using I = std::pmr::vector<std::int8_t> Agents::*;
            for (I v : {&Agents::hx, &Agents::hy}) fn(this->*v, other.*v);
        }
    };
    void substep(float dt, JobSystem& jobs, bool count_stats);
    void sort_agents(JobSystem& jobs);
    Result<void> check_position(Vec2 p) const;
    Result<void> check_agent_params(const AgentParams& params) const;
    static Error unknown_group(GroupId group);
    std::size_t index_of(AgentId id) const;

    /// What a group follows: exactly one of the two is set for a live group, neither for a removed one.
    struct GroupField {
        FieldView field;                   // the group's field or plan
        bool sight = false;                // goal field or plan on the crowd's own costs: line of sight may apply
        FieldView steer;                   // whole-map fields: the field to steer by, when not `field`
        std::vector<std::uint32_t> goals;  // goal cells of a goal field or plan (arrival regions)
        bool exit = false;                 // the goals are exits (set_group_exit)
        bool exit_keeps = false;           // ... whose units stay, arrived, for the host to send on
        explicit operator bool() const noexcept { return static_cast<bool>(field); }
    };
    static std::vector<std::uint32_t> goal_cells(const GroupField& f);
    void refresh_regions();
    Result<GroupId> add_group_field(GroupField field, int unit_size, std::uint8_t movement_class);
    Result<void> check_class(std::uint32_t group, std::uint8_t movement_class, const char* what) const;
    Result<void> set_group_field_to(GroupId group, GroupField field);
    void restart_stuck_windows(GroupId group);
    bool sees_along(const FlowField& field, int unit_size);

    // The terrain's sized costs (sized_cost_field) by unit size, and the terrain they were made from.
    struct SizedTerrain {
        std::unique_ptr<CostField> cost;
        CostField source = CostField::create(1, 1).value();
    };
    std::vector<SizedTerrain> sized_terrain_;

    const CostField* cost_;
    CrowdParams params_;
    std::vector<GroupField> groups_;
    std::vector<std::uint8_t> group_unit_;   // unit size of each group
    std::vector<std::uint8_t> group_class_;  // movement class of each group
    std::vector<std::size_t> group_members_;
    std::vector<std::uint32_t> group_generation_;  // by group slot (GroupId::index): bumped on removal
    std::vector<std::uint32_t> free_groups_;
    // By slot (AgentId::index): liveness, generation, and where the agent sits in a_.
    std::pmr::vector<std::uint32_t> generation_, index_, free_;
    std::pmr::vector<std::uint8_t> alive_;
    // By slot: what the crowd keeps for the host and never reads (AgentParams).
    std::pmr::vector<std::uint64_t> user_tag_;
    std::pmr::vector<std::uint8_t> movement_class_;
    // By entry (bucket order): the state (a_), its re-sorted copy (sorted_), and what a sub-step
    // writes besides a_ (next positions and states; desired velocities, wall contacts).
    Agents a_, sorted_;
    std::pmr::vector<float> nx_, ny_, dvx_, dvy_;
    std::pmr::vector<std::uint8_t> nstate_, wall_hit_;
    std::pmr::vector<std::int8_t> nhx_, nhy_;  // the sub-step's new headings
    std::vector<std::uint8_t> stuck_before_;   // Agents::stuck as the sub-step found it (neighbours read it)
    std::vector<std::int64_t> lanes_;          // per cell: summed headings of walkers (x + 2^32 y; keep-right)
    std::vector<std::uint32_t> lane_at_;       // per entry of the last sum: the cell it added to (clearing)
    std::uint32_t sole_walker_ = 0;            // the group of every walking agent, or none or mixed
    // Sleeping: how calm the sub-step left each entry (0 active, 2 calm),
    // and the sleepers an active agent came near this sub-step (set by other agents: they wake).
    std::pmr::vector<std::uint8_t> quiet_, wake_;
    // The contact passes: each entry's nearest touching candidates (kMaxContacts per entry, entry
    // indices), their count, and the passes' second position buffer.
    std::pmr::vector<std::uint32_t> contacts_;
    std::pmr::vector<std::uint8_t> n_contacts_;
    std::pmr::vector<float> cx_, cy_;
    // The deep pass after them: entries the last pass found in a deep contact (flags, then the
    // list) and where the pass moves them.
    std::pmr::vector<std::uint8_t> deep_;
    std::pmr::vector<std::uint32_t> deep_list_;
    std::pmr::vector<float> deep_x_, deep_y_;
    void contact_passes(JobSystem& jobs);
    void deep_pass(JobSystem& jobs);
    bool packed_mates(std::size_t k, std::size_t j) const noexcept;
    bool jammed_mates(std::size_t k, std::size_t j) const noexcept;
    std::vector<float> settle_;               // per group: cost-to-go within which the stopping chain reaction acts
    std::vector<std::uint32_t> arrived_in_;   // per group: its arrived units at the start of the sub-step
    std::vector<AgentId> exited_;             // exited() of the last step
    std::pmr::vector<std::uint8_t> leaving_;  // by entry: reached its exit in this sub-step
    void remove_leavers();
    float max_radius_ = 0.0f;  // largest live radius; recomputed after a removal (max_radius_dirty_)
    bool max_radius_dirty_ = false;
    std::unique_ptr<detail::SpatialHash> hash_;        // proximity grid, re-sorted every sub-step
    std::unique_ptr<detail::ArrivalRegions> regions_;  // where each group's units may stand as arrived
    std::unique_ptr<detail::Formations> formations_;   // groups marching in formation (formation.cpp)
    void update_formations(float dt);
    std::uint64_t substeps_ = 0;                   // sub-steps so far (the regions' schedule)
    bool regions_stale_ = true;                    // a group's field changed: refresh at the next sub-step
    std::pmr::vector<std::uint8_t> arrived_mark_;  // scratch: by slot, arrived (for settle_)
    std::size_t live_ = 0;
    double time_ = 0.0;
    CrowdStats stats_;
};

}  // namespace tide
