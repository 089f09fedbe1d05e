#pragma once
/// \file hierarchy.hpp
/// Big maps: sectors, portals, the portal graph, and route-only flow fields (see docs/hierarchy.md).
///
/// The map is cut into square sectors. Along every border between two sectors, the cells passable
/// on both sides form runs; runs become portals (split when longer than a limit), and each portal
/// gives the graph one node on each side of the border. Inside a sector, the cost from every node
/// to every other is computed by a Dijkstra restricted to the sector. A route query searches that
/// graph from the goals (A* toward the sectors units stand in), then builds flow fields only for
/// the sectors on the route, goal first, each seeded with the values of the fields next to it.
///
/// Every sector field is consistent with its neighbours: a value is the cost of a real path, and
/// a step across a sector border always lowers it, so following the flow reaches a goal without
/// loops whatever order the sectors were built in. Paths are close to, not exactly, optimal
/// (docs/validation.md has the ratios); the flat FlowField stays the exact choice.
///
/// One header per concept; this one includes them all:
/// - tide/sector_graph.hpp        SectorConfig, Portal, SectorNode, SectorGraph (built once per map)
/// - tide/sector_field.hpp        SectorField (one sector's flow field)
/// - tide/hierarchical_field.hpp  RouteConfig, RouteStats, HierarchicalField, hierarchical_path_cost

#include "tide/hierarchical_field.hpp"
#include "tide/sector_field.hpp"
#include "tide/sector_graph.hpp"
