"""The policies' batched kernels (hot_envs.agents.sparse): the sparse first layer agrees with the
dense product to rounding, and add_rows gives numpy's float32 sums exactly."""

import numpy as np

from hot_envs.agents.sparse import add_rows, first_layer


def test_first_layer_reads_the_non_zero_entries_as_the_dense_product() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((37, 90)).astype(np.float32)
    x[x < 0.85] = 0  # about a tenth non-zero, as an observation
    x[3] = 0  # a row with none
    weight = rng.standard_normal((90, 70)).astype(np.float32)
    bias = rng.standard_normal(70).astype(np.float32)
    out = first_layer(x, weight, bias)
    assert out.shape == (37, 70) and out.dtype == np.float32
    np.testing.assert_allclose(out, x @ weight + bias, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[3], bias)
    assert first_layer(x[:0], weight, bias).shape == (0, 70)


def test_add_rows_is_numpy_s_two_additions() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 33)).astype(np.float32)
    state = rng.standard_normal((6, 33)).astype(np.float32)
    decision = np.sort(rng.integers(0, 6, 50))
    bias = rng.standard_normal(33).astype(np.float32)
    expected = x.copy()
    expected += state[decision]
    expected += bias
    add_rows(x, state, decision, bias)
    np.testing.assert_array_equal(x, expected)
