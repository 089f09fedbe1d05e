/* \file export.h
   TIDE_API marks what the library exports. Static builds (the default) define it empty. Shared
   builds (-DBUILD_SHARED_LIBS=ON) compile the library with TIDE_SHARED and TIDE_BUILDING, hide
   everything else (-fvisibility=hidden) and hand TIDE_SHARED on to users (CMake target, tide.pc).
   C and C++. */
#ifndef TIDE_EXPORT_H
#define TIDE_EXPORT_H

#if defined(TIDE_SHARED)
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(TIDE_BUILDING)
#define TIDE_API __declspec(dllexport)
#else
#define TIDE_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define TIDE_API __attribute__((visibility("default")))
#else
#define TIDE_API
#endif
#else
#define TIDE_API
#endif

#endif /* TIDE_EXPORT_H */
