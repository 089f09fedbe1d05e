"""Tests of the Python module (run by ctest: python.pytest; PYTHONPATH=build/python)."""
import math
import os

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


def test_sim_is_deterministic_and_settles():
    m = tide.Map.builtin("default")
    assert m.goals
    a = tide.sim(m, agents=200, seconds=20, seed=3)
    b = tide.sim(m, agents=200, seconds=20, seed=3)
    assert a["state_hash"] == b["state_hash"]
    assert a["positions"].shape == (200, 2)
    assert a["arrived"] > 150
