"""Shares of flagged docs within each instrument (e.g. its refusals), on that instrument's units."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.association import AssociationData, design_rate
from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP


def instrument_data(data: AssociationData, code: int) -> AssociationData:
    """The docs of one instrument (`code` into data.instruments), its units coded anew."""
    keep = data.instrument_codes == code
    template_names, template_codes = np.unique(data.template_codes[keep], return_inverse=True)
    stimulus_names, stimulus_codes = np.unique(data.stimulus_codes[keep], return_inverse=True)
    return AssociationData(
        template_codes=template_codes.ravel(),
        stimulus_codes=stimulus_codes.ravel(),
        instrument_codes=np.zeros(int(keep.sum()), dtype=int),
        shares=data.shares[keep],
        valid=data.valid[keep],
        n_templates=len(template_names),
        stimulus_instrument=np.zeros(len(stimulus_names), dtype=int),
        instruments=(data.instruments[code],),
        categories=(data.categories[code],),
        refused=None if data.refused is None else data.refused[keep],
    )


def instrument_design_rates(
    data: AssociationData, flags, n_boot: int = N_BOOTSTRAP, seed: int = BOOTSTRAP_SEED
) -> list[dict]:
    """`design_rate` of `flags` within each instrument (in data.instruments order), on the units
    of that instrument's docs: its templates, crossed with its stimuli where it has several."""
    flags = np.asarray(flags, dtype=bool).ravel()
    if flags.size != data.valid.size:
        raise ValueError(f"expected one flag per doc ({data.valid.size}), got {flags.size}")
    return [
        design_rate(instrument_data(data, code), flags[data.instrument_codes == code], n_boot, seed)
        for code in range(len(data.instruments))
    ]
