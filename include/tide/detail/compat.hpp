#pragma once
/// \file compat.hpp
/// Internal: what some standard libraries Tide builds with still lack. Emscripten 3.1.6 (Debian 12's,
/// for the WebAssembly build) ships libc++ 14, which has no <memory_resource> (only
/// <experimental/memory_resource>), no std::bit_cast, no std::atomic_ref and no floating-point
/// from_chars/to_chars. The helpers below call the standard functions where they exist
/// (from_chars, to_chars) or builtins g++ and clang share (bit_cast, the relaxed store), so every
/// build computes the same bits. Not part of the API.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <type_traits>
#include <version>

#if __has_include(<memory_resource>)
#include <memory_resource>
#else
// libc++ before 16: the Library Fundamentals TS's polymorphic memory resources, under the names
// C++17 gave them. Tide uses memory_resource, polymorphic_allocator, get_default_resource,
// new_delete_resource, pmr::vector, pmr::unordered_multimap and unsynchronized_pool_resource.
#include <experimental/memory_resource>
#include <experimental/unordered_map>
#include <experimental/vector>
#include <unordered_map>
#include <utility>

namespace std::pmr {  // NOLINT(cert-dcl58-cpp): only where the standard library lacks it
using std::experimental::pmr::get_default_resource;
using std::experimental::pmr::memory_resource;
using std::experimental::pmr::new_delete_resource;
using std::experimental::pmr::polymorphic_allocator;
using std::experimental::pmr::set_default_resource;
template <class T>
using vector = std::experimental::pmr::vector<T>;
template <class K, class V, class H = std::hash<K>, class E = std::equal_to<K> >
using unordered_multimap = std::experimental::pmr::unordered_multimap<K, V, H, E>;

/// Stand-in for the pool resource: forwards every request to its upstream (no pooling) and keeps
/// the live blocks, so release() and the destructor return them all, as the real one does.
class unsynchronized_pool_resource : public memory_resource {
public:
    explicit unsynchronized_pool_resource(memory_resource* upstream = get_default_resource()) : upstream_(upstream) {}
    unsynchronized_pool_resource(const unsynchronized_pool_resource&) = delete;
    unsynchronized_pool_resource& operator=(const unsynchronized_pool_resource&) = delete;
    ~unsynchronized_pool_resource() override { release(); }
    memory_resource* upstream_resource() const noexcept { return upstream_; }
    void release() {
        for (const auto& [p, b] : live_) upstream_->deallocate(p, b.first, b.second);
        live_.clear();
    }

private:
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        void* p = upstream_->allocate(bytes, align);
        live_.emplace(p, std::pair<std::size_t, std::size_t>{bytes, align});
        return p;
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
        live_.erase(p);
        upstream_->deallocate(p, bytes, align);
    }
    bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }
    memory_resource* upstream_;
    std::unordered_map<void*, std::pair<std::size_t, std::size_t> > live_;
};
}  // namespace std::pmr
#endif

namespace tide::detail {

/// std::bit_cast, through the builtin that GCC (11+) and Clang (9+) implement it with, so it is
/// there (and constexpr) where the standard library does not declare it yet.
template <class To, class From>
requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> &&
         std::is_trivially_copyable_v<From>) constexpr To bit_cast(const From& from) noexcept {
    return __builtin_bit_cast(To, from);
}

/// Stores `value` into `object` with relaxed ordering, as std::atomic_ref would (which libc++ 14
/// lacks): other threads may store the same value concurrently.
template <class T>
requires std::is_integral_v<T>
inline void relaxed_store(T& object, std::type_identity_t<T> value) noexcept {
    __atomic_store_n(&object, value, __ATOMIC_RELAXED);
}

/// Adds `value` to `object` atomically with relaxed ordering, as std::atomic_ref::fetch_add would:
/// integer sums from any number of threads end the same in any order.
template <class T>
requires std::is_integral_v<T>
inline void relaxed_add(T& object, std::type_identity_t<T> value) noexcept {
    __atomic_fetch_add(&object, value, __ATOMIC_RELAXED);
}

/// Marks `object` as holding `value`'s tag: from `none` to `value`, or to `mixed` once a different
/// tag came (relaxed atomics). Any number of threads in any order end at the same tag: the one value
/// all of them gave, else `mixed`.
inline void relaxed_tag(std::uint32_t& object, std::uint32_t value, std::uint32_t none, std::uint32_t mixed) noexcept {
    std::uint32_t seen = __atomic_load_n(&object, __ATOMIC_RELAXED);
    if (seen == value || seen == mixed) return;
    if (seen == none && __atomic_compare_exchange_n(&object, &seen, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    if (seen != value) __atomic_store_n(&object, mixed, __ATOMIC_RELAXED);
}

/// std::from_chars for float and double (hexadecimal without "0x" when `hex`, else general), with
/// strtod where the standard library has no floating-point from_chars (libc++ before 17; the
/// WebAssembly build runs in the "C" locale).
template <class T>
std::from_chars_result from_chars_float(const char* first, const char* last, T& value, bool hex) noexcept {
#if defined(__cpp_lib_to_chars)
    return std::from_chars(first, last, value, hex ? std::chars_format::hex : std::chars_format::general);
#else
    char buf[128];
    const std::size_t n = static_cast<std::size_t>(last - first);
    const bool minus = n > 0 && *first == '-';
    // strtod would take what from_chars refuses: spaces, '+', "0x", "inf"/"nan" spellings it allows.
    if (n <= static_cast<std::size_t>(minus) || n + 3 > sizeof buf || first[minus] == '+' || first[minus] == ' ' ||
        (n > static_cast<std::size_t>(minus) + 1 && first[minus] == '0' &&
         (first[minus + 1] == 'x' || first[minus + 1] == 'X'))) {
        return {first, std::errc::invalid_argument};
    }
    std::size_t k = 0;
    if (minus) buf[k++] = '-';
    if (hex) {
        buf[k++] = '0';
        buf[k++] = 'x';
    }
    std::memcpy(buf + k, first + minus, n - minus);
    buf[k + n - minus] = '\0';
    char* end = nullptr;
    const double d = std::strtod(buf, &end);
    const auto used = static_cast<std::ptrdiff_t>(end - buf) - static_cast<std::ptrdiff_t>(k - minus);
    if (end == buf || used <= 0) return {first, std::errc::invalid_argument};
    value = static_cast<T>(d);
    return {first + used, std::errc{}};
#endif
}

/// std::to_chars(first, last, value, std::chars_format::hex) for float and double, with printf's
/// "%a" (its "0x" taken off) where the standard library has no floating-point to_chars.
template <class T>
std::to_chars_result to_chars_float_hex(char* first, char* last, T value) noexcept {
#if defined(__cpp_lib_to_chars)
    return std::to_chars(first, last, value, std::chars_format::hex);
#else
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%a", static_cast<double>(value));
    std::string s(buf, static_cast<std::size_t>(n > 0 ? n : 0));
    const std::size_t x = s.find("0x");
    if (x != std::string::npos) s.erase(x, 2);
    if (s.size() > static_cast<std::size_t>(last - first)) return {last, std::errc::value_too_large};
    std::memcpy(first, s.data(), s.size());
    return {first + s.size(), std::errc{}};
#endif
}

}  // namespace tide::detail
