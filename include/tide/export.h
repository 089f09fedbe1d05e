/* \file export.h
   TIDE_API marks what libtide exports, TIDE_WORLD_API what libtide_world exports. Static builds
   (the default) define both empty. Shared builds (-DBUILD_SHARED_LIBS=ON) compile each library
   with TIDE_SHARED and its own TIDE_BUILDING / TIDE_WORLD_BUILDING, hide every other symbol
   (-fvisibility=hidden, so a missing mark fails to link on Linux as it would on Windows) and hand
   TIDE_SHARED on to their users (the CMake targets, tide.pc). Read by C and C++. */
#ifndef TIDE_EXPORT_H
#define TIDE_EXPORT_H

#if defined(TIDE_SHARED)
#if defined(_WIN32) || defined(__CYGWIN__)
#define TIDE_EXPORT_ __declspec(dllexport)
#define TIDE_IMPORT_ __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#define TIDE_EXPORT_ __attribute__((visibility("default")))
#define TIDE_IMPORT_ __attribute__((visibility("default")))
#else
#define TIDE_EXPORT_
#define TIDE_IMPORT_
#endif
#if defined(TIDE_BUILDING)
#define TIDE_API TIDE_EXPORT_
#else
#define TIDE_API TIDE_IMPORT_
#endif
#if defined(TIDE_WORLD_BUILDING)
#define TIDE_WORLD_API TIDE_EXPORT_
#else
#define TIDE_WORLD_API TIDE_IMPORT_
#endif
#else
#define TIDE_API
#define TIDE_WORLD_API
#endif

#endif /* TIDE_EXPORT_H */
