"""Shares of flagged docs within each instrument (e.g. its refusals), on that instrument's units."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.association import design_rate
from symphony_bench.metrics.association_data import AssociationData
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
        no_reference=None if data.no_reference is None else data.no_reference[keep],
    )


# Below this many templates an instrument's interval does not hold (simulated, clustered refusals
# on 3 scenarios per template, the symmetric t interval: coverage 0.70 at 5 templates with one doc
# each, 0.92 at 10, 0.94 at 20 and 86; design_rate's logit interval: 0.951 at 86): no interval is
# given there.
MIN_TEMPLATES = 20


def instrument_design_rates(
    data: AssociationData, flags, n_boot: int = N_BOOTSTRAP, seed: int = BOOTSTRAP_SEED
) -> list[dict]:
    """`design_rate` of `flags` within each instrument (in data.instruments order), on the units
    of that instrument's docs: its templates, crossed with its stimuli where it has several. An
    instrument with fewer than MIN_TEMPLATES templates gets its rate with NaN stderr and interval."""
    flags = np.asarray(flags, dtype=bool).ravel()
    if flags.size != data.valid.size:
        raise ValueError(f"expected one flag per doc ({data.valid.size}), got {flags.size}")
    rates = []
    for code in range(len(data.instruments)):
        own = instrument_data(data, code)
        rate = design_rate(own, flags[data.instrument_codes == code], n_boot, seed)
        if own.n_templates < MIN_TEMPLATES:
            rate = {"rate": rate["rate"], "stderr": float("nan"), "ci": [float("nan")] * 2}
        rates.append(rate)
    return rates
