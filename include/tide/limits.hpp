#pragma once
/// \file limits.hpp
/// Every size limit of Tide in one place: the library's (maps, units, orders) and those of the
/// bundled hosts (the `tide` CLI and the `tide serve` demo server). Each is enforced where the
/// value enters, with an error naming the value and the limit; README (CLI) and docs/protocol.md
/// (server) list them for users.

#include <cstddef>
#include <cstdint>

namespace tide {

// ---- Library ---------------------------------------------------------------------------------

/// Largest accepted map width or height, in cells (maps are 1..kMaxDimension on each side).
inline constexpr int kMaxDimension = 16384;
/// Largest map or scenario file read_text_file() reads by default, bytes (1 GiB).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{1} << 30;
/// Largest unit size, in cells per side.
inline constexpr int kMaxUnitSize = 8;
/// Most unit classes a map may declare.
inline constexpr int kMaxUnitClasses = 32;
/// Most cells the cost fields of a map's classes (those with cost lines) may hold together: one
/// 16384 x 16384 field. Bounds what a short header can make a parser allocate (32 classes with
/// costs would otherwise multiply the map's memory by 33).
inline constexpr std::size_t kMaxClassCostCells = std::size_t{1} << 28;
/// Most units a world holds, whatever asks.
inline constexpr int kMaxWorldUnits = 1'000'000;
/// Most units per free cell a spawn may place (units of size s count s x s): about what fits
/// when discs of the default radius (0.16 cells) are packed edge to edge. More would never
/// finish arriving and slow the step to a crawl.
inline constexpr int kMaxUnitsPerFreeCell = 10;
/// Most goals in one order or goal set.
inline constexpr int kMaxOrderGoals = 16;
/// Largest paint brush radius, cells.
inline constexpr int kMaxBrushRadius = 16;
/// Largest tower (PlaceTower) side, cells.
inline constexpr int kMaxTowerSide = 8;

// ---- The tide CLI ----------------------------------------------------------------------------

/// Most simulation steps `tide sim` runs (--seconds / --dt): 10 hours at 60 Hz.
inline constexpr std::int64_t kMaxSimSteps = 2'160'000;
/// Most worker threads a CLI subcommand accepts (--threads).
inline constexpr int kMaxThreads = 256;

// ---- The demo server (tide serve) ------------------------------------------------------------

/// Most units the server's world holds (spawn, --agents).
inline constexpr int kMaxServerUnits = 200'000;
/// Largest client message the server parses, bytes; larger ones get an error reply.
inline constexpr std::size_t kMaxClientMessageBytes = 64 * 1024;
/// Largest WebSocket frame the server reads at all, bytes; larger fail the connection (1009).
inline constexpr std::size_t kMaxClientFrameBytes = std::size_t{1} << 20;
/// Largest map upload (POST /api/map body), bytes.
inline constexpr std::size_t kMaxUploadBytes = std::size_t{64} << 20;
/// Longest map name an upload may give (?name=), characters; longer ones are cut.
inline constexpr std::size_t kMaxMapNameChars = 200;
/// A client whose queued frames exceed this many bytes is disconnected (it cannot keep up).
/// Whole-map terrain is not counted: it is streamed in bands as the client takes them.
inline constexpr std::size_t kMaxQueuedBytes = std::size_t{64} << 20;
/// Largest terrain frame the server sends, bytes of costs; a bigger map goes in row bands.
inline constexpr std::size_t kMaxTerrainFrameBytes = std::size_t{1} << 20;
/// Most samples in a fields frame (larger maps are sampled every few cells).
inline constexpr std::size_t kMaxFieldSamples = std::size_t{1} << 20;

}  // namespace tide
