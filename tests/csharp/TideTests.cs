// Tests of the C# binding (bindings/csharp/Tide.cs) under Mono, run by tests/csharp/run.sh:
//   mono TideTests.exe FIELD_MAP DIST_CSV GOAL_X GOAL_Y WORLD_HASH
// FIELD_MAP and DIST_CSV: a map and the integration field `tide field --dist-csv` wrote for the goal;
// WORLD_HASH: the state hash the C example (tide_example_world) printed for the same order loop.
// Prints one line per test and "csharp: N passed, M failed"; exits 1 on any failure.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Tide;

static class TideTests
{
    static int passed, failed;
    static string[] args;

    static void Check(bool condition, string what)
    {
        if (!condition) throw new Exception("check failed: " + what);
    }

    static void Expect(Status code, string inMessage, Action call)
    {
        try
        {
            call();
        }
        catch (TideException e)
        {
            Check(e.Code == code, "status " + e.Code + ", expected " + code + " (" + e.Message + ")");
            Check(e.Message.Contains(inMessage), "message '" + e.Message + "' lacks '" + inMessage + "'");
            return;
        }
        throw new Exception("no TideException (" + code + ")");
    }

    static void Run(string name, Action test)
    {
        try
        {
            test();
            ++passed;
            Console.WriteLine("ok   " + name);
        }
        catch (Exception e)
        {
            ++failed;
            Console.WriteLine("FAIL " + name + ": " + e.Message);
        }
    }

    // The field built through the binding equals the native CLI's, cell for cell.
    static void FieldEqualsTheCli()
    {
        var goal = new Cell(int.Parse(args[2]), int.Parse(args[3]));
        using (var map = Map.Load(args[0]))
        using (var field = Field.Build(map, goal))
        {
            float[] mine = field.Integration;
            string[] rows = File.ReadAllLines(args[1]);
            Check(rows.Length == field.Height, rows.Length + " CSV rows, " + field.Height + " field rows");
            int compared = 0;
            for (int y = 0; y < rows.Length; ++y)
            {
                string[] cells = rows[y].Split(',');
                Check(cells.Length == field.Width, "row " + y + " has " + cells.Length + " values");
                for (int x = 0; x < cells.Length; ++x, ++compared)
                {
                    float v = mine[y * field.Width + x];
                    if (cells[x] == "inf") { Check(float.IsPositiveInfinity(v), "(" + x + ", " + y + ") is " + v + ", CLI inf"); continue; }
                    double cli = double.Parse(cells[x], CultureInfo.InvariantCulture);
                    Check(Math.Abs(v - cli) <= 1e-6 * Math.Max(1.0, cli), "(" + x + ", " + y + ") " + v + " vs CLI " + cli);
                }
            }
            Check(field.Directions[goal.Y * field.Width + goal.X] == Field.DirectionGoal, "the goal cell is not a goal");
            Vec2 d = field.Sample(new Vec2(goal.X - 2.5f, goal.Y + 0.5f));
            Check(d.X > 0.9f, "sampling west of the goal points " + d);
            Console.WriteLine("     " + compared + " cells equal to tide field --dist-csv");
        }
    }

    // The loop: the same final state hash as the C example (and so the C++ World).
    static void OrderLoopGivesTheNativeHash()
    {
        var config = WorldConfig.Default;
        config.Lockstep = 1;
        Cell goal;
        using (var map = Map.Builtin("default", out goal))
        using (var world = new World(config))
        {
            world.Load(map, new[] { goal }, 1000, "default");
            uint group = world.OrderBox(32, 0, 64, 40, new[] { new Cell(8, 30) });
            Check(group == 2, "order made group " + group);
            world.Paint(22, 20, 3, Map.Wall);
            int tick = 0;
            for (; tick < 90 * 60; ++tick)
            {
                WorldStats s = world.Stats;
                if (s.Arrived == s.Units) break;
                world.Tick(1.0f / 60.0f);
            }
            string hash = world.StateHash.ToString("x16");
            Console.WriteLine("     " + world.Stats.Arrived + " of " + world.UnitCount + " arrived after " + tick + " ticks; state hash " + hash);
            Check(world.Stats.Arrived == 1000, "not every unit arrived");
            Check(hash == args[4], "state hash " + hash + ", the C example's " + args[4]);

            var ids = new AgentId[1000];
            var pos = new Vec2[1000];
            var states = new byte[1000];
            var groups = new uint[1000];
            int n = world.ReadUnits(ids, pos, null, states, groups);
            Check(n == 1000, n + " units read");
            byte[] costs = map.Costs;
            for (int i = 0; i < n; ++i)
            {
                Check(states[i] == (byte)UnitState.Arrived, "unit " + i + " state " + states[i]);
                Check(costs[(int)pos[i].Y * 64 + (int)pos[i].X] != Map.Wall, "unit " + i + " in a wall");
            }
            Expect(Status.TooLarge, "do not fit", () => world.ReadUnits(new AgentId[10], null, null, null, null));
            GroupInfo[] info = world.Groups;
            Check(info.Length == 2 && info[1].Id == 2 && info[1].Arrived == info[1].Members, "groups");
        }
    }

    // A paint across a group's route: its field is repaired (the cost to go from behind the new wall grows).
    static void PaintRepairsTheField()
    {
        Cell goal;
        using (var map = Map.Builtin("default", out goal))
        using (var world = new World())
        {
            world.Load(map, new[] { goal }, 200);
            uint group = world.Groups[0].Id;
            float before, after;
            using (Field f = world.GroupField(group)) before = f.Integration[20 * 64 + 8];
            for (int y = 10; y <= 30; ++y) world.Paint(20, y, 0, Map.Wall);  // but the goal side of the gap stays open
            world.FinishBuilds();
            world.Tick(1.0f / 60.0f);
            using (Field f = world.GroupField(group)) after = f.Integration[20 * 64 + 8];
            Check(after > before, "cost to go from (8, 20): " + before + " before, " + after + " after the wall");
            Check(world.Stats.TerrainVersion >= 2, "terrain version " + world.Stats.TerrainVersion);
            Console.WriteLine("     cost to go from (8, 20): " + before + " -> " + after);
        }
    }

    // Towers, recordings and world units.
    static void TowersRecordingsAndTransforms()
    {
        var config = WorldConfig.Default;
        config.Lockstep = 1;
        Cell goal;
        string path = Path.Combine(Path.GetTempPath(), "tide_csharp_" + Environment.TickCount + ".rec");
        using (var map = Map.Builtin("default", out goal))
        using (var world = new World(config))
        {
            world.RecordStart();
            world.Load(map, new[] { goal }, 300);
            TowerCheck t = world.CheckTower(new CellRect(goal.X - 1, goal.Y - 1, goal.X + 1, goal.Y + 1));
            Check(t.Blocks == 1 && t.CoversGoal == 1, "a tower on the goal does not block");
            Expect(Status.OnWall, "goal", () => world.PlaceTower(new CellRect(goal.X - 1, goal.Y - 1, goal.X + 1, goal.Y + 1)));
            for (int i = 0; i < 60; ++i) world.Tick(1.0f / 60.0f);
            world.RecordSave(path);
            ReplayResult r = World.Replay(path);
            Check(r.Ticks == 60 && r.FirstMismatch == -1 && r.FinalHash == world.StateHash, "replay: " + r.Ticks + " ticks, mismatch " + r.FirstMismatch);
            File.Delete(path);
        }
        GridTransform yUp = GridTransform.YUp(100.0f, 50.0f, 2.0f, 40);  // row 0 on top, 2 world units a cell
        Vec2 g = yUp.ToGrid(new Vec2(101.0f, 129.0f));
        Check(Math.Abs(g.X - 0.5f) < 1e-5f && Math.Abs(g.Y - 0.5f) < 1e-5f, "y-up corner maps to " + g);
        Vec2 back = yUp.ToWorld(g);
        Check(Math.Abs(back.X - 101.0f) < 1e-4f && Math.Abs(back.Y - 129.0f) < 1e-4f, "round trip " + back);
        Cell c = yUp.CellOf(new Vec2(103.0f, 51.0f));
        Check(c.X == 1 && c.Y == 39, "cell of the bottom row: " + c);
    }

    // Waves of units to a sink: every unit spawned leaves through the exit and is counted.
    static void SpawnersFeedASink()
    {
        Cell goal;
        using (var map = Map.Builtin("default", out goal))
        using (var world = new World())
        {
            world.Load(map, new[] { goal }, 10);
            uint id = world.AddSpawner(new SpawnerSpec
            {
                Area = new CellRect(0, 0, 5, 5), Goals = new[] { new Cell(20, 20) }, EverySeconds = 0.5,
                PerEmission = 5, WaveEmissions = 2, WavePauseSeconds = 1.0, Waves = 2
            });
            Check(id == 1, "spawner id " + id);
            SpawnerInfo s = world.Spawners[0];
            for (int t = 0; t < 60 * 40 && s.Sunk < 20; ++t)
            {
                world.Tick(1.0f / 60.0f);
                s = world.Spawners[0];
            }
            Check(s.Spawned == 20 && s.Sunk == 20 && s.Done == 1 && s.WavesDone == 2, "spawned " + s.Spawned + ", sunk " + s.Sunk);
            Check(world.UnitCount == 10, world.UnitCount + " units left");
            Expect(Status.InvalidArgument, "every_s", () => world.AddSpawner(new SpawnerSpec { Area = new CellRect(0, 0, 1, 1), Goals = new[] { new Cell(20, 20) }, EverySeconds = 0 }));
            Expect(Status.NotFound, "spawner 9", () => world.RemoveSpawner(9));
            Console.WriteLine("     20 units spawned in 2 waves, 20 sunk");
        }
    }

    // A box order: the group marches in formation and stands in it at the goal.
    static void AFormationStandsInShape()
    {
        Cell goal;
        using (var map = Map.Builtin("default", out goal))
        using (var world = new World())
        {
            world.Load(map, new[] { goal }, 25);
            uint g = world.OrderBoxFormation(0, 0, 64, 40, new[] { new Cell(40, 30) }, new Formation { Shape = FormationShape.Box, Spacing = 1.2f });
            Vec2[] slots = null;
            FormationState st = world.Formation(g, out slots);
            for (int t = 0; t < 60 * 90 && !(st.Arrived == 1 && world.Stats.Arrived == 25); ++t)
            {
                world.Tick(1.0f / 60.0f);
                st = world.Formation(g, out slots);
            }
            Check(st.Active == 1 && st.Arrived == 1 && slots.Length == 25, "formation " + st.Active + " " + st.Arrived + " " + slots.Length);
            Check(world.Stats.Arrived == 25, world.Stats.Arrived + " of 25 arrived");
            Check(st.Reassignments == 1, st.Reassignments + " reassignments");
            Expect(Status.InvalidArgument, "spacing", () => world.OrderBoxFormation(0, 0, 64, 40, new[] { new Cell(40, 30) }, new Formation { Spacing = 0 }));
            Console.WriteLine("     25 units in a box, arrived in shape, error " + st.Error);
        }
    }

    // Every error path a caller can reach throws with the library's status and message.
    static void ErrorsThrowWithStatusAndMessage()
    {
        Expect(Status.Io, "/no/such.map", () => Map.Load("/no/such.map"));
        Expect(Status.NotFound, "built-in maps", () => { Cell g; Map.Builtin("nope", out g); });
        Expect(Status.InvalidArgument, "cost 0", () => Map.Create(2, 1, new byte[] { 1, 0 }));
        var bad = WorldConfig.Default;
        bad.UnitSpeed = 0;
        Expect(Status.InvalidArgument, "speed", () => new World(bad));
        using (var map = Map.Create(10, 10))
        using (var world = new World())
        {
            map.SetCost(5, 5, Map.Wall);
            Expect(Status.OnWall, "wall", () => world.Load(map, new[] { new Cell(5, 5) }, 10));
            Expect(Status.OffMap, "outside", () => world.Load(map, new[] { new Cell(12, 3) }, 10));
            Expect(Status.InvalidArgument, "no map loaded", () => world.OrderBox(0, 0, 1, 1, new[] { new Cell(1, 1) }));
            world.Load(map, new[] { new Cell(1, 1) }, 10);
            Expect(Status.InvalidArgument, "time step", () => world.Tick(-1.0f));
            Expect(Status.InvalidArgument, "time step", () => world.Tick(float.NaN));
            Expect(Status.OffMap, "outside", () => world.Paint(50, 50, 1, Map.Wall));
            Expect(Status.NotFound, "group", () => world.SetGoals(99, new[] { new Cell(2, 2) }));
            Expect(Status.InvalidArgument, "lockstep", () => world.RecordStart());
            Expect(Status.InvalidArgument, "speed", () => world.SetUnitParams(100.0f, 1.0f, 0.2f));
            Expect(Status.Io, "/no/such.rec", () => World.Replay("/no/such.rec"));
            Expect(Status.NotFound, "group 7", () => world.GroupField(7));
        }
        var w = new World();
        w.Dispose();
        try { w.Tick(0.1f); throw new Exception("a disposed world ticked"); }
        catch (ObjectDisposedException) { }
    }

    static int Main(string[] a)
    {
        args = a;
        if (args.Length != 5) { Console.WriteLine("usage: TideTests.exe FIELD_MAP DIST_CSV GOAL_X GOAL_Y WORLD_HASH"); return 2; }
        Run("FieldEqualsTheCli", FieldEqualsTheCli);
        Run("OrderLoopGivesTheNativeHash", OrderLoopGivesTheNativeHash);
        Run("PaintRepairsTheField", PaintRepairsTheField);
        Run("TowersRecordingsAndTransforms", TowersRecordingsAndTransforms);
        Run("SpawnersFeedASink", SpawnersFeedASink);
        Run("AFormationStandsInShape", AFormationStandsInShape);
        Run("ErrorsThrowWithStatusAndMessage", ErrorsThrowWithStatusAndMessage);
        Console.WriteLine("csharp: " + passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
