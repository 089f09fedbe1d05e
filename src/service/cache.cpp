// The field service: the cache of finished fields (least recently used first out, within the
// byte budget) and the index of the builds in flight.

#include "service_state.hpp"

namespace tide {
using namespace svc;

std::shared_ptr<const FlowField> FieldService::State::cache_find(const Want& w, std::uint64_t v) {
    const auto [lo, hi] = cache_index.equal_range(key_hash(w, v));
    for (auto it = lo; it != hi; ++it) {
        const EntryList::iterator e = it->second;
        if (e->version == v && e->want.same(w)) {
            lru.splice(lru.begin(), lru, e);  // most recently used
            return e->field;
        }
    }
    return nullptr;
}

void FieldService::State::evict_to(std::size_t budget) {
    while (stats.bytes_cached > budget && !lru.empty()) {
        const EntryList::iterator e = std::prev(lru.end());
        const auto [lo, hi] = cache_index.equal_range(key_hash(e->want, e->version));
        for (auto it = lo; it != hi; ++it) {
            if (it->second == e) {
                cache_index.erase(it);
                break;
            }
        }
        stats.bytes_cached -= e->bytes;
        --stats.fields_cached;
        ++stats.evictions;
        lru.erase(e);  // the field lives on wherever a ticket or the host holds it
    }
    update_spare_limit();
}

void FieldService::State::cache_insert(const Want& w, std::uint64_t v, std::shared_ptr<const FlowField> field,
                                       std::shared_ptr<FieldRepairState> state) {
    const std::size_t bytes = field->memory_bytes() + (state ? state->memory_bytes() : 0);
    if (bytes > config.budget_bytes) return;  // could never fit: delivered, not cached
    if (cache_find(w, v)) return;
    evict_to(config.budget_bytes - bytes);
    lru.emplace_front(w, &pool);
    Entry& e = lru.front();
    e.version = v;
    e.field = std::move(field);
    e.state = std::move(state);
    e.bytes = bytes;
    cache_index.emplace(key_hash(w, v), lru.begin());
    stats.bytes_cached += bytes;
    ++stats.fields_cached;
    stats.peak_bytes_cached = std::max(stats.peak_bytes_cached, stats.bytes_cached);
    update_spare_limit();
}

void FieldService::State::cache_clear(bool invalidation) {
    if (invalidation) stats.invalidations += lru.size();
    cache_index.clear();
    lru.clear();
    stats.bytes_cached = 0;
    stats.fields_cached = 0;
    update_spare_limit();
}

Build* FieldService::State::find_build(const Want& w, std::uint64_t v) {
    const auto [lo, hi] = build_index.equal_range(key_hash(w, v));
    for (auto it = lo; it != hi; ++it) {
        if (it->second->version == v && it->second->want.same(w)) return it->second;
    }
    return nullptr;
}

// Files a queued build under another terrain version.
void FieldService::State::rekey(Build* b, std::uint64_t v) {
    const auto [lo, hi] = build_index.equal_range(key_hash(b->want, b->version));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            build_index.erase(it);
            break;
        }
    }
    b->version = v;
    build_index.emplace(key_hash(b->want, v), b);
}

}  // namespace tide
