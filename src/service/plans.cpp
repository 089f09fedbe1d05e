// The field service: plans on hierarchical maps.
// A ticket's plan is made at once (there is nothing to build until units stand somewhere: route()
// builds sector fields where they do) and published at the next publish(). Tickets with the same
// goals and class share one plan while anything holds it. Edits only note their cells; at the next
// planning call (publish(), route(), a request) each graph made so far is updated around them on
// the class's new costs, every plan drops what may have used them, and its tickets get it again
// (a plan changed in place is published anew, so a crowd forgets what it saw along it).

#include <algorithm>

#include "service_state.hpp"
#include "tide/assert.hpp"

namespace tide {
using namespace svc;

// The sector graph and costs of class `c`, made on first use.
Result<FieldService::State::PlanLayer*> FieldService::State::plan_layer(MovementClass c) {
    PlanLayer& l = plan_layers[c];
    if (l.graph) return &l;
    const auto t0 = Clock::now();
    auto graph = SectorGraph::build(*classes[c].planning, config.sectors, &jobs);
    if (!graph) return graph.error();
    l.costs = classes[c].planning;
    l.graph = std::make_unique<SectorGraph>(std::move(*graph));
    ++stats.graphs_built;
    stats.graph_build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return &l;
}

void FieldService::State::attach_plan(std::uint32_t index, Clock::time_point now) {
    catch_up_plans();
    Slot& s = slots[index];
    s.requested = now;
    std::shared_ptr<HierarchicalField> plan;
    for (auto it = plans.begin(); it != plans.end();) {
        if (it->plan.expired()) {
            it = plans.erase(it);
            continue;
        }
        if (!plan && it->want.same(s.want)) plan = it->plan.lock();
        ++it;
    }
    if (plan) {
        ++stats.plans_shared;
        ++stats.hits;
    } else {
        ++stats.misses;
        auto layer = plan_layer(s.want.movement_class);
        // The goals were checked on these costs and the config at creation: only a bug fails here.
        TIDE_ASSERT(layer.ok());
        auto made = HierarchicalField::create(*(*layer)->costs, *(*layer)->graph, s.want.goals, route_config());
        TIDE_ASSERT(made.ok());
        plan = std::make_shared<HierarchicalField>(std::move(*made));
        plans.emplace_back(s.want, &pool).plan = plan;
    }
    offer(index, FieldView(std::shared_ptr<const HierarchicalField>(plan)), s.want_serial, s.want_version, true, false,
          0.0, now);
}

// The plan the slot has last (ready or published) changed: it goes to the slot again (or its
// replacement does) at the next publish().
void FieldService::State::hand_again(std::uint32_t index, const FieldView& view) {
    Slot& s = slots[index];
    s.next_serial = s.next ? s.next_serial : s.field_serial;
    s.next = view;
    s.next_version = version;
    s.next_from_cache = false;
    s.next_repaired = true;
    s.next_build_ms = 0.0;
    s.next_ready = Clock::now();
    if (config.auto_publish) {
        publish_slot(index);
    } else if (!s.in_ready_list) {
        s.in_ready_list = true;
        ready.push_back(index);
    }
}

// True when (x, y) lies in the block of a goal of a live plan (a plan needs open goals).
bool FieldService::State::in_goal_block(int x, int y) const {
    for (const PlanEntry& e : plans) {
        if (e.plan.expired()) continue;
        const int size = classes[e.want.movement_class].size;
        for (const Cell& q : e.want.goals) {
            if (x >= q.x && x < q.x + size && y >= q.y && y < q.y + size) return true;
        }
    }
    return false;
}

// The graphs and plans catch up with the edits since the last planning call (see above).
void FieldService::State::catch_up_plans() {
    if (pending_edit.empty()) return;
    const auto t0 = Clock::now();
    const CellRect edit = pending_edit;
    pending_edit = CellRect{};
    for (std::size_t c = 0; c < plan_layers.size(); ++c) {
        PlanLayer& l = plan_layers[c];
        if (!l.graph) continue;
        const CellRect r = sized_cells_touched(edit, classes[c].size, l.graph->width(), l.graph->height());
        l.costs = classes[c].planning;
        const CostField& costs = *l.costs;
        (void)l.graph->update(costs, r.x0, r.y0, r.x1, r.y1, &jobs);
        for (PlanEntry& e : plans) {
            if (e.want.movement_class != c) continue;
            std::shared_ptr<HierarchicalField> plan = e.plan.lock();
            if (!plan) continue;
            std::shared_ptr<HierarchicalField> next = plan;
            if (!plan->terrain_changed(costs, r.x0, r.y0, r.x1, r.y1)) {
                // A goal walled (edits keep goal blocks open, so this should not happen): plan again
                // toward the goals still open, else toward the open cells nearest to them.
                std::vector<Cell> open;
                for (const Cell& q : e.want.goals) {
                    if (costs.passable(q.x, q.y)) open.push_back(q);
                }
                if (open.empty()) {
                    for (const Cell& q : e.want.goals) {
                        if (const auto n = nearest_passable(costs, q)) open.push_back(*n);
                    }
                }
                auto made = HierarchicalField::create(costs, *l.graph, open, route_config());
                if (!made) continue;
                next = std::make_shared<HierarchicalField>(std::move(*made));
                e.plan = next;
            }
            const FieldView old_view{std::shared_ptr<const HierarchicalField>(plan)};
            const FieldView view{std::shared_ptr<const HierarchicalField>(next)};
            for (std::uint32_t i = 0; i < slots.size(); ++i) {
                const FieldView& latest = slots[i].next ? slots[i].next : slots[i].field;
                if (slots[i].live && latest == old_view) hand_again(i, view);
            }
        }
    }
    stats.graph_update_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace tide
