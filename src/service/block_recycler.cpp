// See block_recycler.hpp.

#include "block_recycler.hpp"

namespace tide::detail {

BlockRecycler::~BlockRecycler() {
    limit_ = 0;
    trim();
}

BlockRecycler::SizeClass* BlockRecycler::find(std::size_t bytes, std::size_t align) {
    for (std::size_t c = 0; c < n_classes_; ++c) {
        if (classes_[c].bytes == bytes && classes_[c].align == align) return &classes_[c];
    }
    if (n_classes_ == kMaxClasses) return nullptr;  // sizes beyond the first few pass straight through
    SizeClass& k = classes_[n_classes_++];
    k.bytes = bytes;
    k.align = align;
    return &k;
}

void BlockRecycler::trim() {
    // Largest blocks first: they are what the limit is about.
    while (spare_bytes_ > limit_) {
        SizeClass* big = nullptr;
        for (std::size_t c = 0; c < n_classes_; ++c) {
            if (!classes_[c].blocks.empty() && (!big || classes_[c].bytes > big->bytes)) big = &classes_[c];
        }
        if (!big) break;
        upstream_->deallocate(big->blocks.back(), big->bytes, big->align);
        big->blocks.pop_back();
        spare_bytes_ -= big->bytes;
    }
}

void BlockRecycler::set_spare_limit(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    limit_ = bytes;
    trim();
}

std::size_t BlockRecycler::spare_bytes() const {
    std::lock_guard lock(mutex_);
    return spare_bytes_;
}

std::size_t BlockRecycler::live_bytes() const {
    std::lock_guard lock(mutex_);
    return live_bytes_;
}

void* BlockRecycler::do_allocate(std::size_t bytes, std::size_t align) {
    {
        std::lock_guard lock(mutex_);
        ++live_;
        live_bytes_ += bytes;
        if (SizeClass* k = find(bytes, align); k && !k->blocks.empty()) {
            spare_bytes_ -= bytes;
            void* p = k->blocks.back();
            k->blocks.pop_back();
            return p;
        }
    }
    try {
        return upstream_->allocate(bytes, align);
    } catch (...) {
        std::lock_guard lock(mutex_);
        --live_;
        live_bytes_ -= bytes;
        throw;
    }
}

void BlockRecycler::do_deallocate(void* p, std::size_t bytes, std::size_t align) {
    bool last = false;
    {
        std::lock_guard lock(mutex_);
        --live_;
        live_bytes_ -= bytes;
        if (!orphaned_ && spare_bytes_ + bytes <= limit_) {
            if (SizeClass* k = find(bytes, align)) {
                k->blocks.push_back(p);
                spare_bytes_ += bytes;
                return;
            }
        }
        last = orphaned_ && live_ == 0;
    }
    upstream_->deallocate(p, bytes, align);
    if (last) delete this;
}

void BlockRecycler::orphan() {
    bool last = false;
    {
        std::lock_guard lock(mutex_);
        orphaned_ = true;
        limit_ = 0;
        trim();
        last = live_ == 0;
    }
    if (last) delete this;
}

}  // namespace tide::detail
