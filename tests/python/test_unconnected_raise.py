"""unconnected_gradients='raise': no silent None, a ValueError that says why."""

import pytest
import rustape as rt


def _raises(tape, target, source, *needles):
    with pytest.raises(ValueError) as info:
        tape.gradient(target, source, unconnected_gradients="raise")
    message = str(info.value)
    for needle in needles:
        assert needle in message, message
    return message


def test_each_reason_is_named():
    x = rt.constant(2.0)
    lonely = rt.constant(3.0)
    n = rt.constant(4)
    v = rt.Variable(1.0, name="v")
    outside = v * 1.0  # read before the tape exists
    blocked = rt.constant(5.0)
    with rt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch([x, blocked])
        with pytest.warns(UserWarning):
            tape.watch(n)
        y = (
            rt.sin(x)
            * (lonely * lonely)
            * rt.stop_gradient(blocked)
            * rt.cast(n, rt.float32)
            * outside
        )
    # The connected source is unaffected.
    assert tape.gradient(y, x, unconnected_gradients=rt.UnconnectedGradients.RAISE) is not None
    _raises(tape, y, lonely, "never watched", "tape.watch()")
    _raises(tape, y, n, "int32", "only floating and complex tensors")
    _raises(tape, y, v, "variable 'v:0'", "read outside")
    _raises(tape, y, blocked, "stop_gradient")
    # Nested sources: the error names the source's position.
    _raises(tape, y, {"a": x, "b": lonely}, "source 1")


def test_guide_stop_recording_example_explains_dz_dy():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape(persistent=True) as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    assert float(t.gradient(z, x, unconnected_gradients="raise")) == 4.0
    _raises(t, z, y, "never watched")


def test_none_and_zero_modes_are_unchanged():
    x = rt.constant([1.0, 2.0])
    other = rt.constant([3.0, 4.0, 5.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, other) is None
    assert tape.gradient(y, other, unconnected_gradients="zero").numpy().tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="jacobian"):
        tape.jacobian(y, other, unconnected_gradients="raise")
