// The crowd and its agents: construction, the terrain, adding, removing and moving agents, their
// settings, and the reads (handles, bulk reads, the state hash). Groups: groups.cpp; the step:
// step.cpp and the phases it runs (phases.hpp).

#include "tide/crowd.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "arrival.hpp"
#include "formation.hpp"
#include "phases.hpp"
#include "spatial_hash.hpp"
#include "tide/assert.hpp"

namespace tide {
using namespace crowd_detail;
namespace {

std::string vec_text(Vec2 p) {
    return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

}  // namespace

Crowd::Crowd(const CostField& cost, const CrowdParams& params, std::pmr::memory_resource* memory)
    : cost_(&cost),
      params_(params),
      generation_(memory),
      index_(memory),
      free_(memory),
      alive_(memory),
      user_tag_(memory),
      movement_class_(memory),
      a_(memory),
      sorted_(memory),
      nx_(memory),
      ny_(memory),
      dvx_(memory),
      dvy_(memory),
      nstate_(memory),
      wall_hit_(memory),
      nhx_(memory),
      nhy_(memory),
      quiet_(memory),
      wake_(memory),
      contacts_(memory),
      n_contacts_(memory),
      cx_(memory),
      cy_(memory),
      deep_(memory),
      deep_list_(memory),
      deep_x_(memory),
      deep_y_(memory),
      leaving_(memory),
      hash_(std::make_unique<detail::SpatialHash>(memory)),
      regions_(std::make_unique<detail::ArrivalRegions>()),
      formations_(std::make_unique<detail::Formations>()),
      arrived_mark_(memory) {}

Crowd::~Crowd() = default;
Crowd::Crowd(Crowd&&) noexcept = default;
Crowd& Crowd::operator=(Crowd&&) noexcept = default;

Result<void> Crowd::set_terrain(const CostField& cost) {
    if (cost.width() != cost_->width() || cost.height() != cost_->height()) {
        return Error{"the crowd's terrain is " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + ", not " + std::to_string(cost.width()) + "x" +
                     std::to_string(cost.height())};
    }
    cost_ = &cost;
    return {};
}

Result<void> Crowd::check_position(Vec2 p) const {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return Error{"agent position " + vec_text(p) + " is not finite"};
    if (p.x < 0.0f || p.y < 0.0f || p.x >= static_cast<float>(cost_->width()) ||
        p.y >= static_cast<float>(cost_->height())) {
        return Error{ErrorCode::off_map, "agent position " + vec_text(p) + " is outside the " +
                                             std::to_string(cost_->width()) + "x" + std::to_string(cost_->height()) +
                                             " map"};
    }
    if (!cost_->passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
        return Error{ErrorCode::on_wall, "agent position " + vec_text(p) + " is inside a wall"};
    }
    return {};
}

Result<AgentId> Crowd::add_agent(Vec2 position, GroupId group, const AgentParams& params) {
    if (auto r = check_position(position); !r) return r.error();
    if (!has_group(group)) return unknown_group(group);
    if (auto r = check_agent_params(params); !r) return r.error();
    if (auto r = check_class(group.index, params.movement_class, "an agent"); !r) return r.error();
    const float radius = params.radius, max_speed = params.max_speed;
    std::uint32_t slot;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(alive_.size());
        generation_.push_back(0);
        index_.push_back(0);
        alive_.push_back(0);
        user_tag_.push_back(0);
        movement_class_.push_back(0);
    }
    user_tag_[slot] = params.user_tag;
    movement_class_[slot] = params.movement_class;
    // A disc overlapping a wall cell is nudged out, so agents start clear of walls.
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, radius, position.x, position.y, position.x, position.y, vx0, vy0);
    // New entries go last; the next sub-step sorts them into place.
    a_.px.push_back(position.x);
    a_.py.push_back(position.y);
    a_.vx.push_back(0.0f);
    a_.vy.push_back(0.0f);
    a_.radius.push_back(radius);
    a_.speed.push_back(max_speed);
    a_.progress_ref.push_back(std::numeric_limits<float>::infinity());
    a_.progress_clock.push_back(0.0f);
    a_.sidestep.push_back(0.0f);
    a_.group.push_back(group.index);
    a_.slot.push_back(slot);
    a_.sight.push_back(detail::kNoCell);
    a_.sight_from.push_back(detail::kNoCell);
    a_.aim_x.push_back(0.0f);
    a_.aim_y.push_back(0.0f);
    a_.state.push_back(static_cast<std::uint8_t>(AgentState::moving));
    a_.stuck.push_back(0);
    a_.rest.push_back(0);
    a_.held.push_back(0);
    a_.hx.push_back(0);
    a_.hy.push_back(0);
    a_.rest_x.push_back(position.x);
    a_.rest_y.push_back(position.y);
    dvx_.push_back(0.0f);
    dvy_.push_back(0.0f);
    wall_hit_.push_back(0);
    alive_[slot] = 1;
    ++group_members_[group.index];
    index_[slot] = static_cast<std::uint32_t>(live_);
    max_radius_ = std::max(max_radius_, radius);
    ++live_;
    return AgentId{slot, generation_[slot]};
}

bool Crowd::valid(AgentId id) const noexcept {
    return id.index < alive_.size() && alive_[id.index] && generation_[id.index] == id.generation;
}

std::size_t Crowd::index_of(AgentId id) const {
    TIDE_ASSERT(valid(id));
    return index_[id.index];
}

Result<void> Crowd::remove_agent(AgentId id) {
    if (!valid(id))
        return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " (generation " +
                                               std::to_string(id.generation) + ") is not a live agent"};
    // The last entry moves into the hole (entry order never affects results: each sub-step
    // sorts by bucket and slot).
    const std::size_t e = index_[id.index], last = live_ - 1;
    --group_members_[a_.group[e]];
    if (e != last) {
        a_.each([&](auto& v) { v[e] = v[last]; });
        dvx_[e] = dvx_[last];
        dvy_[e] = dvy_[last];
        wall_hit_[e] = wall_hit_[last];
        index_[a_.slot[e]] = static_cast<std::uint32_t>(e);
    }
    a_.each([](auto& v) { v.pop_back(); });
    dvx_.pop_back();
    dvy_.pop_back();
    wall_hit_.pop_back();
    alive_[id.index] = 0;
    ++generation_[id.index];
    free_.push_back(id.index);
    --live_;
    max_radius_dirty_ = true;
    return {};
}

Result<void> Crowd::set_params(const CrowdParams& p) {
    auto finite_nonneg = [](float v) { return std::isfinite(v) && v >= 0.0f; };
    if (!(p.radius > 0.0f && p.radius <= kMaxAgentRadius))
        return Error{"radius " + std::to_string(p.radius) + " is outside (0, 4]"};
    if (!(p.max_speed > 0.0f && p.max_speed <= 100.0f)) {
        return Error{"max_speed " + std::to_string(p.max_speed) + " is outside (0, 100]"};
    }
    for (const auto& [name, v] :
         {std::pair{"max_force", p.max_force}, std::pair{"separation", p.separation},
          std::pair{"separation_range", p.separation_range}, std::pair{"arrival_distance", p.arrival_distance},
          std::pair{"settle_distance", p.settle_distance}, std::pair{"stuck_progress", p.stuck_progress},
          std::pair{"stuck_seconds", p.stuck_seconds}, std::pair{"stuck_sidestep", p.stuck_sidestep},
          std::pair{"yield_overlap", p.yield_overlap}, std::pair{"pack_overlap", p.pack_overlap}}) {
        if (!finite_nonneg(v)) return Error{std::string(name) + " " + std::to_string(v) + " must be finite and >= 0"};
    }
    if (!(p.max_substep > 0.0f && p.max_substep <= 0.1f)) {
        return Error{"max_substep " + std::to_string(p.max_substep) + " s is outside (0, 0.1]"};
    }
    if (p.yield_overlap > 1.0f) return Error{"yield_overlap " + std::to_string(p.yield_overlap) + " is above 1"};
    if (p.pack_overlap > 2.0f) return Error{"pack_overlap " + std::to_string(p.pack_overlap) + " is above 2"};
    if (p.contact_passes < 0 || p.contact_passes > 16) {
        return Error{"contact_passes " + std::to_string(p.contact_passes) + " is outside 0..16"};
    }
    if (p.arrival_regions != params_.arrival_regions) regions_stale_ = true;
    params_ = p;
    return {};
}

Result<void> Crowd::set_agent_params(AgentId id, const AgentParams& params) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (auto r = check_agent_params(params); !r) return r;
    const std::size_t e = index_[id.index];
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(a_.group[e], params.movement_class, agent.c_str()); !r) return r;
    a_.radius[e] = params.radius;
    a_.speed[e] = params.max_speed;
    user_tag_[id.index] = params.user_tag;
    movement_class_[id.index] = params.movement_class;
    max_radius_dirty_ = true;
    a_.rest[e] = 0;  // a bigger disc may overlap sleepers: moving, it wakes them
    return {};
}

Result<void> Crowd::set_position(AgentId id, Vec2 position) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (auto r = check_position(position); !r) return r;
    const std::size_t e = index_[id.index];
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, a_.radius[e], position.x, position.y, position.x, position.y, vx0, vy0);
    a_.px[e] = position.x;
    a_.py[e] = position.y;
    a_.vx[e] = a_.vy[e] = 0.0f;
    a_.sight_from[e] = detail::kNoCell;
    a_.rest[e] = 0;
    return {};
}

Vec2 Crowd::position(AgentId id) const {
    const std::size_t e = index_of(id);
    return {a_.px[e], a_.py[e]};
}
Vec2 Crowd::velocity(AgentId id) const {
    const std::size_t e = index_of(id);
    return {a_.vx[e], a_.vy[e]};
}
Vec2 Crowd::desired_velocity(AgentId id) const {
    const std::size_t e = index_of(id);
    return {dvx_[e], dvy_[e]};
}
AgentState Crowd::state(AgentId id) const {
    return static_cast<AgentState>(a_.state[index_of(id)]);
}

bool Crowd::stuck(AgentId id) const {
    const std::size_t k = index_of(id);
    return (a_.stuck[k] & kStuckFlag) != 0 && (a_.held[k] & kHeldAhead) == 0;
}

Result<void> Crowd::check_agent_params(const AgentParams& p) const {
    if (!(p.radius > 0.0f && p.radius <= kMaxAgentRadius))
        return Error{"agent radius " + std::to_string(p.radius) + " is outside (0, 4]"};
    if (!(p.max_speed > 0.0f && p.max_speed <= 100.0f)) {
        return Error{"agent speed " + std::to_string(p.max_speed) + " is outside (0, 100]"};
    }
    return {};
}

AgentParams Crowd::default_agent_params() const noexcept {
    AgentParams p;
    p.radius = params_.radius;
    p.max_speed = params_.max_speed;
    return p;
}

AgentParams Crowd::agent_params(AgentId id) const {
    const std::size_t e = index_of(id);
    AgentParams p;
    p.radius = a_.radius[e];
    p.max_speed = a_.speed[e];
    p.movement_class = movement_class_[id.index];
    p.user_tag = user_tag_[id.index];
    return p;
}

Result<std::size_t> Crowd::read_agents(const AgentBuffers& out) const {
    for (std::size_t n : {out.ids.size(), out.positions.size(), out.velocities.size(), out.states.size(),
                          out.groups.size(), out.user_tags.size()}) {
        if (n != 0 && n < live_) {
            return Error{ErrorCode::too_large,
                         std::to_string(live_) + " agents do not fit a buffer of " + std::to_string(n)};
        }
    }
    std::size_t k = 0;
    for (std::size_t s = 0; s < alive_.size(); ++s) {
        if (!alive_[s]) continue;
        const std::size_t e = index_[s];
        if (!out.ids.empty()) out.ids[k] = {static_cast<std::uint32_t>(s), generation_[s]};
        if (!out.positions.empty()) out.positions[k] = {a_.px[e], a_.py[e]};
        if (!out.velocities.empty()) out.velocities[k] = {a_.vx[e], a_.vy[e]};
        if (!out.states.empty()) out.states[k] = static_cast<AgentState>(a_.state[e]);
        if (!out.groups.empty()) out.groups[k] = {a_.group[e], group_generation_[a_.group[e]]};
        if (!out.user_tags.empty()) out.user_tags[k] = user_tag_[s];
        ++k;
    }
    return k;
}

std::vector<AgentId> Crowd::agents() const {
    std::vector<AgentId> out;
    out.reserve(live_);
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i]) out.push_back({static_cast<std::uint32_t>(i), generation_[i]});
    }
    return out;
}

// Each unit hashed from three 64-bit words (slot and state, position bits, velocity bits), the
// units' hashes summed: the sum does not depend on the order the entries are kept in, so it reads
// them in memory order. A lockstep host may call it every tick (0.59% of a 10,000-unit step,
// BM_CrowdStateHashShare).
std::uint64_t Crowd::state_hash() const {
    auto bits = [](float f) {
        std::uint32_t u;
        std::memcpy(&u, &f, sizeof u);
        return static_cast<std::uint64_t>(u);
    };
    std::uint64_t sum = 0;
    for (std::size_t e = 0; e < live_; ++e) {
        std::uint64_t u = (a_.slot[e] | static_cast<std::uint64_t>(a_.state[e]) << 32) * 0x9e3779b97f4a7c15ull;
        u = (u ^ u >> 31 ^ bits(a_.px[e]) ^ bits(a_.py[e]) << 32) * 0xff51afd7ed558ccdull;
        u = (u ^ u >> 29 ^ bits(a_.vx[e]) ^ bits(a_.vy[e]) << 32) * 0xc4ceb9fe1a85ec53ull;
        sum += u ^ u >> 32;
    }
    return sum ^ (static_cast<std::uint64_t>(live_) * 0x94d049bb133111ebull);
}

const char* agent_state_name(AgentState state) noexcept {
    switch (state) {
        case AgentState::moving:
            return "moving";
        case AgentState::arrived:
            return "arrived";
        case AgentState::no_path:
            return "no_path";
        case AgentState::queued:
            return "queued";
    }
    return "?";
}

}  // namespace tide
