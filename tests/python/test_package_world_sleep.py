"""nscd.World(sleep=True) (0.2): a box set on the floor falls asleep after
sleep_time and its pose then stays bitwise; set_body and wake wake it; bad
sleep settings raise."""
import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402

H = 0.01


def test_box_sleeps_and_wakes():
    world = nscd.World(sleep=True, sleep_time=0.2)
    with world:
        world.add_half_space(point=(0, 0, 0), normal=(0, 0, 1))
        box = world.add_body(nscd.Shape.box((H, H, H)), position=(0, 0, H))
        assert world.step(150).sleeping_bodies == 0   # 0.15 s < sleep_time
        assert world.step(100).sleeping_bodies == 1
        assert world.is_sleeping(box)
        x0 = world.get_body(box)[0].copy()
        world.step(200)
        assert np.array_equal(world.get_body(box)[0], x0)
        world.wake(box)
        assert not world.is_sleeping(box)
        world.step(250)
        assert world.is_sleeping(box)
        world.set_body(box, velocity=(0.1, 0, 0))
        assert not world.is_sleeping(box)


@pytest.mark.parametrize("settings", [{"sleep_speed": -1.0}, {"sleep_time": float("nan")}])
def test_bad_sleep_settings_raise(settings):
    with pytest.raises(nscd.NscdError):
        nscd.World(sleep=True, **settings)
