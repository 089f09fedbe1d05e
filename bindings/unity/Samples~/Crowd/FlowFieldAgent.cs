// A unit the game moves itself (a CharacterController, a Rigidbody, its own animation), asking Tide
// only which way to go: the manager samples the group's field (wall-safe, bilinear) under its
// position and it walks that way at `speed`. The manager keeps one field per group and fetches it
// again when the group's field changes (after an order or a paint).
using UnityEngine;

public class FlowFieldAgent : MonoBehaviour
{
    /// <summary>The manager whose world plans the group.</summary>
    public FlowFieldManager manager;
    /// <summary>The group whose field this unit follows.</summary>
    public uint group = 1;
    /// <summary>Metres per second.</summary>
    public float speed = 3.0f;

    /// <summary>The direction the group's field gives at the unit's position (zero at the goal).</summary>
    public Vector3 Direction()
    {
        return manager.DirectionAt(transform.position, group);
    }

    void Update()
    {
        transform.position += Direction() * (speed * Time.deltaTime);
    }
}
