"""World.save / World.load / to_bytes / from_bytes (nscd_world_save and
nscd_world_load, docs/checkpoint.md): a pile run 2N steps and run N steps,
saved, loaded and run N more steps has the same bits in every body state;
user data comes back; a corrupt checkpoint raises NscdError ERR_IO."""
import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402
from nscd.errors import NscdError, Status  # noqa: E402


def _pile(seed=7):
    rng = np.random.default_rng(seed)
    world = nscd.World(dt=2e-3, max_sweeps=20, friction_law="coulomb")
    world.add_half_space()
    for i in range(24):
        position = (0.06 * (i % 4), 0.06 * ((i // 4) % 3), 0.04 + 0.06 * (i // 12))
        kind = i % 3
        if kind == 0:
            world.add_sphere(rng.uniform(0.01, 0.025), position=position, user_id=i + 1)
        elif kind == 1:
            world.add_body(nscd.Shape.box(rng.uniform(0.01, 0.025, 3)), position=position,
                           orientation=(0.8, 0.6, 0.0, 0.0), user_id=i + 1)
        else:
            world.add_body(nscd.Shape.capsule(rng.uniform(0.008, 0.02), rng.uniform(0.005, 0.02)),
                           position=position, angular_velocity=(0.0, 2.0, 0.0), user_id=i + 1)
    return world


def _state(world):
    b = world.bodies()
    return [np.asarray(a).tobytes() for a in (b.ids, b.user_ids, b.positions, b.orientations,
                                              b.velocities, b.angular_velocities)]


@pytest.mark.parametrize("through_file", [False, True])
def test_restart_continues_bitwise(tmp_path, through_file):
    n = 100
    with _pile() as reference:
        reference.step(2 * n)
        with _pile() as first:
            first.step(n)
            if through_file:
                path = tmp_path / "pile.ckpt"
                first.save(path, user_data=b"inflow state")
                blob = first.to_bytes(b"inflow state")
                loaded = nscd.World.load(path)
            else:
                blob = first.to_bytes(b"inflow state")
                loaded = nscd.World.from_bytes(blob)
        with loaded:
            assert loaded.user_data == b"inflow state"
            assert loaded.dt == 2e-3
            assert loaded.to_bytes(b"inflow state") == blob  # the same bytes again
            loaded.step(n)
            assert loaded.time == reference.time
            assert _state(loaded) == _state(reference)


def test_corrupt_checkpoint_raises_io_error(tmp_path):
    with _pile() as world:
        world.step(5)
        blob = bytearray(world.to_bytes())
    blob[len(blob) // 2] ^= 0x01
    with pytest.raises(NscdError) as info:
        nscd.World.from_bytes(bytes(blob))
    assert info.value.status == Status.ERR_IO
    assert "checksum" in str(info.value)
    with pytest.raises(NscdError) as info:
        nscd.World.from_bytes(b"not a checkpoint")
    assert info.value.status == Status.ERR_IO
    with pytest.raises(NscdError) as info:
        with nscd.World() as world:
            world.save(tmp_path / "no-such-dir" / "w.ckpt")
    assert info.value.status == Status.ERR_IO
