#pragma once
// A memory resource that keeps freed blocks for reuse, by size. The field service allocates every
// field (its two layers and the shared_ptr control block) and every terrain snapshot through one,
// so once warm a build allocates nothing: a field of a W x H map always needs the same few block
// sizes, and the buffers of fields nobody holds any more come back here.
//
// Fields may outlive the service that made them. The owner therefore never deletes a recycler:
// it calls orphan(), and the recycler deletes itself when its last block comes back.

#include <cstddef>
#include <mutex>
#include <vector>
#include "tide/detail/compat.hpp"

namespace tide::detail {

class BlockRecycler final : public std::pmr::memory_resource {
public:
    /// Blocks come from `upstream`, which must outlive every block handed out.
    explicit BlockRecycler(std::pmr::memory_resource* upstream) : upstream_(upstream) {}
    BlockRecycler(const BlockRecycler&) = delete;
    BlockRecycler& operator=(const BlockRecycler&) = delete;

    /// Keeps freed blocks while their bytes stay within `bytes` (trims at once when over).
    void set_spare_limit(std::size_t bytes);
    /// Bytes of the freed blocks kept.
    std::size_t spare_bytes() const;
    /// Bytes of the blocks handed out and not yet returned.
    std::size_t live_bytes() const;
    /// The owner is done: spare blocks go back upstream, and the recycler deletes itself once
    /// every block handed out has come back (at once when none is out).
    void orphan();

    static constexpr std::size_t kMaxClasses = 16;

private:
    ~BlockRecycler() override;
    void* do_allocate(std::size_t bytes, std::size_t align) override;
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    struct SizeClass {
        std::size_t bytes = 0;
        std::size_t align = 0;
        std::vector<void*> blocks;  // grows to the largest number kept, then stays
    };
    SizeClass* find(std::size_t bytes, std::size_t align);  // adds the class when there is room
    void trim();                                            // spare bytes down to the limit

    std::pmr::memory_resource* upstream_;
    mutable std::mutex mutex_;
    SizeClass classes_[kMaxClasses];
    std::size_t n_classes_ = 0;
    std::size_t limit_ = 0;  // bytes
    std::size_t spare_bytes_ = 0;
    std::size_t live_ = 0;  // blocks handed out and not yet returned
    std::size_t live_bytes_ = 0;
    bool orphaned_ = false;
};

}  // namespace tide::detail
