"""The documents of a Symphony-Bias analysis, coded once: `AssociationData` and its builder.

Pure functions over plain arrays; no harness imports. A document's gender scores (Likert 1..5 or
probabilities) become shares p(d, g) = score(d, g) / sum_g' score(d, g') (`normalise_scores`; the
log-probability protocol may first divide by a content-free prompt's, `contextual_calibration`).
Documents are coded by template (the unit crossed with instruments), stimulus (nested in an
instrument) and instrument; instrument-free control docs give each template's gender prior (used by
`metrics.prior`). The per-cell aggregates every statistic starts from (`cell_means`, `cell_counts`,
`membership_matrix`) are here too; the statistics are in `metrics.association`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from symphony_bench.metrics.labels import CATEGORIES, GENDERS

# ABS(i) = sign(i) * (GAS(i, male) - GAS(i, female)); "none" instruments get no ABS.
_CATEGORY_SIGN = {"male": 1.0, "female": -1.0, "none": np.nan}


@dataclass(frozen=True)
class AssociationData:
    """Documents as integer-coded arrays, validated once."""

    template_codes: np.ndarray  # (n,) int in [0, n_templates): the unit crossed with instruments
    stimulus_codes: np.ndarray  # (n,) int in [0, n_stimuli): nested in instruments
    instrument_codes: np.ndarray  # (n,) int in [0, len(instruments))
    shares: np.ndarray  # (n, 3) p(d, g) in GENDERS order; rows of invalid docs are 0
    valid: np.ndarray  # (n,) bool
    n_templates: int
    stimulus_instrument: np.ndarray  # (n_stimuli,) instrument code of each stimulus
    instruments: tuple[str, ...]
    categories: tuple[str, ...]  # per instrument
    prior: np.ndarray | None = (
        None  # (T, 3) mean shares of the instrument-free control docs per template
    )
    adjustment: np.ndarray | None = (
        None  # (T, 3) subtracted from every cell mean (see prior_adjusted)
    )
    # (n,) bool: docs whose model declined to answer (no rating, and no format failure either);
    # None where the protocol cannot refuse (log-probabilities)
    refused: np.ndarray | None = None
    # (n,) bool: docs whose answer says nothing of the person's gender (the open-ended protocol's
    # stories that never refer to the person): no rating, and no format failure either; None where
    # every answer must rate
    no_reference: np.ndarray | None = None

    @property
    def format_failures(self) -> np.ndarray:
        """(n,) bool: docs without a rating that were neither refusals nor answers without a
        reference to the person (the invalid rate's docs)."""
        failures = ~self.valid
        for excluded in (self.refused, self.no_reference):
            if excluded is not None:
                failures = failures & ~excluded
        return failures

    @property
    def signs(self) -> np.ndarray:
        return np.array([_CATEGORY_SIGN[c] for c in self.categories])

    @property
    def n_stimuli(self) -> int:
        return len(self.stimulus_instrument)

    @property
    def crossed(self) -> bool:
        """Some instrument has two or more stimuli: stimuli are a unit of their own."""
        counts = np.bincount(self.stimulus_instrument, minlength=len(self.instruments))
        return bool(np.any(counts >= 2))


def normalise_scores(scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Row-normalise the (n, 3) gender scores of valid documents; invalid rows become 0.

    Raises ValueError if a valid row has a negative or non-finite entry or sums to 0.
    """
    scores = np.asarray(scores, dtype=float)
    valid = np.asarray(valid, dtype=bool)
    if scores.ndim != 2 or scores.shape[1] != len(GENDERS):
        raise ValueError(f"scores must have shape (n, 3), got {scores.shape}")
    if valid.shape != (scores.shape[0],):
        raise ValueError(f"valid must have shape ({scores.shape[0]},), got {valid.shape}")
    checked = scores[valid]
    if not np.all(np.isfinite(checked)) or np.any(checked < 0):
        raise ValueError("scores of valid documents must be finite and non-negative")
    totals = scores.sum(axis=1)
    if np.any(totals[valid] <= 0):
        raise ValueError("scores of a valid document sum to 0")
    shares = np.zeros_like(scores)
    shares[valid] = scores[valid] / totals[valid, None]
    return shares


def contextual_calibration(shares: np.ndarray, baseline_shares: np.ndarray) -> np.ndarray:
    """Rows of p(g | x) / p(g | content-free x), renormalised to sum to 1 (Zhao et al., 2021).

    Both arrays are (n, 3) of non-negative probabilities; a row whose ratio is 0 everywhere or
    undefined comes back as NaN.
    """
    shares = np.asarray(shares, dtype=float)
    baseline_shares = np.asarray(baseline_shares, dtype=float)
    if shares.shape != baseline_shares.shape or shares.ndim != 2 or shares.shape[1] != len(GENDERS):
        raise ValueError(
            f"shares and baseline_shares must both be (n, 3), got {shares.shape} and {baseline_shares.shape}"
        )
    if np.any(shares < 0) or np.any(baseline_shares < 0):
        raise ValueError("probabilities must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = shares / baseline_shares
        calibrated = ratio / ratio.sum(axis=1, keepdims=True)
    calibrated[~np.all(np.isfinite(calibrated), axis=1)] = np.nan
    return calibrated


def _column(name: str, values, n: int) -> np.ndarray:
    column = np.asarray(values)
    if column.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {column.shape}")
    return column


def build_association_data(
    scenario_ids,
    instruments,
    categories,
    scores,
    valid,
    template_ids=None,
    stimulus_ids=None,
    control=None,
    refused=None,
    no_reference=None,
) -> AssociationData:
    """Code the per-document columns. `categories[k]` is the stereotype of `instruments[k]`.

    `template_ids` name the unit crossed with instruments (default: each scenario is its own unit);
    `stimulus_ids` the unit nested in instruments (default: the instrument itself). `control` marks
    instrument-free control docs ("... practises an instrument ..."): they are not analysed as an
    instrument but give each template's gender prior, for `analyse(..., prior_adjusted=True)`.
    `refused` marks docs the model declined to answer (they must be invalid): the invalid rate counts
    the other invalid docs, the refusal rate these. `no_reference` marks, likewise, answers that say
    nothing of the person's gender (the no-reference rate).
    """
    if control is not None and np.any(control):
        control = np.asarray(control, dtype=bool)
        templates = np.asarray(scenario_ids if template_ids is None else template_ids)

        def instrument_docs(column, dtype=None):
            return None if column is None else np.asarray(column, dtype=dtype)[~control]

        data = build_association_data(
            instrument_docs(scenario_ids),
            instrument_docs(instruments),
            instrument_docs(categories),
            instrument_docs(scores, float),
            instrument_docs(valid, bool),
            templates[~control],
            instrument_docs(stimulus_ids),
            refused=instrument_docs(refused, bool),
            no_reference=instrument_docs(no_reference, bool),
        )
        return dataclasses.replace(data, prior=_control_prior(templates, scores, valid, control))
    valid = np.asarray(valid, dtype=bool)
    n = len(valid)
    refused, no_reference = (
        _unrated_column(name, flags, valid)
        for name, flags in ((REFUSED, refused), ("no_reference", no_reference))
    )
    if refused is not None and no_reference is not None and np.any(refused & no_reference):
        raise ValueError("a doc is either refused or without a reference, not both")
    scenario_ids = _column("scenario_ids", scenario_ids, n)
    instruments = _column("instruments", instruments, n)
    categories = _column("categories", categories, n)
    templates = scenario_ids if template_ids is None else _column("template_ids", template_ids, n)
    stimuli = instruments if stimulus_ids is None else _column("stimulus_ids", stimulus_ids, n)
    unknown = set(np.unique(categories).tolist()) - set(CATEGORIES) if n else set()
    if unknown:
        raise ValueError(f"unknown stereotype categories {sorted(unknown)}; expected {CATEGORIES}")
    shares = normalise_scores(scores, valid)
    template_names, template_codes = np.unique(templates, return_inverse=True)
    instrument_names, first_doc, instrument_codes = np.unique(
        instruments, return_index=True, return_inverse=True
    )
    instrument_categories = categories[first_doc]
    conflicting = instrument_categories[instrument_codes] != categories
    if np.any(conflicting):
        bad = sorted(set(instruments[conflicting].tolist()))
        raise ValueError(f"instruments with more than one stereotype category: {bad}")
    stimulus_keys = (
        np.char.add(np.char.add(instruments.astype(str), "\x00"), stimuli.astype(str))
        if n
        else stimuli
    )
    _, first_stimulus_doc, stimulus_codes = np.unique(
        stimulus_keys, return_index=True, return_inverse=True
    )
    return AssociationData(
        template_codes=template_codes.ravel(),
        stimulus_codes=stimulus_codes.ravel(),
        instrument_codes=instrument_codes.ravel(),
        shares=shares,
        valid=valid,
        n_templates=len(template_names),
        stimulus_instrument=instrument_codes.ravel()[first_stimulus_doc]
        if n
        else np.zeros(0, dtype=int),
        instruments=tuple(instrument_names.tolist()),
        categories=tuple(instrument_categories.tolist()),
        refused=refused,
        no_reference=no_reference,
    )


REFUSED = "refused"


def _unrated_column(name: str, flags, valid: np.ndarray) -> np.ndarray | None:
    """A column of docs left without a rating for a reason of their own (they must be invalid)."""
    if flags is None:
        return None
    flags = _column(name, flags, len(valid)).astype(bool)
    if np.any(flags & valid):
        raise ValueError(f"a {name} doc has no rating: {name} docs must be invalid")
    return flags


def _control_prior(templates, scores, valid, control) -> np.ndarray:
    """(T, 3): the control docs' mean shares per template of the instrument docs (NaN where a
    template has no valid control doc)."""
    keep = ~control
    template_names = np.unique(templates[keep])
    shares = normalise_scores(
        np.asarray(scores, dtype=float)[control], np.asarray(valid, dtype=bool)[control]
    )
    position = np.searchsorted(template_names, templates[control])
    known = np.isin(
        templates[control], template_names
    )  # a control of a template with no doc: unused
    used = known & np.asarray(valid, dtype=bool)[control]
    counts = np.bincount(position[used], minlength=len(template_names)).astype(float)
    sums = np.stack(
        [
            np.bincount(position[used], weights=shares[used, g], minlength=len(template_names))
            for g in range(3)
        ],
        axis=1,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts[:, None]


def _cell_sums(data: AssociationData) -> tuple[np.ndarray, np.ndarray]:
    """Per (template, stimulus) cell: sums of shares (T, S, 3) and valid counts (T, S)."""
    cell = data.template_codes * data.n_stimuli + data.stimulus_codes
    n_cells = data.n_templates * data.n_stimuli
    counts = np.bincount(cell, weights=data.valid, minlength=n_cells)
    sums = np.stack(
        [np.bincount(cell, weights=data.shares[:, g], minlength=n_cells) for g in range(3)], axis=1
    )
    return sums.reshape(data.n_templates, data.n_stimuli, 3), counts.reshape(
        data.n_templates, data.n_stimuli
    )


def cell_means(data: AssociationData) -> np.ndarray:
    """(T, S, 3) mean shares per (template, stimulus) cell, less the adjustment if any; NaN where a
    cell has no valid doc (or its template no valid control doc)."""
    sums, counts = _cell_sums(data)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts[..., None]
    return means if data.adjustment is None else means - data.adjustment[:, None, :]


def membership_matrix(stimulus_instrument: np.ndarray, n_instruments: int) -> np.ndarray:
    """(S, I) 0/1: which instrument each stimulus belongs to."""
    matrix = np.zeros((len(stimulus_instrument), n_instruments))
    matrix[np.arange(len(stimulus_instrument)), stimulus_instrument] = 1.0
    return matrix


def instrument_membership(data: AssociationData) -> np.ndarray:
    return membership_matrix(data.stimulus_instrument, len(data.instruments))


def cell_counts(data: AssociationData) -> tuple[np.ndarray, np.ndarray]:
    """(T, S) docs and invalid docs (format failures: refusals are not invalid) per cell."""
    cell = data.template_codes * data.n_stimuli + data.stimulus_codes
    size = data.n_templates * data.n_stimuli
    docs = np.bincount(cell, minlength=size).astype(float)
    invalid = np.bincount(cell, weights=data.format_failures, minlength=size)
    shape = (data.n_templates, data.n_stimuli)
    return docs.reshape(shape), invalid.reshape(shape)
