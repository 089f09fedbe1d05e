// The demo's simulation loop without a transport; see sim_core.hpp and docs/protocol.md.

#include "sim_core.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/scenarios.hpp"

namespace tide::serve {

std::string load_note(Clock::time_point t0, const World& world) {
    char text[120];
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (world.hierarchical()) {
        std::snprintf(text, sizeof text, " in %.0f ms (hierarchical: sector graph %.0f ms, routes %.0f ms)", ms,
                      world.stats().graph_build_ms, world.stats().route_ms);
    } else {
        std::snprintf(text, sizeof text, " in %.0f ms", ms);
    }
    return text;
}

SimCore::SimCore(World& world, Outbox& out, CoreOptions options) : world_(world), out_(out), opt_(options) {}

void SimCore::begin() {
    using namespace std::chrono;
    const auto now = Clock::now();
    last_agents_ = now - seconds(10);
    last_fields_ = last_whole_fields_ = last_sectors_ = state_published_ = now - seconds(1);
    last_stats_ = now;
    debt_at_ = rate_start_ = now;
    roster_ = world_.roster_version();
    groups_sent_ = world_.groups_version();
    terrain_seen_ = terrain_sent_ = world_.terrain_version();
    broadcast_terrain(true);
}

void SimCore::step(std::vector<Inbound>& incoming, float dt) {
    const std::uint64_t terrain_before = world_.terrain_version();
    step_once_ = false;
    take(incoming);
    run_commands();
    publish_state_if_due();
    if (world_.terrain_version() != terrain_before) show_edit_before_step();
    if (auto r = world_.tick(dt, step_once_); !r) out_.log("step failed: " + r.error().message);
    after_tick();
    send_frames(Clock::now());
}

// This tick's inbound: the commands left from the last tick first, then what came since. Debts
// fall by what the time since the last tick earned.
void SimCore::take(std::vector<Inbound>& incoming) {
    batch_.clear();
    batch_.swap(deferred_);
    for (Inbound& in : incoming) batch_.push_back(std::move(in));
    incoming.clear();
    const double paid = opt_.client_share_ms * std::chrono::duration<double>(Clock::now() - debt_at_).count();
    debt_at_ = Clock::now();
    for (auto it = debt_.begin(); it != debt_.end();) {
        it->second -= paid;
        it = it->second <= 0.0 ? debt_.erase(it) : std::next(it);
    }
}

// Runs the batch in order; once this tick's commands took opt_.command_ms, the rest of the work
// waits for the next tick (queries and connections are still answered). What a command takes is
// charged to the tick and to its client.
void SimCore::run_commands() {
    double command_ms = 0.0;
    bool ran = false;  // at least one command runs each tick, whatever the budget
    for (Inbound& in : batch_) {
        const bool work = !std::holds_alternative<ApiQuery>(in.what) && !std::holds_alternative<SessionEvent>(in.what);
        if (!work) {
            handle(in);
            continue;
        }
        if (ran && command_ms >= opt_.command_ms) {
            deferred_.push_back(std::move(in));  // next tick, before anything newer
            continue;
        }
        const auto t0 = Clock::now();
        handle(in);
        ran = true;
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        command_ms += ms;
        if (in.session != 0) {
            double& owed = debt_[in.session];
            owed = std::min(owed + ms, opt_.client_max_debt_ms);
        }
    }
}

void SimCore::handle(Inbound& in) {
    if (auto* q = std::get_if<ApiQuery>(&in.what)) return handle_query(*q);
    if (auto* ev = std::get_if<SessionEvent>(&in.what)) return handle_session_event(in.session, *ev);
    if (auto* ao = std::get_if<ApiOrder>(&in.what)) return handle_api_order(*ao);
    if (auto* lp = std::get_if<LoadParsed>(&in.what)) return handle_upload(*lp);
    handle_command(in);
}

void SimCore::handle_query(ApiQuery& q) {
    if (q.tmap) {
        auto text = format_tide_map(world_.cost());
        q.reply(text ? tmap_file_name(world_.name()) + "\n" + *text : "!\n" + text.error().message);
        return;
    }
    q.reply(q.agents ? agents_json(world_, q.limit) : state_json(world_, tick_hz_, out_.clients()));
}

void SimCore::handle_session_event(std::uint64_t session, const SessionEvent& ev) {
    if (!ev.connected) {
        clients_.erase(session);
        return;
    }
    clients_[session] = Client{};
    agents_due_ = true;
    // Sampled fields frames: the terrain at full resolution comes apart, streamed.
    if (sampled() && sent_snapshot_) {
        out_.terrain(session, sent_snapshot_, 0, 0, sent_snapshot_->width - 1, sent_snapshot_->height - 1);
    }
}

void SimCore::handle_api_order(ApiOrder& order) {
    out_.taken(0);
    auto r = world_.apply(order.order);
    order.reply(r.ok(), r ? nlohmann::json{{"group", r->group}, {"units", r->units}}.dump()
                          : nlohmann::json{{"error", r.error().message}}.dump(
                                -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void SimCore::handle_upload(LoadParsed& upload) {
    const auto goal = central_goal(*upload.cost);
    const auto t0 = Clock::now();
    keep_upload(upload.name, *upload.cost);
    auto r = load(upload.name, std::move(*upload.cost), {*goal}, std::nullopt);
    out_.upload_done(Clock::now() - t0);
    if (!r) out_.log("map " + upload.name + " refused: " + r.error().message);
}

// A client command: refused while its client is over budget, else applied; errors go back to the
// client as an error reply naming the message type.
void SimCore::handle_command(const Inbound& in) {
    const Command& cmd = std::get<Command>(in.what);
    if (in.session != 0) {
        out_.taken(in.session);
        if (over_budget(in)) return;
    }
    Client* client = nullptr;
    if (auto it = clients_.find(in.session); it != clients_.end()) client = &it->second;
    const auto* world_command = std::get_if<WorldCommand>(&cmd);
    Result<void> r = world_command ? apply_world_command(in.session, *world_command)
                                   : apply_viewer_command(in.session, client, std::get<ViewerCommand>(cmd));
    if (!r) error_to(in.session, r.error().message, in.type);
}

// A client that owes more than opt_.client_burst_ms of simulation time: its commands are refused (not
// queued) until it has paid it back, except the cheap ones of an interactive page (selecting,
// viewing, painting, pausing, settings other than congestion, inspecting). True when refused.
bool SimCore::over_budget(const Inbound& in) {
    const Command& cmd = std::get<Command>(in.what);
    bool cheap = false;
    if (const auto* w = std::get_if<WorldCommand>(&cmd)) {
        cheap = std::holds_alternative<Paint>(*w) || std::holds_alternative<SetPaused>(*w);
    } else {
        const auto& v = std::get<ViewerCommand>(cmd);
        const auto* settings = std::get_if<ChangeSettings>(&v);
        cheap = std::holds_alternative<SelectUnits>(v) || std::holds_alternative<ShowGroup>(v) ||
                std::holds_alternative<InspectUnit>(v) || std::holds_alternative<Ping>(v) ||
                (settings && !settings->congestion);
    }
    const auto owed = debt_.find(in.session);
    if (cheap || owed == debt_.end() || owed->second <= opt_.client_burst_ms) return false;
    char text[200];
    std::snprintf(text, sizeof text,
                  "busy: your requests took %.0f ms of simulation time lately, more than the %.0f ms a "
                  "client may be ahead (it earns %.0f ms a second); message dropped",
                  owed->second, opt_.client_burst_ms, opt_.client_share_ms);
    error_to(in.session, text, in.type);
    return true;
}

// A WorldCommand from a client, applied as it is; then what it changed goes out.
Result<void> SimCore::apply_world_command(std::uint64_t session, const WorldCommand& command) {
    if (const auto* order = std::get_if<Order>(&command)) return apply_order(session, *order);
    const auto* spawn = std::get_if<Spawn>(&command);
    if (spawn && spawn->add) {
        const std::size_t units = world_.agents().size();
        if (units + static_cast<std::size_t>(spawn->count) > static_cast<std::size_t>(kMaxAgents)) {
            return Error{"adding " + std::to_string(spawn->count) + " units to " + std::to_string(units) +
                         " would pass the server's limit of " + std::to_string(kMaxAgents)};
        }
    }
    auto out = world_.apply(command);
    if (std::holds_alternative<SetPaused>(command)) broadcast(paused_json(world_), false, Slot::paused);
    if (!out) return out.error();
    if (spawn && !spawn->add) clear_selections();  // a new crowd, whose handles may equal old ones
    if (const auto* tower = std::get_if<PlaceTower>(&command)) send_to(session, tower_placed_json(*tower), false);
    if (std::holds_alternative<SetWallMargin>(command)) broadcast(params_json(world_), false, Slot::params);
    return {};
}

Result<void> SimCore::apply_order(std::uint64_t session, const Order& order) {
    auto out = world_.apply(order);
    if (!out) return out.error();
    send_to(session, ordered_json(*out), false);
    return {};
}

Result<void> SimCore::apply_viewer_command(std::uint64_t session, Client* client, const ViewerCommand& command) {
    return std::visit([&](const auto& c) { return on(session, client, c); }, command);
}

Result<void> SimCore::on(std::uint64_t session, Client* client, const SelectUnits& c) {
    if (!client) return {};
    client->view.select(world_, c.box);
    send_to(session, encode_selection(world_, client->view.selection()), true);
    return {};
}

Result<void> SimCore::on(std::uint64_t, Client* client, const ShowGroup& c) {
    if (!client) return {};
    if (auto r = client->view.show(world_, c.group); !r) return r;
    // A view message also asks for a whole fields frame (a page that could not apply a patch sends
    // one for the group it shows).
    client->sent = {~0ull, ~0ull, ~0ull, ~0ull};
    client->fields.reset();
    return {};
}

Result<void> SimCore::on(std::uint64_t session, Client* client, const OrderSelected& c) {
    if (!client) return Viewer{}.order(c.goals, c.flee).error();  // an HTTP client selects nothing
    auto order = client->view.order(c.goals, c.flee);
    if (!order) return order.error();
    order->formation = c.formation;
    if (auto r = apply_order(session, *order); !r) return r;
    send_to(session, encode_selection(world_, client->view.selection()), true);
    return {};
}

Result<void> SimCore::on(std::uint64_t session, Client*, const SnapGoals& c) {
    SetGoals goals = c.command;
    const auto moves = snap_goals(world_.cost(), goals.goals);
    if (auto out = world_.apply(std::move(goals)); !out) return out.error();
    if (!moves.empty()) send_to(session, snapped_json(moves, "set_goals"), false);
    return {};
}

Result<void> SimCore::on(std::uint64_t session, Client*, const CheckTower& c) {
    const PlaceTower& t = c.tower;
    auto check = world_.check_tower(t.x0, t.y0, t.x1, t.y1);
    if (!check) return check.error();
    send_to(session, tower_json(t, *check), false);
    return {};
}

Result<void> SimCore::on(std::uint64_t, Client*, const ChangeSettings& c) {
    if (c.speed || c.separation || c.radius) {
        UnitParams p = world_.params();
        if (c.speed) p.speed = *c.speed;
        if (c.separation) p.separation = *c.separation;
        if (c.radius) p.radius = *c.radius;
        if (auto out = world_.apply(SetUnitParams{p}); !out) return out.error();
    }
    if (c.line_of_sight) world_.set_line_of_sight(*c.line_of_sight);
    if (c.congestion) {
        CongestionParams p = world_.congestion();
        p.enabled = *c.congestion;
        if (auto out = world_.apply(SetCongestion{p}); !out) return out.error();
    }
    broadcast(params_json(world_), false, Slot::params);
    return {};
}

Result<void> SimCore::on(std::uint64_t, Client*, const LoadMap& c) {
    if (c.uploaded) {
        auto it = std::find_if(uploads_.begin(), uploads_.end(), [&](const auto& u) { return u.first == c.name; });
        if (it == uploads_.end()) {
            return Error{"load_map: no uploaded map '" + c.name.substr(0, 40) + "' (the server keeps the last " +
                         std::to_string(kKeptUploads) + ")"};
        }
        CostField cost = *it->second;
        const auto goal = central_goal(cost);
        return load(c.name, std::move(cost), {*goal}, std::nullopt);
    }
    auto m = make_builtin_map(c.name);
    if (!m) return m.error();
    return load(c.name, std::move(m->cost), std::move(m->goals), m->spawn_area);
}

Result<void> SimCore::on(std::uint64_t, Client*, const StartScenario& c) {
    const auto t0 = Clock::now();
    auto r = load_scenario(world_, c.name);
    if (r) out_.log("loaded scenario " + c.name + load_note(t0, world_));
    after_load();  // also after a failure half-way: the map may have changed
    return r;
}

Result<void> SimCore::on(std::uint64_t session, Client* client, const CompareAstar& c) {
    const UnitGroupId g = c.group != 0 ? c.group : client ? client->view.shown_group(world_) : 0;
    AstarCompareParams params;
    params.samples = c.samples;
    params.paths_kept = kAstarPathsShown;
    params.search_budget_ms = opt_.compare_search_ms;
    auto answer = compare_astar(world_, g, params);
    if (!answer) return Error{answer.error().code, "astar_compare: " + answer.error().message};
    send_to(session, astar_json(*answer), false);
    return {};
}

Result<void> SimCore::on(std::uint64_t session, Client*, const InspectUnit& c) {
    send_to(session, inspected_json(inspect_unit(world_, c.at)), false);
    return {};
}

Result<void> SimCore::on(std::uint64_t, Client*, const StepOnce&) {
    step_once_ = true;
    return {};
}

Result<void> SimCore::on(std::uint64_t, Client*, const Ping&) {
    return {};  // answered by the transport (a pong at once)
}

// Loads a map with as many units as there are (at most what it has room for), then tells everyone.
Result<void> SimCore::load(const std::string& name, CostField cost, std::vector<Cell> goals,
                           std::optional<CellRect> spawn_area) {
    const int count = std::min(static_cast<int>(world_.agents().size()), max_units(cost, spawn_area));
    const auto t0 = Clock::now();
    auto r = world_.load(name, std::move(cost), std::move(goals), count, spawn_area);
    if (!r) return r;
    out_.log("loaded map " + name + load_note(t0, world_));
    after_load();
    return {};
}

void SimCore::after_load() {
    ++loads_;
    if (opt_.congestion_automatic) {
        CongestionParams p = world_.congestion();
        p.enabled = static_cast<std::int64_t>(world_.cost().size()) <= opt_.congestion_cells;
        if (p.enabled != world_.congestion().enabled) (void)world_.apply(SetCongestion{p});
        broadcast(params_json(world_), false, Slot::params);
    }
    post_world_state();
    broadcast_terrain(true);
    for (auto& [id, c] : clients_) {
        c.view.reset();
        c.fields.reset();  // the next fields frame is a whole one
        send_to(id, encode_selection(world_, c.view.selection()), true);
    }
    roster_ = world_.roster_version();
    last_fields_ = last_whole_fields_ = Clock::now() - std::chrono::seconds(1);
    field_scales_.clear();
}

void SimCore::clear_selections() {
    for (auto& [id, c] : clients_) {
        if (c.view.selection().empty()) continue;
        c.view.clear_selection();
        send_to(id, encode_selection(world_, c.view.selection()), true);
    }
}

// The state GET /api/state falls back on while this thread is busy (every 50 ms).
void SimCore::publish_state_if_due() {
    if (Clock::now() - state_published_ < std::chrono::milliseconds(50)) return;
    state_published_ = Clock::now();
    out_.state(state_json(world_, tick_hz_, out_.clients()));
}

// An edit on a flat map: its repair (a few milliseconds on a worker) is waited for here, this
// thread lending a hand, so that the repaired field goes out before the step (25-40 ms at 100,000
// units) rather than after it. Hierarchical plans catch up inside tick().
void SimCore::show_edit_before_step() {
    constexpr double kEditWaitMs = 20.0;  // longest wait for an edit's repairs before the step
    if (world_.hierarchical() || out_.clients() == 0) return;
    world_.finish_builds_for(kEditWaitMs);
    broadcast_terrain(false);
    send_fields(Clock::now());
}

// What the tick changed: terrain, roster and groups go out.
void SimCore::after_tick() {
    if (world_.terrain_version() != terrain_sent_) broadcast_terrain(false);
    // The roster changed (a respawn, units that left by an exit or were walled in with nowhere to
    // go): each selection keeps the units still there, sent again against the new roster.
    if (world_.roster_version() != roster_) {
        roster_ = world_.roster_version();
        out_.store(Slot::world, std::make_shared<const std::string>(world_message()));
        for (auto& [id, c] : clients_) {
            if (c.view.selection().empty()) continue;
            c.view.drop_departed(world_);
            send_to(id, encode_selection(world_, c.view.selection()), true);
        }
    }
    if (world_.groups_version() != groups_sent_) {
        groups_sent_ = world_.groups_version();
        broadcast(groups_json(world_), false, Slot::groups);
        // A client connecting later starts from a world message with today's units and groups.
        out_.store(Slot::world, std::make_shared<const std::string>(world_message()));
    }
}

void SimCore::send_frames(Clock::time_point now) {
    ++rate_ticks_;
    if (now - rate_start_ >= std::chrono::seconds(1)) {
        tick_hz_ = rate_ticks_ / std::chrono::duration<double>(now - rate_start_).count();
        rate_ticks_ = 0;
        rate_start_ = now;
    }
    send_agents(now);
    send_fields(now);
    send_sectors(now);
    if (now - last_stats_ >= std::chrono::milliseconds(250)) {
        last_stats_ = now;
        broadcast(stats_json(world_, tick_hz_, out_.clients()), false);
    }
}

// Agents frames at opt_.agent_fps. A paused world sends a frame only when it differs from the last
// one sent (an order, a spawn, a single step) or a client connected since: every page already
// holds the units, and each frame costs it a full compose (about 5 ms at 100,000 units).
void SimCore::send_agents(Clock::time_point now) {
    const auto agent_period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / opt_.agent_fps));
    if (out_.clients() == 0 || now - last_agents_ < agent_period - std::chrono::milliseconds(2)) return;
    last_agents_ = now;
    auto frame = std::make_shared<const std::string>(encode_agents(world_));
    // (agents_due holds until the first frame goes, so agents_sent is set when compared.)
    if (agents_due_ || !world_.paused() || *frame != *agents_sent_) {
        agents_due_ = false;
        agents_sent_ = frame;
        out_.broadcast(std::move(frame), true, true, Slot::none);
    }
}

// Fields frames and patches to the clients whose view is out of date, at most 20 per second;
// called after each tick and, after an edit, before the step. A client whose page holds a frame of
// the same group gets a patch (the rectangle of samples that changed: a paint on a big map is a
// few KiB); whole frames go at most every field_period (a 1024x1024 frame is 4 MiB; bigger maps
// are sampled down to that). Each client gets the field of the group it looks at, when that field
// or the terrain changed; clients in the same state share one encoding.
void SimCore::send_fields(Clock::time_point now) {
    using std::chrono::milliseconds;
    constexpr auto kHoldForField = milliseconds(150);
    const int stride = field_stride(world_.cost().width(), world_.cost().height());
    const double cells = static_cast<double>(world_.cost().size()) / (static_cast<double>(stride) * stride);
    const auto field_period = milliseconds(static_cast<int>(std::max(100.0, cells / 4096.0)));
    if (world_.terrain_version() != terrain_seen_) {
        terrain_seen_ = world_.terrain_version();
        terrain_changed_at_ = now;
    }
    if (now - last_fields_ < milliseconds(50)) return;
    using Frame = std::shared_ptr<const std::string>;
    std::vector<std::pair<std::array<std::uint64_t, 4>, Frame>> encoded;
    std::vector<std::pair<std::pair<const std::string*, const std::string*>, Frame>> patches;
    bool sent = false, sent_whole = false;
    for (auto& [id, c] : clients_) {
        const UnitGroupId g = c.view.shown_group(world_);
        const UnitGroup* info = world_.group(g);
        const std::uint64_t serial = info ? info->field_serial : 0;
        const std::array<std::uint64_t, 4> key{g, serial, world_.terrain_version(), loads_};
        if (key == c.sent) continue;
        // A paint changes the terrain at once and the field a tick or two later (its repair runs on
        // a worker). A frame of the new terrain with the old field would hold the next one back by
        // 50 ms, so while only the terrain moved on and the group's field is catching up, the
        // frame waits (at most kHoldForField).
        if (c.sent[0] == g && c.sent[1] == serial && c.sent[3] == loads_ && now - terrain_changed_at_ < kHoldForField &&
            !world_.field_up_to_date(g)) {
            continue;
        }
        auto it = std::find_if(encoded.begin(), encoded.end(), [&](const auto& e) { return e.first == key; });
        if (it == encoded.end()) {
            encoded.emplace_back(key, std::make_shared<const std::string>(
                                          encode_fields(world_, g, ++fields_version_, &field_scales_[g])));
            it = std::prev(encoded.end());
        }
        Frame data;
        if (c.fields) {
            const auto pair = std::make_pair(c.fields.get(), it->second.get());
            auto p = std::find_if(patches.begin(), patches.end(), [&](const auto& e) { return e.first == pair; });
            if (p == patches.end()) {
                patches.emplace_back(pair,
                                     std::make_shared<const std::string>(encode_fields_patch(*c.fields, *it->second)));
                p = std::prev(patches.end());
            }
            if (!p->second->empty()) data = p->second;
        }
        if (!data) {  // a whole frame: at most every field_period
            if (now - last_whole_fields_ < field_period) continue;
            data = it->second;
            sent_whole = true;
        }
        c.sent = key;
        c.fields = it->second;
        out_.send_to(id, data, true);
        sent = true;
    }
    if (sent) last_fields_ = now;
    if (sent_whole) last_whole_fields_ = now;
}

// Hierarchical maps, every 100 ms: the sector overlay of the group each client looks at. The
// portals when the graph changes (a load, a paint), the sectors with a field when the plan changes.
void SimCore::send_sectors(Clock::time_point now) {
    if (!world_.hierarchical() || now - last_sectors_ < std::chrono::milliseconds(100)) return;
    last_sectors_ = now;
    std::vector<std::pair<std::array<std::uint64_t, 3>, std::shared_ptr<const std::string>>> encoded;
    auto send_once = [&](std::uint64_t session, const std::array<std::uint64_t, 3>& key, auto&& encode) {
        auto it = std::find_if(encoded.begin(), encoded.end(), [&](const auto& e) { return e.first == key; });
        if (it == encoded.end()) {
            encoded.emplace_back(key, std::make_shared<const std::string>(encode()));
            it = std::prev(encoded.end());
        }
        if (it->second->empty()) return;
        auto data = it->second;
        out_.send_to(session, std::move(data), true);
    };
    for (auto& [id, c] : clients_) {
        const UnitGroupId g = c.view.shown_group(world_);
        const UnitGroup* info = world_.group(g);
        const int size = info ? info->size : 1;
        const SectorGraph* graph = world_.sector_graph(size);
        const std::array<std::uint64_t, 3> skey{static_cast<std::uint64_t>(size), graph ? graph->version() : ~0ull,
                                                loads_};
        if (graph && skey != c.sectors_sent) {
            c.sectors_sent = skey;
            // Keys of the two frame kinds never collide: a sectors key's first word is a size
            // (1..3) with the top bit set here.
            std::array<std::uint64_t, 3> k = skey;
            k[0] |= 1ull << 63;
            send_once(id, k, [&] { return encode_sectors(world_, size); });
        }
        const std::array<std::uint64_t, 3> bkey{g, info ? info->field_serial : 0, loads_};
        if (info && bkey != c.built_sent) {
            c.built_sent = bkey;
            send_once(id, bkey, [&] { return encode_sector_fields(world_, g); });
        }
    }
}

// Terrain frames for maps whose fields frames are sampled (see sent_snapshot_): the whole
// map, or the bounding box of the cells that differ from the terrain last sent.
void SimCore::broadcast_terrain(bool whole) {
    terrain_sent_ = world_.terrain_version();
    const CostField& cost = world_.cost();
    if (!sampled()) {
        if (sent_snapshot_) out_.terrain(0, nullptr, 0, 0, -1, -1);
        sent_snapshot_.reset();
        return;
    }
    const auto cells = cost.cells();
    const int w = cost.width(), h = cost.height();
    int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
    if (!whole && sent_snapshot_ && sent_snapshot_->cells.size() == cells.size()) {
        const std::vector<Cost>& sent_terrain = sent_snapshot_->cells;
        x0 = w, y0 = h, x1 = -1, y1 = -1;
        for (int y = 0; y < h; ++y) {
            const std::size_t row = static_cast<std::size_t>(y) * w;
            if (std::memcmp(sent_terrain.data() + row, cells.data() + row, static_cast<std::size_t>(w)) == 0) continue;
            y0 = std::min(y0, y);
            y1 = y;
            for (int x = 0; x < w; ++x) {
                if (sent_terrain[row + x] == cells[row + x]) continue;
                x0 = std::min(x0, x);
                x1 = std::max(x1, x);
            }
        }
        if (x1 < x0) return;
    }
    auto snapshot = std::make_shared<TerrainSnapshot>();
    snapshot->width = w;
    snapshot->height = h;
    snapshot->cells.assign(cells.begin(), cells.end());
    sent_snapshot_ = std::move(snapshot);
    out_.terrain(0, sent_snapshot_, x0, y0, x1, y1);
}

bool SimCore::sampled() const {
    return field_stride(world_.cost().width(), world_.cost().height()) > 1;
}

void SimCore::keep_upload(const std::string& name, const CostField& cost) {
    std::erase_if(uploads_, [&](const auto& u) { return u.first == name; });
    uploads_.emplace_back(name, std::make_shared<const CostField>(cost));
    auto cells = [&] {
        std::size_t n = 0;
        for (const auto& u : uploads_) n += u.second->cells().size();
        return n;
    };
    while (uploads_.size() > 1 && (uploads_.size() > kKeptUploads || cells() > kKeptUploadCells))
        uploads_.erase(uploads_.begin());
}

std::vector<std::string> SimCore::upload_names() const {
    std::vector<std::string> names;
    for (const auto& u : uploads_) names.push_back(u.first);
    return names;
}

std::string SimCore::world_message() const {
    return world_json(world_, builtin_map_names(), kMaxAgents, upload_names());
}

void SimCore::post_world_state() {
    broadcast(world_message(), false, Slot::world);
    broadcast(groups_json(world_), false, Slot::groups);
    broadcast(params_json(world_), false, Slot::params);
    broadcast(paused_json(world_), false, Slot::paused);
}

void SimCore::broadcast(std::string s, bool binary, Slot keep) {
    out_.broadcast(std::make_shared<const std::string>(std::move(s)), binary, false, keep);
}

void SimCore::send_to(std::uint64_t session, std::string s, bool binary) {
    if (session == 0) return;
    out_.send_to(session, std::make_shared<const std::string>(std::move(s)), binary);
}

void SimCore::error_to(std::uint64_t session, const std::string& message, const std::string& request) {
    send_to(session, error_json(message, request), false);
}

}  // namespace tide::serve
