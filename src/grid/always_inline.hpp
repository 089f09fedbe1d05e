#pragma once
// TIDE_ALWAYS_INLINE: forces inlining of the small lambdas in the builders' inner loops on GCC and
// Clang; empty on other compilers.

#if defined(__GNUC__) || defined(__clang__)
#define TIDE_ALWAYS_INLINE __attribute__((always_inline))
#else
#define TIDE_ALWAYS_INLINE
#endif

// TIDE_PREFETCH(p): asks for the cache line at p ahead of a read (GCC and Clang); nothing elsewhere.
#if defined(__GNUC__) || defined(__clang__)
#define TIDE_PREFETCH(p) __builtin_prefetch(p)
#else
#define TIDE_PREFETCH(p) static_cast<void>(p)
#endif
