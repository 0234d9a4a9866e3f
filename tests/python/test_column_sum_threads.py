"""Column sums (a bias gradient: `reduce_sum` over the rows) split their columns across threads
when large; each column is the same pairwise sum of its rows however the columns are split, so
one and two threads give the same bits, and the sums are accurate."""

from __future__ import annotations

import os
import textwrap

import numpy as np
from conftest import arrays_from_child

# Shapes large enough to split whether or not the helper thread is awake, a [256, 512] one as a
# dense layer's bias gradient (split when the helper is awake), and ragged column counts.
SHAPES = [(256, 512), (1024, 512), (777, 1000), (2048, 40), (600, 1500)]

SUMS = textwrap.dedent(
    f"""
    import sys
    import numpy as np
    import rustape as rt

    rng = np.random.default_rng(1)
    out = []
    for shape in {SHAPES!r}:
        x = rng.standard_normal(shape).astype(np.float32)
        t = rt.constant(x)
        for _ in range(3):  # the first call may find the helper parked, later ones awake
            s = rt.reduce_sum(t, axis=0).numpy()
        out += [x, s, rt.reduce_sum(rt.constant(x.astype(np.float64)), axis=0).numpy()]
    np.savez(sys.argv[1], *out)
    """
)


def test_column_sums_have_the_same_bits_on_one_and_two_threads(tmp_path: object) -> None:
    one = arrays_from_child(SUMS, 1, os.path.join(str(tmp_path), "one.npz"))
    two = arrays_from_child(SUMS, 2, os.path.join(str(tmp_path), "two.npz"))
    assert len(one) == len(two) == 3 * len(SHAPES)
    for k, shape in enumerate(SHAPES):
        x, s1, d1 = one[3 * k : 3 * k + 3]
        s2, d2 = two[3 * k + 1], two[3 * k + 2]
        assert x.shape == shape and s1.shape == (shape[1],)
        assert np.array_equal(s1, s2), f"float32 column sums of {shape} differ"
        assert np.array_equal(d1, d2), f"float64 column sums of {shape} differ"
        exact = x.astype(np.float64).sum(axis=0)
        np.testing.assert_allclose(d1, exact, rtol=1e-12, atol=1e-10)
        # Pairwise float32 sums of up to 2048 standard normals: within a few ulps of the
        # float64 sums' scale.
        np.testing.assert_allclose(s1, exact, rtol=0, atol=2e-4 * np.sqrt(shape[0]))
