// Tide for C# (.NET, Mono, Unity): P/Invoke over the C API (include/tide/tide.h, tide_world.h) in
// the shared library libtide_c (tide_c.dll on Windows). Handles are SafeHandles (Dispose them, or
// let the finalizer free them); a failed call throws TideException with the C status and message.
// Positions are in cell units unless a GridTransform converts them (world units, y up or down).
// Threads: a World, Map or Field is used from one thread at a time; a built Field may be read
// from any thread. See docs/csharp.md.
using System;
using System.Runtime.InteropServices;

namespace Tide
{
    /// <summary>Status codes of the C API (tide_status).</summary>
    public enum Status
    {
        /// <summary>Success.</summary>
        Ok = 0,
        /// <summary>A value out of range, a null where one is needed.</summary>
        InvalidArgument = 1,
        /// <summary>A cell or position outside the map.</summary>
        OffMap = 2,
        /// <summary>A cell or position on a wall (or a tower over a goal).</summary>
        OnWall = 3,
        /// <summary>An unknown or stale handle, group or name.</summary>
        NotFound = 4,
        /// <summary>Malformed text; the message names the source and line.</summary>
        Parse = 5,
        /// <summary>A file could not be read or written.</summary>
        Io = 6,
        /// <summary>Over a size limit (a count, a map, a buffer too small).</summary>
        TooLarge = 7,
        /// <summary>Not available in this configuration (e.g. on a hierarchical map).</summary>
        Unsupported = 8,
        /// <summary>A bug in Tide.</summary>
        Internal = 9,
        /// <summary>An allocation failed.</summary>
        OutOfMemory = 10
    }

    /// <summary>A failed Tide call: the C status and tide_last_error()'s message.</summary>
    public class TideException : Exception
    {
        /// <summary>The status the call returned.</summary>
        public Status Code { get; private set; }
        /// <summary>An exception for <paramref name="code"/> with the library's message.</summary>
        public TideException(Status code, string message) : base(code + ": " + message) { Code = code; }
    }

    /// <summary>A cell: column X, row Y (row 0 = the first map line).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Cell
    {
        /// <summary>Column.</summary>
        public int X;
        /// <summary>Row.</summary>
        public int Y;
        /// <summary>The cell (x, y).</summary>
        public Cell(int x, int y) { X = x; Y = y; }
        /// <summary>"(x, y)".</summary>
        public override string ToString() { return "(" + X + ", " + Y + ")"; }
    }

    /// <summary>A position or velocity (cell units unless converted by a GridTransform).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Vec2
    {
        /// <summary>X component.</summary>
        public float X;
        /// <summary>Y component.</summary>
        public float Y;
        /// <summary>The vector (x, y).</summary>
        public Vec2(float x, float y) { X = x; Y = y; }
        /// <summary>"(x, y)".</summary>
        public override string ToString() { return "(" + X + ", " + Y + ")"; }
    }

    /// <summary>A unit's handle (index and generation): stale once the unit is removed.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentId
    {
        /// <summary>Slot.</summary>
        public uint Index;
        /// <summary>Generation of the slot.</summary>
        public uint Generation;
    }

    /// <summary>A rectangle of cells, inclusive.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct CellRect
    {
        /// <summary>Left column.</summary>
        public int X0;
        /// <summary>Top row.</summary>
        public int Y0;
        /// <summary>Right column (inclusive).</summary>
        public int X1;
        /// <summary>Bottom row (inclusive).</summary>
        public int Y1;
        /// <summary>Columns x0..x1, rows y0..y1.</summary>
        public CellRect(int x0, int y0, int x1, int y1) { X0 = x0; Y0 = y0; X1 = x1; Y1 = y1; }
    }

    /// <summary>A unit's state (TIDE_AGENT_*).</summary>
    public enum UnitState : byte
    {
        /// <summary>Following its group's field.</summary>
        Moving = 0,
        /// <summary>At the goal.</summary>
        Arrived = 1,
        /// <summary>No path from where it stands.</summary>
        NoPath = 2,
        /// <summary>Waiting behind others.</summary>
        Queued = 3
    }

    /// <summary>Orders and goal changes: the cells are dangers (Flee) or exits (Exit).</summary>
    [Flags]
    public enum OrderFlags : uint
    {
        /// <summary>Plain goals.</summary>
        None = 0,
        /// <summary>The cells are dangers the units flee from.</summary>
        Flee = 1,
        /// <summary>The cells are exits the units leave the world by.</summary>
        Exit = 2
    }

    /// <summary>Where the grid lies in the game's world: world = origin + cellSize * (column, +-row).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct GridTransform
    {
        /// <summary>World x of the outer corner of cell (0, 0).</summary>
        public float OriginX;
        /// <summary>World y of the outer corner of cell (0, 0).</summary>
        public float OriginY;
        /// <summary>World units per cell.</summary>
        public float CellSize;
        /// <summary>Nonzero: world x decreases as the column grows.</summary>
        public int FlipX;
        /// <summary>Nonzero: world y decreases as the row grows (y-up worlds).</summary>
        public int FlipY;
        /// <summary>Cell units (the identity).</summary>
        public static GridTransform Identity { get { return Native.tide_grid_transform_identity(); } }
        /// <summary>A y-up world (Unity's XZ plane seen from above): the map's bottom-left corner at
        /// (left, bottom), <paramref name="rows"/> rows, row 0 on top.</summary>
        public static GridTransform YUp(float left, float bottom, float cellSize, int rows)
        {
            return Native.tide_grid_transform_y_up(left, bottom, cellSize, rows);
        }
        /// <summary>A world position in cell units.</summary>
        public Vec2 ToGrid(Vec2 world) { return Native.tide_grid_to_grid(ref this, world); }
        /// <summary>A position in cell units in world units.</summary>
        public Vec2 ToWorld(Vec2 grid) { return Native.tide_grid_to_world(ref this, grid); }
        /// <summary>The cell a world position lies in.</summary>
        public Cell CellOf(Vec2 world) { return Native.tide_grid_cell_of(ref this, world); }
    }

    /// <summary>How a World is made. Start from WorldConfig.Default.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct WorldConfig
    {
        /// <summary>Spawn positions.</summary>
        public ulong Seed;
        /// <summary>Maps of at least this many cells plan hierarchically.</summary>
        public long HierarchyCells;
        /// <summary>1: fields published at fixed points (lockstep multiplayer, recordings).</summary>
        public int Lockstep;
        /// <summary>1: congestion-aware group fields.</summary>
        public int Congestion;
        /// <summary>Top speed, cells/s.</summary>
        public float UnitSpeed;
        /// <summary>Radius of a size-1 unit, cells.</summary>
        public float UnitRadius;
        /// <summary>Separation strength.</summary>
        public float UnitSeparation;
        /// <summary>1: units steer straight where they can see ahead.</summary>
        public int LineOfSight;
        /// <summary>Field cache budget, bytes.</summary>
        public ulong FieldBudgetBytes;
        /// <summary>The library's defaults.</summary>
        public static WorldConfig Default { get { return Native.tide_world_config_default(); } }
    }

    /// <summary>What a tower would do (World.CheckTower).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TowerCheck
    {
        /// <summary>1: refused.</summary>
        public int Blocks;
        /// <summary>1: a goal lies under it.</summary>
        public int CoversGoal;
        /// <summary>1: a flee group's danger lies under it.</summary>
        public int CoversDanger;
        /// <summary>Units that would lose every path.</summary>
        public ulong UnitsCutOff;
        /// <summary>Cells that would (summed over the groups' fields).</summary>
        public ulong CellsCutOff;
        /// <summary>Cells of live spawners' areas that would lose their way to their goals.</summary>
        public ulong SpawnCellsCutOff;
    }

    /// <summary>A group as the world reports it.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct GroupInfo
    {
        /// <summary>The group's id (1, 2, 3...).</summary>
        public uint Id;
        /// <summary>Its units' size.</summary>
        public int Size;
        /// <summary>1: its goals are dangers.</summary>
        public int Flee;
        /// <summary>1: its goals are exits.</summary>
        public int Exit;
        /// <summary>1: its units follow its own field.</summary>
        public int FieldReady;
        /// <summary>Units in it.</summary>
        public ulong Members;
        /// <summary>Units that left through its exits.</summary>
        public ulong Exited;
        /// <summary>Of its members, arrived now.</summary>
        public ulong Arrived;
        /// <summary>+1 whenever its field changes (fetch GroupField again then).</summary>
        public ulong FieldSerial;
    }

    /// <summary>World counters.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct WorldStats
    {
        /// <summary>Ticks simulated.</summary>
        public ulong Tick;
        /// <summary>Units.</summary>
        public ulong Units;
        /// <summary>Arrived now.</summary>
        public ulong Arrived;
        /// <summary>Standing with no path.</summary>
        public ulong NoPath;
        /// <summary>Flagged stuck.</summary>
        public ulong Stuck;
        /// <summary>Left through exits so far.</summary>
        public ulong Exited;
        /// <summary>Last crowd step, ms.</summary>
        public double StepMs;
        /// <summary>1: the map plans hierarchically.</summary>
        public int Hierarchical;
        /// <summary>+1 per edit or load.</summary>
        public ulong TerrainVersion;
    }

    /// <summary>What World.Replay found.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ReplayResult
    {
        /// <summary>Ticks replayed.</summary>
        public ulong Ticks;
        /// <summary>State hash after the last tick.</summary>
        public ulong FinalHash;
        /// <summary>First tick whose hash differs from the recording's; -1: none.</summary>
        public long FirstMismatch;
        /// <summary>The recording's hash there.</summary>
        public ulong RecordedHash;
        /// <summary>The replay's hash there.</summary>
        public ulong ReplayedHash;
    }

    /// <summary>A spawner's schedule (tide::SpawnerSpec): units added every EverySeconds from StartSeconds
    /// after World.AddSpawner, PerEmission at a time at random open cells of Area, in waves of
    /// WaveEmissions emissions WavePauseSeconds apart (Waves of them; 0: endless). With Exit the goals
    /// are sinks: units that reach them leave the world and count as sunk.</summary>
    public sealed class SpawnerSpec
    {
        /// <summary>Cells the units appear on.</summary>
        public CellRect Area;
        /// <summary>Where they walk (1..16 cells).</summary>
        public Cell[] Goals = new Cell[0];
        /// <summary>The goals are sinks.</summary>
        public bool Exit = true;
        /// <summary>Unit size, 1..3.</summary>
        public int Size = 1;
        /// <summary>Simulated seconds from the call to the first emission.</summary>
        public double StartSeconds;
        /// <summary>Seconds between the emissions of a wave.</summary>
        public double EverySeconds = 1.0;
        /// <summary>Units per emission, 1..1000.</summary>
        public int PerEmission = 1;
        /// <summary>Emissions per wave (0: one endless wave).</summary>
        public int WaveEmissions;
        /// <summary>Seconds from a wave's last emission to the next wave's first.</summary>
        public double WavePauseSeconds;
        /// <summary>Waves (0: endless).</summary>
        public int Waves;
    }

    /// <summary>A spawner's counters (World.Spawners).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SpawnerInfo
    {
        /// <summary>Its id.</summary>
        public uint Id;
        /// <summary>The group its units join (made with the spawner).</summary>
        public uint Group;
        /// <summary>Emissions so far.</summary>
        public ulong Emissions;
        /// <summary>Units added so far.</summary>
        public ulong Spawned;
        /// <summary>Units not added: no room.</summary>
        public ulong Skipped;
        /// <summary>Of its units, left through its goals.</summary>
        public ulong Sunk;
        /// <summary>Waves whose last emission has been made.</summary>
        public int WavesDone;
        /// <summary>1: no emission left.</summary>
        public int Done;
        /// <summary>Simulated time of the next emission (-1 when done).</summary>
        public double NextSeconds;
    }

    /// <summary>Shapes a group can march in (tide::FormationShape).</summary>
    public enum FormationShape
    {
        /// <summary>No formation: the units flow and pack round the goal.</summary>
        None = 0,
        /// <summary>One rank across the way.</summary>
        Line = 1,
        /// <summary>One file along it.</summary>
        Column = 2,
        /// <summary>Ranks of Columns (0: about square).</summary>
        Box = 3,
        /// <summary>A V pointing ahead.</summary>
        Wedge = 4,
        /// <summary>Formation.Offsets, one slot per unit.</summary>
        Custom = 5
    }

    /// <summary>A formation for an order (tide::Formation): slots round an anchor that walks the
    /// group's field, x to the right of its heading and y ahead, in cells.</summary>
    public class Formation
    {
        /// <summary>The shape.</summary>
        public FormationShape Shape = FormationShape.Box;
        /// <summary>Cells between neighbouring slots, 0.3..8.</summary>
        public float Spacing = 1.0f;
        /// <summary>Box: slots per rank (0: about square).</summary>
        public int Columns;
        /// <summary>Custom: the slots (x right, y ahead).</summary>
        public Vec2[] Offsets;
        /// <summary>At the goal it faces this way ((0, 0): the way it came).</summary>
        public Vec2 Facing;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct NativeFormation
    {
        public int Shape;
        public float Spacing;
        public int Columns;
        public IntPtr Offsets;
        public UIntPtr OffsetCount;
        public Vec2 Facing;
    }

    /// <summary>A group's formation as the last tick left it (World.Formation).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct FormationState
    {
        /// <summary>1: the group marches in a formation.</summary>
        public int Active;
        /// <summary>1: its anchor stands at the goal.</summary>
        public int Arrived;
        /// <summary>Its centre, cells.</summary>
        public Vec2 Anchor;
        /// <summary>The way it faces.</summary>
        public Vec2 Heading;
        /// <summary>Mean distance of its units to their slots, cells.</summary>
        public float Error;
        /// <summary>Times its slots were handed out.</summary>
        public ulong Reassignments;
        /// <summary>Units whose slot changed then.</summary>
        public ulong UnitsReassigned;
        /// <summary>Its slots.</summary>
        public UIntPtr SlotCount;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct NativeSpawnerSpec
    {
        public CellRect Area;
        public IntPtr Goals;
        public UIntPtr GoalCount;
        public int Exit, Size;
        public double StartSeconds, EverySeconds;
        public int PerEmission, WaveEmissions;
        public double WavePauseSeconds;
        public int Waves;
    }

    /// <summary>Base of the handles: frees the native object once.</summary>
    public abstract class TideHandle : SafeHandle
    {
        /// <summary>An empty handle (set once the native object is made).</summary>
        protected TideHandle() : base(IntPtr.Zero, true) { }
        /// <summary>True while no native object is held.</summary>
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal IntPtr Ptr
        {
            get
            {
                if (IsClosed) throw new ObjectDisposedException(GetType().Name);
                return handle;
            }
        }
        internal void Set(IntPtr p) { SetHandle(p); }
    }

    /// <summary>A map: a grid of entry costs (1..254; 255 = wall).</summary>
    public sealed class Map : TideHandle
    {
        /// <summary>Cost of a wall cell.</summary>
        public const byte Wall = 255;
        /// <summary>Frees the native object.</summary>
        protected override bool ReleaseHandle() { Native.tide_map_destroy(handle); return true; }

        static Map Made(Status s, IntPtr p) { Native.Check(s); var m = new Map(); m.Set(p); return m; }
        /// <summary>A width x height map of the given row-major costs (null: all 1).</summary>
        public static Map Create(int width, int height, byte[] costs = null)
        {
            if (costs != null && costs.Length != width * height) throw new ArgumentException("costs must hold width * height bytes");
            IntPtr p;
            return Made(Native.tide_map_create(width, height, costs, out p), p);
        }
        /// <summary>Reads a Moving AI .map or Tide .tmap file.</summary>
        public static Map Load(string path) { IntPtr p; return Made(Native.tide_map_load(path, out p), p); }
        /// <summary>A built-in map ("default", "random256", "maze", "large", "huge") and its goal.</summary>
        public static Map Builtin(string name, out Cell goal) { IntPtr p; return Made(Native.tide_map_builtin(name, out p, out goal), p); }
        /// <summary>Columns.</summary>
        public int Width { get { return Native.tide_map_width(Ptr); } }
        /// <summary>Rows.</summary>
        public int Height { get { return Native.tide_map_height(Ptr); } }
        /// <summary>A copy of the costs, row-major.</summary>
        public byte[] Costs
        {
            get { var a = new byte[Width * Height]; Marshal.Copy(Native.tide_map_costs(Ptr), a, 0, a.Length); return a; }
        }
        /// <summary>Sets the cost of (x, y).</summary>
        public void SetCost(int x, int y, byte cost) { Native.Check(Native.tide_map_set_cost(Ptr, x, y, cost)); }
    }

    /// <summary>An immutable flow field toward goals.</summary>
    public sealed class Field : TideHandle
    {
        /// <summary>Direction codes above the eight moves.</summary>
        /// <summary>Direction code of a goal cell.</summary>
        public const byte DirectionGoal = 8;
        /// <summary>Direction code of a cell with no path.</summary>
        public const byte DirectionUnreachable = 9;
        /// <summary>Direction code of a wall.</summary>
        public const byte DirectionWall = 10;
        /// <summary>Frees the native object.</summary>
        protected override bool ReleaseHandle() { Native.tide_field_destroy(handle); return true; }
        internal static Field Wrap(IntPtr p) { var f = new Field(); f.Set(p); return f; }

        /// <summary>Builds the field toward <paramref name="goals"/> on <paramref name="map"/>.</summary>
        public static Field Build(Map map, params Cell[] goals)
        {
            IntPtr p;
            Native.Check(Native.tide_field_build(map.Ptr, goals, (UIntPtr)goals.Length, IntPtr.Zero, out p));
            return Wrap(p);
        }
        /// <summary>Columns.</summary>
        public int Width { get { return Native.tide_field_width(Ptr); } }
        /// <summary>Rows.</summary>
        public int Height { get { return Native.tide_field_height(Ptr); } }
        /// <summary>A copy of the least cost to the nearest goal, row-major (+infinity: no path).</summary>
        public float[] Integration
        {
            get { var a = new float[Width * Height]; Marshal.Copy(Native.tide_field_integration(Ptr), a, 0, a.Length); return a; }
        }
        /// <summary>A copy of the direction codes, row-major (0..7 moves, then Direction*).</summary>
        public byte[] Directions
        {
            get { var a = new byte[Width * Height]; Marshal.Copy(Native.tide_field_directions(Ptr), a, 0, a.Length); return a; }
        }
        /// <summary>The wall-safe steering direction at a position (cell units).</summary>
        public Vec2 Sample(Vec2 position) { return Native.tide_field_sample(Ptr, position); }
        /// <summary>Sample() in world units through <paramref name="t"/> (the direction in world axes).</summary>
        public Vec2 Sample(Vec2 world, GridTransform t)
        {
            Vec2 d = Sample(t.ToGrid(world));
            return new Vec2(t.FlipX != 0 ? -d.X : d.X, t.FlipY != 0 ? -d.Y : d.Y);
        }
    }

    /// <summary>A simulated world: a map, units in groups, orders, paint, towers, ticks (tide::World).</summary>
    public sealed class World : TideHandle
    {
        /// <summary>Frees the native object.</summary>
        protected override bool ReleaseHandle() { Native.tide_world_destroy(handle); return true; }

        /// <summary>An empty world (Load a map next); builds run on the calling thread.</summary>
        public World(WorldConfig config)
        {
            IntPtr p;
            Native.Check(Native.tide_world_create(ref config, IntPtr.Zero, IntPtr.Zero, out p));
            Set(p);
        }
        /// <summary>A world with the default settings.</summary>
        public World() : this(WorldConfig.Default) { }

        /// <summary>Replaces the map: one group toward <paramref name="goals"/>, <paramref name="units"/> spawned.</summary>
        public void Load(Map map, Cell[] goals, int units, string name = "map")
        {
            Native.Check(Native.tide_world_load(Ptr, map.Ptr, name, goals, (UIntPtr)goals.Length, units, IntPtr.Zero));
        }
        /// <summary>Adds <paramref name="count"/> units of <paramref name="size"/> (1..3): a new group; its id.</summary>
        public uint Spawn(int count, int size = 1)
        {
            uint g;
            Native.Check(Native.tide_world_spawn(Ptr, count, size, IntPtr.Zero, 0, out g));
            return g;
        }
        /// <summary>Orders the units in [x0, x1) x [y0, y1) to the goals: a new group; its id.</summary>
        public uint OrderBox(float x0, float y0, float x1, float y1, Cell[] goals, OrderFlags flags = OrderFlags.None)
        {
            uint g; UIntPtr n;
            Native.Check(Native.tide_world_order_box(Ptr, x0, y0, x1, y1, goals, (UIntPtr)goals.Length, (uint)flags, out g, out n));
            return g;
        }
        /// <summary>OrderBox in a formation: the group marches in it and stands in it at the goal; its id.</summary>
        public uint OrderBoxFormation(float x0, float y0, float x1, float y1, Cell[] goals, Formation formation)
        {
            if (formation == null) throw new ArgumentNullException("formation");
            Vec2[] offsets = formation.Offsets ?? new Vec2[0];
            GCHandle pin = GCHandle.Alloc(offsets, GCHandleType.Pinned);
            try
            {
                var f = new NativeFormation
                {
                    Shape = (int)formation.Shape, Spacing = formation.Spacing, Columns = formation.Columns,
                    Offsets = offsets.Length > 0 ? pin.AddrOfPinnedObject() : IntPtr.Zero,
                    OffsetCount = (UIntPtr)offsets.Length, Facing = formation.Facing
                };
                uint g; UIntPtr n;
                Native.Check(Native.tide_world_order_box_formation(Ptr, x0, y0, x1, y1, goals, (UIntPtr)goals.Length, ref f, out g, out n));
                return g;
            }
            finally { pin.Free(); }
        }
        /// <summary>A group's formation and its slots' places (where each unit heads).</summary>
        public FormationState Formation(uint group, out Vec2[] slots)
        {
            FormationState st;
            Native.Check(Native.tide_world_formation(Ptr, group, out st, null, UIntPtr.Zero));
            slots = new Vec2[(int)st.SlotCount];
            if (slots.Length > 0) Native.Check(Native.tide_world_formation(Ptr, group, out st, slots, (UIntPtr)slots.Length));
            return st;
        }
        /// <summary>Orders these units to the goals (stale handles skipped): a new group; its id.</summary>
        public uint OrderUnits(AgentId[] units, Cell[] goals, OrderFlags flags = OrderFlags.None)
        {
            uint g; UIntPtr n;
            Native.Check(Native.tide_world_order_units(Ptr, units, (UIntPtr)units.Length, goals, (UIntPtr)goals.Length, (uint)flags, out g, out n));
            return g;
        }
        /// <summary>Sets a group's goals (group 0: every unit into one group).</summary>
        public void SetGoals(uint group, Cell[] goals, OrderFlags flags = OrderFlags.None)
        {
            Native.Check(Native.tide_world_set_goals(Ptr, group, goals, (UIntPtr)goals.Length, (uint)flags));
        }
        /// <summary>Removes these units; how many were.</summary>
        public int RemoveUnits(AgentId[] units)
        {
            UIntPtr n;
            Native.Check(Native.tide_world_remove_units(Ptr, units, (UIntPtr)units.Length, out n));
            return (int)n;
        }
        /// <summary>Paints a round brush (cost 1..254, or Map.Wall); the fields are repaired.</summary>
        public void Paint(int x, int y, int radius, byte cost) { Native.Check(Native.tide_world_paint(Ptr, x, y, radius, cost)); }
        /// <summary>Would walling <paramref name="rect"/> cut any unit off?</summary>
        public TowerCheck CheckTower(CellRect rect)
        {
            TowerCheck c;
            Native.Check(Native.tide_world_check_tower(Ptr, rect, out c));
            return c;
        }
        /// <summary>Walls <paramref name="rect"/> unless it would cut units off or cover a goal (then throws).</summary>
        public void PlaceTower(CellRect rect) { Native.Check(Native.tide_world_place_tower(Ptr, rect)); }
        /// <summary>Speed (cells/s), separation and radius (cells) of every unit.</summary>
        public void SetUnitParams(float speed, float separation, float radius)
        {
            Native.Check(Native.tide_world_set_unit_params(Ptr, speed, separation, radius));
        }
        /// <summary>Pauses or resumes the simulation.</summary>
        public bool Paused { set { Native.Check(Native.tide_world_set_paused(Ptr, value ? 1 : 0)); } }
        /// <summary>Advances the world by <paramref name="dt"/> seconds.</summary>
        public void Tick(float dt) { Native.Check(Native.tide_world_tick(Ptr, dt)); }
        /// <summary>Waits for every field build and publishes it.</summary>
        public void FinishBuilds() { Native.Check(Native.tide_world_finish_builds(Ptr)); }
        /// <summary>Units in the world.</summary>
        public int UnitCount { get { return (int)Native.tide_world_unit_count(Ptr); } }
        /// <summary>Fills the arrays given (any may be null) with every unit, in roster order; the count.
        /// Reuse the arrays between frames: nothing is allocated.</summary>
        public int ReadUnits(AgentId[] ids, Vec2[] positions, Vec2[] velocities, byte[] states, uint[] groups)
        {
            int capacity = int.MaxValue;
            foreach (Array a in new Array[] { ids, positions, velocities, states, groups })
                if (a != null) capacity = Math.Min(capacity, a.Length);
            if (capacity == int.MaxValue) capacity = 0;
            UIntPtr n;
            Native.Check(Native.tide_world_read_units(Ptr, ids, positions, velocities, states, groups, null, (UIntPtr)capacity, out n));
            return (int)n;
        }
        /// <summary>The groups, by id.</summary>
        public GroupInfo[] Groups
        {
            get
            {
                var a = new GroupInfo[(int)Native.tide_world_group_count(Ptr)];
                UIntPtr n;
                Native.Check(Native.tide_world_read_groups(Ptr, a, (UIntPtr)a.Length, out n));
                return a;
            }
        }
        /// <summary>The field a group follows now (flat maps); dispose it.</summary>
        public Field GroupField(uint group)
        {
            IntPtr p;
            Native.Check(Native.tide_world_group_field(Ptr, group, out p));
            return Field.Wrap(p);
        }
        /// <summary>The world's counters.</summary>
        public WorldStats Stats
        {
            get { WorldStats s; Native.Check(Native.tide_world_get_stats(Ptr, out s)); return s; }
        }
        /// <summary>Starts a spawner (units on a schedule); its id.</summary>
        public uint AddSpawner(SpawnerSpec spec)
        {
            GCHandle pin = GCHandle.Alloc(spec.Goals, GCHandleType.Pinned);
            try
            {
                var n = new NativeSpawnerSpec
                {
                    Area = spec.Area, Goals = pin.AddrOfPinnedObject(), GoalCount = (UIntPtr)spec.Goals.Length,
                    Exit = spec.Exit ? 1 : 0, Size = spec.Size, StartSeconds = spec.StartSeconds,
                    EverySeconds = spec.EverySeconds, PerEmission = spec.PerEmission,
                    WaveEmissions = spec.WaveEmissions, WavePauseSeconds = spec.WavePauseSeconds, Waves = spec.Waves
                };
                uint id;
                Native.Check(Native.tide_world_add_spawner(Ptr, ref n, out id));
                return id;
            }
            finally
            {
                pin.Free();
            }
        }
        /// <summary>Stops a spawner (its units walk on).</summary>
        public void RemoveSpawner(uint id) { Native.Check(Native.tide_world_remove_spawner(Ptr, id)); }
        /// <summary>The spawners and their counts, by id.</summary>
        public SpawnerInfo[] Spawners
        {
            get
            {
                var a = new SpawnerInfo[(int)Native.tide_world_spawner_count(Ptr)];
                UIntPtr n;
                Native.Check(Native.tide_world_read_spawners(Ptr, a, (UIntPtr)a.Length, out n));
                return a;
            }
        }
        /// <summary>The lockstep state hash (equal on every machine for the same commands).</summary>
        public ulong StateHash { get { return Native.tide_world_state_hash(Ptr); } }
        /// <summary>Starts recording (the world must be made with Lockstep = 1, before its first Load).</summary>
        public void RecordStart() { Native.Check(Native.tide_world_record_start(Ptr)); }
        /// <summary>Writes the recording so far (`tide sim --replay FILE` runs it again).</summary>
        public void RecordSave(string path) { Native.Check(Native.tide_world_record_save(Ptr, path)); }
        /// <summary>Replays a recording file and compares every tick's hash.</summary>
        public static ReplayResult Replay(string path)
        {
            ReplayResult r;
            Native.Check(Native.tide_replay_file(path, IntPtr.Zero, IntPtr.Zero, out r));
            return r;
        }
    }

    /// <summary>The C functions (libtide_c).</summary>
    internal static class Native
    {
        const string Lib = "tide_c";

        internal static void Check(Status s)
        {
            if (s != Status.Ok) throw new TideException(s, Marshal.PtrToStringAnsi(tide_last_error()));
        }

        [DllImport(Lib)] internal static extern IntPtr tide_last_error();
        [DllImport(Lib)] internal static extern Status tide_map_create(int width, int height, byte[] costs, out IntPtr map);
        [DllImport(Lib)] internal static extern Status tide_map_load(string path, out IntPtr map);
        [DllImport(Lib)] internal static extern Status tide_map_builtin(string name, out IntPtr map, out Cell goal);
        [DllImport(Lib)] internal static extern void tide_map_destroy(IntPtr map);
        [DllImport(Lib)] internal static extern int tide_map_width(IntPtr map);
        [DllImport(Lib)] internal static extern int tide_map_height(IntPtr map);
        [DllImport(Lib)] internal static extern IntPtr tide_map_costs(IntPtr map);
        [DllImport(Lib)] internal static extern Status tide_map_set_cost(IntPtr map, int x, int y, byte cost);
        [DllImport(Lib)] internal static extern Status tide_field_build(IntPtr map, Cell[] goals, UIntPtr count, IntPtr parameters, out IntPtr field);
        [DllImport(Lib)] internal static extern void tide_field_destroy(IntPtr field);
        [DllImport(Lib)] internal static extern int tide_field_width(IntPtr field);
        [DllImport(Lib)] internal static extern int tide_field_height(IntPtr field);
        [DllImport(Lib)] internal static extern IntPtr tide_field_integration(IntPtr field);
        [DllImport(Lib)] internal static extern IntPtr tide_field_directions(IntPtr field);
        [DllImport(Lib)] internal static extern Vec2 tide_field_sample(IntPtr field, Vec2 position);
        [DllImport(Lib)] internal static extern GridTransform tide_grid_transform_identity();
        [DllImport(Lib)] internal static extern GridTransform tide_grid_transform_y_up(float left, float bottom, float cellSize, int rows);
        [DllImport(Lib)] internal static extern Vec2 tide_grid_to_grid(ref GridTransform t, Vec2 world);
        [DllImport(Lib)] internal static extern Vec2 tide_grid_to_world(ref GridTransform t, Vec2 grid);
        [DllImport(Lib)] internal static extern Cell tide_grid_cell_of(ref GridTransform t, Vec2 world);
        [DllImport(Lib)] internal static extern WorldConfig tide_world_config_default();
        [DllImport(Lib)] internal static extern Status tide_world_create(ref WorldConfig config, IntPtr jobs, IntPtr background, out IntPtr world);
        [DllImport(Lib)] internal static extern void tide_world_destroy(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_load(IntPtr world, IntPtr map, string name, Cell[] goals, UIntPtr goalCount, int units, IntPtr spawnArea);
        [DllImport(Lib)] internal static extern Status tide_world_spawn(IntPtr world, int count, int size, IntPtr area, int replace, out uint group);
        [DllImport(Lib)] internal static extern Status tide_world_order_box(IntPtr world, float x0, float y0, float x1, float y1, Cell[] goals, UIntPtr goalCount, uint flags, out uint group, out UIntPtr units);
        [DllImport(Lib)] internal static extern Status tide_world_order_box_formation(IntPtr world, float x0, float y0, float x1, float y1, Cell[] goals, UIntPtr goalCount, ref NativeFormation formation, out uint group, out UIntPtr units);
        [DllImport(Lib)] internal static extern Status tide_world_formation(IntPtr world, uint group, out FormationState state, [Out] Vec2[] slots, UIntPtr capacity);
        [DllImport(Lib)] internal static extern Status tide_world_order_units(IntPtr world, AgentId[] units, UIntPtr unitCount, Cell[] goals, UIntPtr goalCount, uint flags, out uint group, out UIntPtr ordered);
        [DllImport(Lib)] internal static extern Status tide_world_set_goals(IntPtr world, uint group, Cell[] goals, UIntPtr goalCount, uint flags);
        [DllImport(Lib)] internal static extern Status tide_world_remove_units(IntPtr world, AgentId[] units, UIntPtr count, out UIntPtr removed);
        [DllImport(Lib)] internal static extern Status tide_world_paint(IntPtr world, int x, int y, int radius, byte cost);
        [DllImport(Lib)] internal static extern Status tide_world_check_tower(IntPtr world, CellRect rect, out TowerCheck check);
        [DllImport(Lib)] internal static extern Status tide_world_place_tower(IntPtr world, CellRect rect);
        [DllImport(Lib)] internal static extern Status tide_world_set_unit_params(IntPtr world, float speed, float separation, float radius);
        [DllImport(Lib)] internal static extern Status tide_world_set_paused(IntPtr world, int paused);
        [DllImport(Lib)] internal static extern Status tide_world_tick(IntPtr world, float dt);
        [DllImport(Lib)] internal static extern Status tide_world_finish_builds(IntPtr world);
        [DllImport(Lib)] internal static extern UIntPtr tide_world_unit_count(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_read_units(IntPtr world, [Out] AgentId[] ids, [Out] Vec2[] positions, [Out] Vec2[] velocities, [Out] byte[] states, [Out] uint[] groups, [Out] byte[] sizes, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern UIntPtr tide_world_group_count(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_read_groups(IntPtr world, [Out] GroupInfo[] groups, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status tide_world_group_field(IntPtr world, uint group, out IntPtr field);
        [DllImport(Lib)] internal static extern Status tide_world_get_stats(IntPtr world, out WorldStats stats);
        [DllImport(Lib)] internal static extern Status tide_world_add_spawner(IntPtr world, ref NativeSpawnerSpec spec, out uint id);
        [DllImport(Lib)] internal static extern Status tide_world_remove_spawner(IntPtr world, uint id);
        [DllImport(Lib)] internal static extern UIntPtr tide_world_spawner_count(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_read_spawners(IntPtr world, [Out] SpawnerInfo[] spawners, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern ulong tide_world_state_hash(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_record_start(IntPtr world);
        [DllImport(Lib)] internal static extern Status tide_world_record_save(IntPtr world, string path);
        [DllImport(Lib)] internal static extern Status tide_replay_file(string path, IntPtr jobs, IntPtr background, out ReplayResult result);
    }
}
