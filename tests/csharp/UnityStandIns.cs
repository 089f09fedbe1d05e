// The few UnityEngine types the Unity sample (bindings/unity/Samples~/Crowd) touches, so its
// engine-independent part compiles and runs under Mono in tests/csharp/run.sh. Not Unity: what a
// frame does (Awake once, FixedUpdate at a fixed step, Update per frame) is driven by the test.
using System;

namespace UnityEngine
{
    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static Vector3 zero { get { return new Vector3(0, 0, 0); } }
        public float magnitude { get { return (float)Math.Sqrt(x * x + y * y + z * z); } }
        public static Vector3 operator +(Vector3 a, Vector3 b) { return new Vector3(a.x + b.x, a.y + b.y, a.z + b.z); }
        public static Vector3 operator -(Vector3 a, Vector3 b) { return new Vector3(a.x - b.x, a.y - b.y, a.z - b.z); }
        public static Vector3 operator *(Vector3 a, float k) { return new Vector3(a.x * k, a.y * k, a.z * k); }
        public override string ToString() { return "(" + x + ", " + y + ", " + z + ")"; }
    }

    public class Transform
    {
        public Vector3 position;
    }

    public class MonoBehaviour
    {
        public Transform transform = new Transform();
    }

    public static class Time
    {
        public static float deltaTime = 1.0f / 60.0f;
        public static float fixedDeltaTime = 1.0f / 50.0f;
    }
}
