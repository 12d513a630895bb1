"""CAV fitting for the TCAV probe: our batched Newton fit of all runs at once vs a per-run sklearn loop.

Synthetic embeddings (default 10,000 tracks x 1024 dimensions, 10 genres, genre offsets, a decaying
spectrum and a shared mean like real encoder outputs, concept shifts along a few directions). Per
concept: the balanced split (cap 50 per (label, genre) cell), 500 runs on 25% subsets, as the paper.
Prints, from one run: the wall time of `fit_logistic` for every concept, the time of a naive loop of
sklearn LogisticRegression(solver="liblinear", C=1) fits over the same subsets (timed on
--naive-runs runs per concept and scaled linearly to all runs: it is a loop of independent fits),
their ratio, and how far the two solutions are apart on the runs both fitted.

    python benchmarks/bench_tcav.py [--tracks 10000] [--dim 1024] [--runs 500] [--naive-runs 50] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from symphony_bench.metrics import cav, tcav

GENRES = [f"genre{k}" for k in range(10)]
LANGUAGES = ["en", "es", "pt", "fr", "de", "ja"]


def synthetic_tracks(n_tracks: int, dim: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(dim, dim)))[0]
    spectrum = 3.0 / np.sqrt(np.arange(1, dim + 1))
    genre = rng.integers(0, len(GENRES), n_tracks)
    female = rng.random(n_tracks) < np.linspace(0.15, 0.6, len(GENRES))[genre]
    gender = np.where(female, "female", np.where(rng.random(n_tracks) < 0.05, "non-binary", "male"))
    language = np.array(LANGUAGES)[rng.integers(0, len(LANGUAGES), n_tracks)]
    x = rng.normal(size=dim) * 0.3 + (rng.normal(size=(n_tracks, dim)) * spectrum) @ basis
    x += (rng.normal(size=(len(GENRES), dim)) * 0.4)[genre]
    x += 0.4 * np.outer(np.where(female, 1.0, -1.0), basis[:, 3])
    x += 0.3 * np.stack([basis[:, 10 + LANGUAGES.index(v)] for v in language])
    return x, np.array(GENRES)[genre], {"gender": gender, "language": language}


def naive_fits(x, labels, subsets, c: float) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    start = time.perf_counter()
    solutions = []
    for rows in subsets:
        model = LogisticRegression(solver="liblinear", C=c, max_iter=1000).fit(
            x[rows], labels[rows]
        )
        solutions.append(np.r_[model.coef_[0], model.intercept_])
    return np.array(solutions), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tracks", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument(
        "--naive-runs", type=int, default=50, help="sklearn fits timed per concept, then scaled"
    )
    parser.add_argument("--concepts", default="gender=female,gender=male,language=en,language=es")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (liblinear is single-threaded)"
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    x, genres, attributes = synthetic_tracks(args.tracks, args.dim)
    settings = tcav.Settings(runs=args.runs)
    rng = np.random.default_rng(1)
    concepts = [tuple(spec.split("=", 1)) for spec in args.concepts.split(",")]
    print(
        f"{args.tracks} tracks x {args.dim} dims, {len(GENRES)} genres; {args.runs} runs x {len(concepts)} "
        f"concepts; torch threads {args.threads}; sklearn timed on {args.naive_runs} runs per concept and "
        f"scaled to {args.runs}"
    )
    ours_total = naive_total = 0.0
    for column, value in concepts:
        values = attributes[column]
        split = cav.balanced_split(f"{column}={value}", values == value, values != "", genres, rng)
        subsets = cav.cell_subsets(split.train_cells, args.runs, settings.subset_fraction, rng)
        train_x, train_y = x[split.train], split.train_labels
        start = time.perf_counter()
        weights, bias = cav.fit_logistic(train_x, train_y, subsets, settings.c)
        ours = time.perf_counter() - start
        reference, naive = naive_fits(train_x, train_y, subsets[: args.naive_runs], settings.c)
        naive *= args.runs / min(args.naive_runs, args.runs)
        ours_total, naive_total = ours_total + ours, naive_total + naive
        print(
            f"  {column}={value}: {split.train.size} training tracks, {subsets.shape[1]} per run; "
            f"batched {ours:.2f} s, sklearn loop {naive:.2f} s (scaled), ratio {naive / ours:.1f}x; "
            f"{_agreement(np.c_[weights, bias][: len(reference)], reference, x[split.test])}"
        )
    print(
        f"all concepts: batched {ours_total:.2f} s, sklearn loop {naive_total:.2f} s (scaled), "
        f"ratio {naive_total / ours_total:.1f}x"
    )


def _agreement(ours: np.ndarray, reference: np.ndarray, test_x: np.ndarray) -> str:
    relative = np.abs(ours - reference).max() / np.abs(reference).max()
    sides = (test_x @ ours[:, :-1].T + ours[:, -1]) > 0
    reference_sides = (test_x @ reference[:, :-1].T + reference[:, -1]) > 0
    return (
        f"max |w - w_sklearn| / max |w_sklearn| = {relative:.1e}, "
        f"test tracks on the same side {np.mean(sides == reference_sides):.5f}"
    )


if __name__ == "__main__":
    main()
