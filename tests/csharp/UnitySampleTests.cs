// Runs the Unity sample's engine-independent part under Mono (tests/csharp/run.sh): a
// FlowFieldManager owning a World on a y-up XZ grid (2 m cells, origin at (100, 0, 50)) and 12
// FlowFieldAgents moved by the "game" along their group's field, frame by frame. Checks that the
// manager's crowd and the agents reach the goal and that no agent ever stands in a wall cell.
using System;
using System.Reflection;
using Tide;
using UnityEngine;

static class UnitySampleTests
{
    static void Call(object o, string method)
    {
        o.GetType().GetMethod(method, BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public).Invoke(o, null);
    }

    static int Main()
    {
        var manager = new FlowFieldManager { units = 500, cellSize = 2.0f, origin = new Vector3(100, 0, 50) };
        Call(manager, "Awake");
        Cell goal;
        byte[] costs;
        int width;
        using (var m = Map.Builtin("default", out goal)) { costs = m.Costs; width = m.Width; }
        // Twelve agents the game moves itself, in the open left part of the map (x 2..6 cells).
        var agents = new FlowFieldAgent[12];
        for (int i = 0; i < agents.Length; ++i)
        {
            agents[i] = new FlowFieldAgent { manager = manager, group = 1, speed = 6.0f };
            Tide.Vec2 w = manager.Grid.ToWorld(new Tide.Vec2(2.5f + i % 4, 5.5f + 3 * (i / 4)));
            agents[i].transform.position = new Vector3(w.X, 0, w.Y);
        }
        int wallFrames = 0;
        for (int frame = 0; frame < 60 * 60; ++frame)
        {
            if (frame % 3 != 2) Call(manager, "FixedUpdate");  // 50 Hz physics against 60 Hz frames, roughly
            foreach (FlowFieldAgent a in agents)
            {
                Call(a, "Update");
                Cell c = manager.CellAt(a.transform.position);
                if (c.X < 0 || c.Y < 0 || c.X >= width || costs[c.Y * width + c.X] == Map.Wall) ++wallFrames;
            }
        }
        int arrived = 0;
        for (int i = 0; i < manager.Count; ++i) arrived += manager.Arrived(i) ? 1 : 0;
        Tide.Vec2 g = manager.Grid.ToWorld(new Tide.Vec2(goal.X + 0.5f, goal.Y + 0.5f));
        var goalPos = new Vector3(g.X, 0, g.Y);
        float farthest = 0;
        foreach (FlowFieldAgent a in agents) farthest = Math.Max(farthest, (a.transform.position - goalPos).magnitude);
        // An order by scene rectangle (two corners, any order): every unit to the top-left corner.
        uint group = manager.Order(manager.Grid.ToWorld(new Tide.Vec2(64, 40)).AsVector3(),
                                   manager.Grid.ToWorld(new Tide.Vec2(0, 0)).AsVector3(),
                                   manager.Grid.ToWorld(new Tide.Vec2(2.5f, 2.5f)).AsVector3());
        Console.WriteLine("unity sample: " + arrived + " of " + manager.Count + " units arrived; agents within " +
                          farthest.ToString("0.0") + " m of the goal; " + wallFrames + " agent-frames in walls; order made group " + group);
        Call(manager, "OnDestroy");
        bool ok = arrived == manager.Count && farthest < 4.0f * manager.cellSize && wallFrames == 0 && group == 2;
        Console.WriteLine(ok ? "unity sample: passed" : "unity sample: FAILED");
        return ok ? 0 : 1;
    }

    static Vector3 AsVector3(this Tide.Vec2 v) { return new Vector3(v.X, 0, v.Y); }
}
