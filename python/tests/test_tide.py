"""Tests of the Python module (run by ctest: python.pytest; PYTHONPATH=build/python)."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tide

SOURCE = os.environ.get("TIDE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def test_map_from_numpy_round_trips_costs():
    costs = np.ones((5, 7), dtype=np.uint8)
    costs[2, 3] = tide.COST_WALL
    costs[4, 6] = 6
    m = tide.Map(costs)
    assert (m.width, m.height) == (7, 5)
    assert m.costs.shape == (5, 7)
    assert np.array_equal(m.costs, costs)
    assert not m.costs.flags.writeable
    m.set_cost(0, 0, 9)
    assert m.costs[0, 0] == 9  # a view of the map, not a copy


def test_field_matches_hand_computed_costs_and_is_a_view():
    m = tide.Map(np.ones((3, 4), dtype=np.uint8))
    f = tide.build_field(m, [(0, 0)])
    integ = f.integration
    assert integ.dtype == np.float32 and integ.shape == (3, 4)
    assert integ[0, 0] == 0
    assert integ[0, 3] == pytest.approx(3.0)
    assert integ[2, 2] == pytest.approx(2 * math.sqrt(2), rel=1e-6)
    assert f.directions[0, 0] == 8  # goal
    assert f.directions[0, 1] == 4  # west
    assert not integ.flags.owndata  # no copy: the field's own buffer
    del f  # the array keeps the field alive
    assert integ[0, 3] == pytest.approx(3.0)
    four = tide.build_field(m, [(0, 0)], connectivity=4)
    assert four.integration[2, 2] == pytest.approx(4.0)


def test_walls_are_unreachable_and_sample_points_along_the_flow():
    costs = np.ones((5, 5), dtype=np.uint8)
    costs[:, 2] = tide.COST_WALL
    f = tide.build_field(tide.Map(costs), [(0, 2)])
    assert math.isinf(f.integration[2, 4])
    assert f.directions[2, 2] == 10  # wall
    vx, vy = f.sample(1.5, 2.5)
    assert vx < -0.9 and abs(vy) < 0.1


def test_flee_field_runs_from_the_danger_and_has_safe_spots():
    m = tide.Map(np.ones((9, 9), dtype=np.uint8))
    f = tide.build_flee(m, [(4, 4)])
    assert f.flee
    v = f.integration
    assert v.max() <= 0 and f.directions[4, 4] < 8  # even the danger cell runs away
    assert v[0, 0] == pytest.approx(-1.2 * 4 * math.sqrt(2), rel=1e-6)  # -k * D at the farthest corner
    assert f.directions[0, 0] == 8  # a corner is a safe spot
    assert f.directions[4, 5] in (0, 1, 7)  # east of the danger: runs on eastward (E, SE or NE)
    assert f.to_stop[4, 5] > 0 and f.to_stop[0, 0] == 0
    with pytest.raises(tide.Error) as e:
        tide.build_flee(m, [(4, 4)], factor=0)
    assert "flee factor 0" in str(e.value)


def test_mixed_field_keeps_away_from_the_danger():
    m = tide.Map(np.ones((9, 15), dtype=np.uint8))
    plain = tide.build_field(m, [(14, 4)])
    mixed = tide.build_field(m, [(14, 4)], dangers=[(7, 4)], danger_weight=20, danger_radius=3)
    assert not mixed.flee
    assert mixed.integration[4, 0] > plain.integration[4, 0] + 1  # straight through costs more now
    assert mixed.integration[4, 14] == 0
    with pytest.raises(tide.Error) as e:
        tide.build_field(m, [(14, 4)], dangers=[(7, 4)], danger_weight=300)
    assert "danger weight 300" in str(e.value)


def test_errors_carry_a_code():
    m = tide.Map(np.ones((4, 4), dtype=np.uint8))
    m.set_cost(1, 1, tide.COST_WALL)
    with pytest.raises(tide.Error) as e:
        tide.build_field(m, [(1, 1)])
    assert e.value.code == "on_wall"
    with pytest.raises(tide.Error) as e:
        tide.build_field(m, [(9, 1)])
    assert e.value.code == "off_map"
    with pytest.raises(tide.Error) as e:
        tide.Map.parse("tide-map 1\nwidth 2\nheight 1\nmap\n..x\n", "bad.map")
    assert e.value.code == "parse_error" and "bad.map:5" in str(e.value)
    with pytest.raises(tide.Error) as e:
        tide.Map.load("/no/such/file.map")
    assert e.value.code == "io"
    with pytest.raises(ValueError):  # tide.Error is a ValueError
        tide.Map(np.zeros((2, 2), dtype=np.uint8))


def test_load_and_crowd_reach_the_goal():
    m = tide.Map.load(os.path.join(SOURCE, "examples", "arena.map"))
    f = tide.build_field(m, [(22, 6)])
    crowd = tide.Crowd(m)
    g = crowd.add_group(f)
    for i in range(8):
        crowd.add_agent(1.5 + i % 2, 1.5 + i, g, tag=100 + i)
    crowd.add_agent(2.5, 10.5, g, radius=0.3, max_speed=5.0, tag=7)
    crowd.step(1 / 60, steps=900)
    pos = crowd.positions()
    assert pos.shape == (9, 2)
    assert crowd.states() == ["arrived"] * 9
    assert np.all(np.hypot(pos[:, 0] - 22.5, pos[:, 1] - 6.5) < 2.0)
    assert sorted(crowd.tags().tolist()) == [7] + list(range(100, 108))


def test_scen_matches_published_optimal_lengths(tmp_path):
    m = tide.Map(np.ones((4, 4), dtype=np.uint8))
    scen = tmp_path / "a.scen"
    scen.write_text("version 1\n0\ta.map\t4\t4\t0\t0\t3\t3\t4.24264069\n0\ta.map\t4\t4\t0\t3\t3\t3\t3\n")
    r = tide.scen(m, str(scen))
    assert r["start"].tolist() == [[0, 0], [0, 3]]
    assert np.allclose(r["cost"], r["optimal"], rtol=1e-6)


def test_units_waiting_at_a_door_are_queued():
    # A room whose right wall has a one-cell door (x = 20, y = 10), the goal beyond it.
    costs = np.ones((21, 32), dtype=np.uint8)
    costs[:, 20] = tide.COST_WALL
    costs[10, 20] = 1
    m = tide.Map(costs)
    crowd = tide.Crowd(m)
    g = crowd.add_group(tide.build_field(m, [(28, 10)]))
    for i in range(150):
        crowd.add_agent(12.3 + 0.36 * (i % 20), 7.3 + 0.36 * (i // 20), g)
    seen = set()
    for _ in range(12):
        crowd.step(1 / 60, steps=15)
        seen.update(crowd.states())
    assert seen <= {"moving", "arrived", "queued"}
    assert "queued" in seen


def test_sim_is_deterministic_and_reports_like_the_cli():
    m = tide.Map.builtin("default")
    assert m.goals
    a = tide.sim(m, agents=200, seconds=20, seed=3)
    b = tide.sim(m, agents=200, seconds=20, seed=3)
    assert a["state_hash"] == b["state_hash"]
    assert a["positions"].shape == (200, 2)
    assert a["arrived"] > 150
    assert a["planner"] == "flat"
    assert a["agents"] == 200 and a["time"] == pytest.approx(20.0, abs=1e-3)
    by_second = a["arrived_by_second"]
    assert len(by_second) == 20
    assert np.all(np.diff(by_second) >= -0.05)  # the packs fill up; nobody wanders far off again
    assert a["arrived_fraction"] == by_second[-1] == pytest.approx(a["arrived"] / 200)
    arrival = a["arrival_s"]
    assert arrival.shape == (200,)
    reached = arrival[~np.isnan(arrival)]
    assert len(reached) >= a["arrived"]
    assert a["mean_arrival_s"] == pytest.approx(reached.mean())
    assert a["max_arrival_s"] == pytest.approx(reached.max())
    assert 0 < reached.min() <= 20.0
    assert a["wall_penetrations"] == 0 and not a["nan"]
    assert a["max_overlap"] < 1.5
    assert a["mean_step_ms"] > 0 and a["max_step_ms"] >= a["mean_step_ms"]
    assert tide.sim(m, agents=200, seconds=20, seed=4)["state_hash"] != a["state_hash"]


@pytest.mark.skipif(not os.environ.get("TIDE_CLI"), reason="TIDE_CLI (the tide binary) not given")
def test_sim_is_the_same_run_as_the_cli(tmp_path):
    out = tmp_path / "sim.json"
    subprocess.run([os.environ["TIDE_CLI"], "sim", "--map", "@default", "--goal", "54,18", "--agents", "150",
                    "--seconds", "6", "--seed", "5", "--threads", "2", "--json", str(out)],
                   check=True, capture_output=True)
    cli = json.loads(out.read_text())
    py = tide.sim(tide.Map.builtin("default"), goals=[(54, 18)], agents=150, seconds=6, seed=5)
    assert cli["state_hash"] == "%016x" % py["state_hash"]
    assert cli["arrived_by_second"] == pytest.approx(py["arrived_by_second"].tolist())
    assert cli["mean_arrival_s"] == pytest.approx(py["mean_arrival_s"])
    assert cli["wall_penetrations"] == py["wall_penetrations"]
    assert cli["max_overlap"] == pytest.approx(py["max_overlap"])


def test_sim_flees_from_danger():
    m = tide.Map(np.ones((40, 40), dtype=np.uint8))
    r = tide.sim(m, flee=[(20, 20)], agents=100, seconds=12, spawn=(16, 16, 24, 24), seed=2)
    assert r["flee_factor"] == pytest.approx(1.2)
    assert r["danger_distance_mean_start"] < 5
    assert r["danger_distance_mean_end"] > r["danger_distance_mean_start"] + 5
    assert r["danger_distance_min_end"] > 3
    with pytest.raises(tide.Error):
        tide.sim(m, goals=[(1, 1)], flee=[(20, 20)])


TANK_MAP = """tide-map 1
width 24
height 9
class tank size 2
map
...........#............
...........#............
...........#............
...........#............
........................
...........#............
...........#............
...........#............
...........#............
"""


def test_sim_plans_for_a_unit_class():
    m = tide.Map.parse(TANK_MAP, "tank.tmap")  # a wall with a one-cell gap: too narrow for a 2x2 tank
    foot = tide.sim(m, goals=[(20, 4)], agents=30, seconds=40, spawn=(0, 0, 8, 9))
    assert foot["class"] == "default" and foot["size"] == 1
    assert foot["arrived_fraction"] > 0.8
    tank = tide.sim(m, goals=[(20, 4)], agents=30, seconds=5, spawn=(0, 0, 8, 9), unit_class="tank")
    assert tank["class"] == "tank" and tank["size"] == 2 and tank["body_size"] == 2
    assert tank["arrived"] == 0 and tank["no_path"] == 30  # the gap does not let them through
    small = tide.sim(m, goals=[(20, 4)], agents=30, seconds=40, spawn=(0, 0, 8, 9), unit_class="tank", size=1)
    assert small["size"] == 1 and small["arrived_fraction"] > 0.8
    with pytest.raises(tide.Error) as e:
        tide.sim(m, goals=[(20, 4)], unit_class="hovercraft")
    assert e.value.code == "not_found"


def test_sim_plans_hierarchically_when_asked():
    m = tide.Map.builtin("default")
    r = tide.sim(m, agents=150, seconds=25, seed=2, hierarchy_cells=0, detail=True)
    assert r["planner"] == "hierarchical"
    assert r["sector_fields"] > 0 and r["graph_ms"] >= 0
    assert r["arrived_fraction"] > 0.6
    assert r["start"].shape == (150, 2) and r["path_length"].shape == (150,)
    assert np.all(r["path_length"] >= np.hypot(*(r["positions"] - r["start"]).T) - 1e-3)
    assert set(r["unit_states"]) <= {"moving", "stuck", "arrived", "no_path"}


def test_sim_refuses_bad_settings():
    m = tide.Map.builtin("default")
    with pytest.raises(tide.Error) as e:
        tide.sim(m, agents=0)
    assert e.value.code == "invalid_argument"
    with pytest.raises(tide.Error) as e:
        tide.sim(m, seconds=3600, dt=1e-4)
    assert e.value.code == "too_large"
    wall = [(x, y) for y in range(m.height) for x in range(m.width) if m.costs[y, x] == tide.COST_WALL][0]
    with pytest.raises(tide.Error) as e:
        tide.sim(m, goals=[wall])
    assert e.value.code == "on_wall"


def test_crowd_groups_take_only_agents_of_their_movement_class():
    m = tide.Map(np.ones((6, 20), dtype=np.uint8))
    f = tide.build_field(m, [(18, 3)])
    crowd = tide.Crowd(m)
    walkers = crowd.add_group(f)
    boats = crowd.add_group(f, movement_class=2)
    assert crowd.movement_class(walkers) == 0 and crowd.movement_class(boats) == 2
    with pytest.raises(tide.Error) as e:
        crowd.add_agent(1.5, 1.5, walkers, movement_class=2)
    assert e.value.code == "invalid_argument"
    assert "movement class 2" in str(e.value) and "movement class 0" in str(e.value)
    assert len(crowd) == 0
    crowd.add_agent(1.5, 1.5, boats, movement_class=2)
    crowd.add_agent(1.5, 4.5, walkers)
    with pytest.raises(tide.Error):
        crowd.set_group_movement_class(boats, 0)
    crowd.step(1 / 30, steps=300)
    assert crowd.states() == ["arrived", "arrived"]



def test_a_removed_groups_handle_is_refused_once_its_slot_is_reused():
    m = tide.Map(np.ones((6, 20), dtype=np.uint8))
    f = tide.build_field(m, [(18, 3)])
    crowd = tide.Crowd(m)
    old = crowd.add_group(f, movement_class=2)
    crowd.remove_group(old)
    new = crowd.add_group(f)
    assert new[0] == old[0] and new != old  # the slot again, under a new generation
    assert crowd.has_group(new) and not crowd.has_group(old)
    for call in (
        lambda: crowd.add_agent(1.5, 1.5, old),
        lambda: crowd.set_group_movement_class(old, 3),
        lambda: crowd.remove_group(old),
    ):
        with pytest.raises(tide.Error) as e:
            call()
        assert e.value.code == "not_found"
    assert crowd.movement_class(old) == 0 and crowd.movement_class(new) == 0
    crowd.add_agent(1.5, 1.5, new)
    assert len(crowd) == 1

# Issue 43: bad arguments raise tide.Error and never crash the interpreter. Each case runs in a
# child interpreter, so a crash fails its case (with the signal) instead of killing the runner.
BAD_CALLS = {
    "build_field connectivity=6": "tide.build_field(tide.Map.builtin('default'), [(54, 18)], connectivity=6)",
    "build_flee connectivity=6": "tide.build_flee(tide.Map.builtin('default'), [(54, 18)], connectivity=6)",
    "mixed field connectivity=6": "tide.build_field(tide.Map.builtin('default'), [(54, 18)], connectivity=6, "
    "dangers=[(10, 10)])",
    "build_field on a wall": "tide.build_field(tide.Map.builtin('default'), [(-1, 0)])",
    "Crowd(None)": "tide.Crowd(None)",
    "add_group(None)": "tide.Crowd(tide.Map.builtin('default')).add_group(None)",
    "step(steps=-1)": "tide.Crowd(tide.Map.builtin('default')).step(1 / 60, steps=-1)",
    "step(dt=nan)": "tide.Crowd(tide.Map.builtin('default')).step(float('nan'))",
    "Map.load with a NUL": "tide.Map.load('p\\x00junk')",
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments_raise_and_never_crash(name):
    code = (
        "import sys, tide\n"
        "try:\n"
        f"    {BAD_CALLS[name]}\n"
        "except tide.Error as e:\n"
        "    print('raised', e.code, e)\n"
        "    sys.exit(0)\n"
        "print('no error')\n"
        "sys.exit(3)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{name}: exit {r.returncode} (negative: killed by that signal)\n{r.stdout}{r.stderr}"
    assert r.stdout.startswith("raised "), r.stdout


def test_a_nul_in_a_path_is_named_not_cut():
    with pytest.raises(tide.Error, match="NUL"):
        tide.Map.load("p\x00junk")


@pytest.mark.parametrize(
    "values,dtype,named",
    [
        ([[1, 300]], np.int64, "cost 300 (int64)"),
        ([[1, -1]], np.int32, "cost -1 (int32)"),
        ([[1.9, 1]], np.float64, "cost 1.8999999999999999 (float64)"),
        ([[1, 256]], np.int64, "cost 256 (int64)"),
        ([[1, float("nan")]], np.float32, "cost nan (float32)"),
        ([[1, 0]], np.uint8, "cost 0 (uint8)"),
    ],
)
def test_cost_arrays_are_checked_as_given_not_converted(values, dtype, named):
    with pytest.raises(tide.Error) as e:
        tide.Map(np.array(values, dtype=dtype))
    message = str(e.value)
    assert named in message, message
    assert "(1, 0)" in message or "(0, 0)" in message, message


def test_integer_and_float_cost_arrays_that_hold_costs_are_taken():
    for dtype in (np.int64, np.int32, np.uint16, np.float64):
        m = tide.Map(np.array([[1, 6, 255]], dtype=dtype))
        assert list(m.costs[0]) == [1, 6, 255]
    with pytest.raises(tide.Error, match="dtype"):
        tide.Map(np.array([["a", "b"]]))


def test_sample_is_wall_safe_and_steering_works_in_world_units():
    costs = np.ones((3, 3), dtype=np.uint8)
    costs[1, 1] = tide.COST_WALL
    m = tide.Map(costs)
    f = tide.build_field(m, [(2, 2)])
    # The blend at (0.8, 0.8) heads into the wall cell; sample() does not.
    bx, by = f.blend(0.8, 0.8)
    sx, sy = f.sample(0.8, 0.8)
    assert (bx, by) != (sx, sy)
    for t in np.linspace(0.0, 0.999, 50):
        x, y = 0.8 + sx * t, 0.8 + sy * t
        assert costs[int(y), int(x)] != tide.COST_WALL
    many = f.sample_many(np.array([0.8, 2.5], dtype=np.float32), np.array([0.8, 2.5], dtype=np.float32))
    assert many.shape == (2, 2)
    assert many[0, 0] == pytest.approx(sx) and tuple(many[1]) == (0.0, 0.0)

    open_map = tide.Map(np.ones((12, 24), dtype=np.uint8))
    g = tide.build_field(open_map, [(20, 7)])
    # A y-up world with 0.5 m cells, bottom-left corner at the origin: row 0 is the top row.
    s = tide.Steering(g, open_map, origin=(0.0, 6.0), cell_size=0.5, flip_y=True)
    assert s.straightens
    wx, wy = 0.75, 6.0 - 0.75  # cell (1, 1)'s centre
    dx, dy = s.steer(wx, wy)
    gx, gy = 20.5 * 0.5, 6.0 - 7.5 * 0.5  # the goal's centre
    n = math.hypot(gx - wx, gy - wy)
    assert dx == pytest.approx((gx - wx) / n, abs=1e-4) and dy == pytest.approx((gy - wy) / n, abs=1e-4)
    walk = s.steer_many(np.array([wx], dtype=np.float32), np.array([wy], dtype=np.float32))
    assert walk[0, 0] == pytest.approx(dx)
    with pytest.raises(tide.Error):
        tide.Steering(g, open_map, radius=-1.0)
    with pytest.raises(tide.Error):
        tide.Steering(g, m)  # another map's size


def test_a_crowd_group_marches_in_a_box_and_stands_in_it_at_the_goal():
    # An open 40 x 20 field: 16 units in a 4 x 4 box from the west side to (32, 10).
    m = tide.Map(np.ones((20, 40), dtype=np.uint8))
    f = tide.build_field(m, [(32, 10)])
    crowd = tide.Crowd(m)
    g = crowd.add_group(f)
    units = [crowd.add_agent(3.5 + i % 4, 8.5 + i // 4, g) for i in range(16)]
    crowd.set_group_formation(g, "box", spacing=1.2)
    crowd.step(1 / 60, steps=60 * 30)
    form = crowd.group_formation(g)
    assert form["active"] and form["arrived"]
    assert form["reassignments"] == 1
    assert len(form["slots"]) == 16
    assert crowd.states() == ["arrived"] * 16
    pos = crowd.positions()
    for k, u in enumerate(units):
        sx, sy = form["slots"][crowd.formation_slot(u)]
        assert np.hypot(pos[k, 0] - sx, pos[k, 1] - sy) < 0.5
    with pytest.raises(tide.Error):
        crowd.set_group_formation(g, "circle")
    with pytest.raises(tide.Error):
        crowd.set_group_formation(g, "box", spacing=0.0)
