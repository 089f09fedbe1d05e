// The field service: terrain edits. Copy-on-write snapshots of the terrain and the classes' costs,
// the log of edited cells that repairs read, and what an edit does to the cache, the builds and
// the tickets.

#include <algorithm>

#include "service_state.hpp"

namespace tide {
using namespace svc;

// Drops the log entries no pending build can need: a repair needs the edits after its base, a
// running build (which may become a base when it finishes) those after its version.
void FieldService::State::trim_log() {
    std::uint64_t oldest = version;
    for (const Build& b : builds) {
        if (b.base_state) oldest = std::min(oldest, b.base_version);
        if (b.running) oldest = std::min(oldest, b.version);
    }
    const auto keep =
        std::find_if(edit_log.begin(), edit_log.end(), [oldest](const LoggedEdit& e) { return e.version > oldest; });
    edit_log.erase(edit_log.begin(), keep);
}

// A snapshot to edit: copied first when a build, a class or the host reads it.
CostField& FieldService::State::writable(std::shared_ptr<CostField>& snapshot) {
    if (snapshot.use_count() > 1) {
        std::pmr::polymorphic_allocator<CostField> alloc(recycler);
        snapshot = std::allocate_shared<CostField>(alloc, *snapshot, recycler);
    }
    return *snapshot;
}

// The terrain to edit. Classes that share its snapshot let go of it first, so it is not copied
// for them (refresh_classes() points them at the edited one).
CostField& FieldService::State::writable_terrain() {
    for (ClassLayer& c : classes) {
        if (c.planning == terrain) c.planning.reset();
    }
    return writable(terrain);
}

// Brings the classes' costs up to date after the terrain cells of `rect` (or `cells`) were set
// (both absent: builds everything, at creation).
void FieldService::State::refresh_classes(const CellRect* rect, std::span<const Cell> cells) {
    for (std::size_t k = 0; k < classes.size(); ++k) {
        ClassLayer& c = classes[k];
        if (c.own && (rect || !cells.empty())) {
            if (c.planning == c.own) c.planning.reset();  // so the edit does not copy it for the alias
            CostField& own = writable(c.own);
            const CostField& map = *terrain;
            if (rect) {
                for (int y = rect->y0; y <= rect->y1; ++y)
                    for (int x = rect->x0; x <= rect->x1; ++x) own.set(x, y, map.at(x, y));
            }
            for (const Cell& p : cells) own.set(p.x, p.y, map.at(p));
        }
        std::shared_ptr<CostField>& source = c.own ? c.own : terrain;
        if (c.size == 1) {
            c.planning = source;
            continue;
        }
        if (!c.planning || (!rect && cells.empty())) {
            std::pmr::polymorphic_allocator<CostField> alloc(recycler);
            // Sizes were checked at creation: this cannot fail.
            c.planning = std::allocate_shared<CostField>(alloc, sized_cost_field(*source, c.size).value(), recycler);
            continue;
        }
        CostField& planning = writable(c.planning);
        if (rect) update_sized_cost_field(*source, c.size, *rect, planning);
        for (const Cell& p : cells) update_sized_cost_field(*source, c.size, CellRect{p.x, p.y, p.x, p.y}, planning);
    }
}

std::string FieldService::State::class_text(MovementClass c) const {
    const ClassLayer& layer = classes[c];
    return "movement class " + std::to_string(c) + (layer.name.empty() ? "" : " '" + layer.name + "'") + " (size " +
           std::to_string(layer.size) + ")";
}

// After an edit of the rectangle (or of `cells`, when given): a new terrain version, cached fields
// turned into repairs, queued builds re-keyed, and every live ticket not waiting for one of
// those asks again. Returns the number of jobs to start once the lock is released.
int FieldService::State::terrain_changed(int x0, int y0, int x1, int y1, std::span<const Cell> cells) {
    ++version;
    if (hierarchical) {
        // The graphs and plans catch up at the next planning call, once for every edit since.
        auto add = [&](int ax0, int ay0, int ax1, int ay1) {
            pending_edit = pending_edit.empty()
                               ? CellRect{ax0, ay0, ax1, ay1}
                               : CellRect{std::min(pending_edit.x0, ax0), std::min(pending_edit.y0, ay0),
                                          std::max(pending_edit.x1, ax1), std::max(pending_edit.y1, ay1)};
        };
        if (cells.empty()) add(x0, y0, x1, y1);
        for (const Cell& c : cells) add(c.x, c.y, c.x, c.y);
        for (Slot& slot : slots) {
            if (slot.live) slot.want_version = version;
        }
        return 0;
    }
    if (config.repair) {
        if (cells.empty()) {
            edit_log.push_back({version, x0, y0, x1, y1});
        } else {
            for (const Cell& c : cells) edit_log.push_back({version, c.x, c.y, c.x, c.y});
        }
        // Every cached field becomes a repair for the new terrain.
        for (Entry& e : lru) {
            if (!e.state) continue;
            builds.emplace_back(e.want, &pool);
            Build* b = &builds.back();
            b->self = std::prev(builds.end());
            b->version = version;
            b->seq = next_seq++;
            b->base_field = std::move(e.field);
            b->base_state = std::move(e.state);
            b->base_version = e.version;
            build_index.emplace(key_hash(b->want, version), b);
            ++queued;
        }
    }
    std::size_t dropped = 0;
    for (const Entry& e : lru) dropped += e.field ? 1 : 0;  // those that did not become repairs
    stats.invalidations += dropped;
    cache_clear(false);
    for (Build& b : builds) {
        if (!b.running && b.version != version) rekey(&b, version);
    }
    const auto now = Clock::now();
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
        Slot& slot = slots[i];
        if (!slot.live) continue;
        slot.want_version = version;
        slot.requested = now;
        if (slot.waiting && !slot.waiting->running) continue;  // its queued build now answers the new terrain
        detach(slot);
        attach(i, now);
    }
    // Repairs nobody waits for still run: the next order for those goals finds them cached.
    trim_log();
    return jobs_to_start();
}

}  // namespace tide
