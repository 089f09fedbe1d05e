// Owns one Tide World for a scene: loads the map, spawns the crowd, ticks it in FixedUpdate and
// keeps every unit's position for whoever draws them (instanced meshes, a particle system). The
// grid lies on Unity's XZ plane: cell (0, 0) at the top-left of the map, `origin` the map's
// bottom-left corner, `cellSize` metres per cell, Y up (GridTransform.YUp).
using System;
using System.Collections.Generic;
using Tide;
using UnityEngine;

public class FlowFieldManager : MonoBehaviour
{
    /// <summary>A built-in map name ("default", "maze", ...), or a .map/.tmap path in mapPath.</summary>
    public string builtinMap = "default";
    /// <summary>A map file to load instead of the built-in map (empty: builtinMap).</summary>
    public string mapPath = "";
    /// <summary>Units spawned at the start.</summary>
    public int units = 1000;
    /// <summary>Metres per cell.</summary>
    public float cellSize = 1.0f;
    /// <summary>World position of the map's bottom-left corner (y is ignored).</summary>
    public Vector3 origin = Vector3.zero;
    /// <summary>Lockstep multiplayer: fields published at fixed points, the same run on every machine.</summary>
    public bool lockstep = false;

    World world;
    Map map;
    GridTransform grid;
    Tide.Vec2[] positions = new Tide.Vec2[0];
    byte[] states = new byte[0];
    uint[] groups = new uint[0];
    int count;
    // The field each group follows, fetched again when its FieldSerial changes (checked once a tick):
    // agents of a group share one.
    readonly Dictionary<uint, Field> fields = new Dictionary<uint, Field>();
    readonly Dictionary<uint, ulong> fieldSerials = new Dictionary<uint, ulong>();

    /// <summary>The world (orders, paint, towers): null before Awake.</summary>
    public World World { get { return world; } }
    /// <summary>Units alive after the last tick.</summary>
    public int Count { get { return count; } }
    /// <summary>The grid's place in the scene.</summary>
    public GridTransform Grid { get { return grid; } }

    void Awake()
    {
        var config = WorldConfig.Default;
        config.Lockstep = lockstep ? 1 : 0;
        world = new World(config);
        Cell goal;
        if (string.IsNullOrEmpty(mapPath))
        {
            map = Map.Builtin(builtinMap, out goal);
        }
        else
        {
            map = Map.Load(mapPath);
            goal = new Cell(map.Width / 2, map.Height / 2);
        }
        grid = GridTransform.YUp(origin.x, origin.z, cellSize, map.Height);
        world.Load(map, new[] { goal }, units, builtinMap);
        ReadUnits();
    }

    void FixedUpdate()
    {
        world.Tick(Time.fixedDeltaTime);
        ReadUnits();
        foreach (GroupInfo g in world.Groups)  // fields that changed in this tick go stale
        {
            ulong serial;
            Field old;
            if (fieldSerials.TryGetValue(g.Id, out serial) && serial != g.FieldSerial && fields.TryGetValue(g.Id, out old))
            {
                old.Dispose();
                fields.Remove(g.Id);
            }
            fieldSerials[g.Id] = g.FieldSerial;
        }
    }

    /// <summary>The direction a unit at a scene position of <paramref name="group"/> walks (zero at the goal):
    /// the group's field sampled there, wall-safe, in scene axes.</summary>
    public Vector3 DirectionAt(Vector3 p, uint group)
    {
        Field field;
        if (!fields.TryGetValue(group, out field))
        {
            field = world.GroupField(group);
            fields[group] = field;
        }
        Tide.Vec2 d = field.Sample(new Tide.Vec2(p.x, p.z), grid);
        return new Vector3(d.X, 0.0f, d.Y);
    }

    void OnDestroy()
    {
        foreach (Field f in fields.Values) f.Dispose();
        if (world != null) world.Dispose();
        if (map != null) map.Dispose();
    }

    void ReadUnits()
    {
        int n = world.UnitCount;
        if (positions.Length < n)
        {
            positions = new Tide.Vec2[n * 2];
            states = new byte[n * 2];
            groups = new uint[n * 2];
        }
        count = world.ReadUnits(null, positions, null, states, groups);
    }

    /// <summary>Where unit i (roster order) stands, in the scene.</summary>
    public Vector3 PositionOf(int i)
    {
        Tide.Vec2 w = grid.ToWorld(positions[i]);
        return new Vector3(w.X, origin.y, w.Y);
    }

    /// <summary>True when unit i has arrived.</summary>
    public bool Arrived(int i) { return states[i] == (byte)UnitState.Arrived; }

    /// <summary>The group unit i belongs to.</summary>
    public uint GroupOf(int i) { return groups[i]; }

    /// <summary>The cell under a scene position.</summary>
    public Cell CellAt(Vector3 p) { return grid.CellOf(new Tide.Vec2(p.x, p.z)); }

    /// <summary>Orders the units inside the scene rectangle between two corners to a target point
    /// (a right-click): they form a new group; its id.</summary>
    public uint Order(Vector3 corner, Vector3 otherCorner, Vector3 target)
    {
        Tide.Vec2 a = grid.ToGrid(new Tide.Vec2(corner.x, corner.z));
        Tide.Vec2 b = grid.ToGrid(new Tide.Vec2(otherCorner.x, otherCorner.z));
        return world.OrderBox(Math.Min(a.X, b.X), Math.Min(a.Y, b.Y), Math.Max(a.X, b.X), Math.Max(a.Y, b.Y),
                              new[] { CellAt(target) });
    }
}
