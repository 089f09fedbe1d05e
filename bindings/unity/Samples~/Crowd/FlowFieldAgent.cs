// A unit the game moves itself (a CharacterController, a Rigidbody, its own animation), asking Tide
// only which way to go: it samples its group's field (wall-safe, bilinear) under its position and
// walks that way at `speed`. The field is fetched again when the group's field changes (after an
// order or a paint).
using Tide;
using UnityEngine;

public class FlowFieldAgent : MonoBehaviour
{
    /// <summary>The manager whose world plans the group.</summary>
    public FlowFieldManager manager;
    /// <summary>The group whose field this unit follows.</summary>
    public uint group = 1;
    /// <summary>Metres per second.</summary>
    public float speed = 3.0f;

    Field field;
    ulong fieldVersion = ulong.MaxValue;

    /// <summary>The direction the field gives at the unit's position (zero at the goal).</summary>
    public Vector3 Direction()
    {
        ulong version = FieldSerial();  // bumped by every new or repaired field of the group
        if (field == null || version != fieldVersion)
        {
            if (field != null) field.Dispose();
            field = manager.World.GroupField(group);
            fieldVersion = version;
        }
        Vector3 p = transform.position;
        Tide.Vec2 d = field.Sample(new Tide.Vec2(p.x, p.z), manager.Grid);
        return new Vector3(d.X, 0.0f, d.Y);
    }

    ulong FieldSerial()
    {
        foreach (GroupInfo g in manager.World.Groups)
            if (g.Id == group) return g.FieldSerial;
        return 0;
    }

    void Update()
    {
        transform.position += Direction() * (speed * Time.deltaTime);
    }

    void OnDestroy()
    {
        if (field != null) field.Dispose();
    }
}
