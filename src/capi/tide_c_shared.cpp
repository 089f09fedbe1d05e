// libtide_c: the C API (tide.h, tide_world.h) as one shared library for FFI hosts (C# P/Invoke,
// Python ctypes, Godot). Its code is the static tide and tide_world libraries, linked whole; this
// file only gives the target a source of its own.
#include "tide/tide_world.h"
