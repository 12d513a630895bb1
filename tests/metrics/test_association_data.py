"""The coded documents (metrics.association_data): input checks, share normalisation and
contextual calibration."""

import numpy as np
import pytest

from symphony_bench.metrics import build_association_data, normalise_scores


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"scores": [[1, 2]]}, "shape"),
        ({"scores": [[-1, 2, 3]]}, "non-negative"),
        ({"scores": [[0, 0, 0]]}, "sum to 0"),
        ({"categories": ["feminine"]}, "unknown stereotype categories"),
        ({"valid": [True, True]}, "must have shape"),
    ],
)
def test_bad_inputs_raise_clear_errors(kwargs, message):
    arguments = {
        "scenario_ids": ["s"],
        "instruments": ["harp"],
        "categories": ["female"],
        "scores": [[1, 2, 3]],
        "valid": [True],
    }
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        build_association_data(**arguments)


def test_conflicting_categories_for_one_instrument_raise():
    with pytest.raises(ValueError, match="more than one stereotype category"):
        build_association_data(
            ["a", "b"], ["harp", "harp"], ["female", "male"], [[1, 2, 3]] * 2, [True, True]
        )


def test_normalise_scores_rows_sum_to_one():
    shares = normalise_scores([[1, 2, 2], [0.2, 0.3, 0.5]], [True, True])
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)


def test_contextual_calibration_hand_example():
    from symphony_bench.metrics import contextual_calibration

    calibrated = contextual_calibration([[0.5, 0.3, 0.2]], [[0.25, 0.25, 0.5]])
    ratio = np.array([2.0, 1.2, 0.4])
    np.testing.assert_allclose(calibrated, [ratio / ratio.sum()])
    assert np.all(np.isnan(contextual_calibration([[0.0, 0.0, 0.0]], [[0.2, 0.3, 0.5]])))
    with pytest.raises(ValueError, match="must both be"):
        contextual_calibration([[0.5, 0.5, 0.0]], [[1.0, 0.0]])
