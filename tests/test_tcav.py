"""TCAV probe: CAV fits against sklearn, balanced sets, calibration under the null, a planted
entanglement, the debiasing curve, Whisper embedding extraction with padding handled, bad input."""

from __future__ import annotations

import argparse
import csv
import json
import math

import numpy as np
import pytest
import soundfile
from scipy import stats

from symphony_bench.metrics import tcav
from symphony_bench.plugin import tcav as probe
from symphony_bench.plugin.scenarios import DataFileError

GENRES = ("hiphop", "jazz", "pop", "rock")
MALE_SHARE = (0.8, 0.5, 0.3, 0.65)  # unequal on purpose: balancing must keep it out of the CAVs


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def synthetic(seed: int, entangle: float = 0.0, per_genre: int = 600, dim: int = 24):
    """Gender moves embeddings along e0 (male +1, female -1), language along e1 (es +1, en -1),
    genres have their own means in the other dimensions, and all share an offset (encoder outputs
    are not centred, which is why the CAV's bias matters). `entangle` shifts every hip-hop track
    along the male direction: hip-hop is then entangled with gender and with nothing else."""
    rng = np.random.default_rng(seed)
    means = np.zeros((len(GENRES), dim))
    means[:, 2:] = rng.normal(size=(len(GENRES), dim - 2)) * 0.5
    means += 1.0 + rng.random(dim)
    genre = np.repeat(np.arange(len(GENRES)), per_genre)
    male = rng.random(genre.size) < np.array(MALE_SHARE)[genre]
    spanish = rng.random(genre.size) < 0.4
    x = means[genre] + rng.normal(size=(genre.size, dim))
    x[:, 0] += np.where(male, 1.0, -1.0) + entangle * (genre == 0)
    x[:, 1] += np.where(spanish, 1.0, -1.0)
    attributes = {"gender": np.where(male, "male", "female"), "language": np.where(spanish, "es", "en")}
    return x, np.array(GENRES)[genre], attributes


def cli(argv: list[str]) -> None:
    root = argparse.ArgumentParser(prog="symphony-bench")
    probe.add_tcav_command(root.add_subparsers(dest="command", required=True))
    args = root.parse_args(argv)
    args.run(args)


# ----------------------------------------------------------------------------- CAV fitting


def liblinear(x, y, subsets, tol):
    from sklearn.linear_model import LogisticRegression

    fits = [LogisticRegression(solver="liblinear", C=1.0, tol=tol, max_iter=100_000).fit(x[s], y[s]) for s in subsets]
    return np.array([np.r_[m.coef_[0], m.intercept_] for m in fits])


@pytest.mark.parametrize("n_rows, dim", [(120, 40), (150, 6)])  # fewer rows than features, and more
def test_batched_fit_matches_liblinear(n_rows, dim):
    """Tolerance: against liblinear run to tol=1e-10, max |w - w_sklearn| <= 1e-6 * max |w_sklearn|
    (both solve the same penalised problem, intercept included in the penalty). Against liblinear's
    default tol=1e-4 (its own early stop), 2e-3 relative and the same side for 99.9% of tracks."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, dim)) + rng.normal(size=dim)
    x[:, :2] *= 15.0  # badly scaled directions, as some encoders' outlier dimensions
    y = rng.random(400) < 0.5
    x[y, 2] += 0.8
    subsets = np.sort(np.stack([rng.choice(400, n_rows, replace=False) for _ in range(12)]), axis=1)
    weights, bias = tcav.fit_logistic(x, y, subsets)
    ours = np.c_[weights, bias]
    exact = liblinear(x, y, subsets, tol=1e-10)
    assert np.abs(ours - exact).max() <= 1e-6 * np.abs(exact).max()
    default = liblinear(x, y, subsets, tol=1e-4)
    assert np.abs(ours - default).max() <= 2e-3 * np.abs(default).max()
    same_side = ((x @ ours[:, :-1].T + ours[:, -1]) > 0) == ((x @ default[:, :-1].T + default[:, -1]) > 0)
    assert same_side.mean() >= 0.999
    single_w, single_b = tcav.fit_logistic(x, y, np.arange(400)[None, :])
    single_exact = liblinear(x, y, [np.arange(400)], 1e-10)[0]
    np.testing.assert_allclose(np.r_[single_w[0], single_b], single_exact, rtol=0, atol=1e-6)


def test_fit_rejects_bad_input():
    x = np.ones((4, 2))
    with pytest.raises(ValueError, match="index rows"):
        tcav.fit_logistic(x, [True, False] * 2, [[0, 9]])
    with pytest.raises(ValueError, match="NaN"):
        tcav.fit_logistic(np.full((4, 2), np.nan), [True, False] * 2, [[0, 1]])


# ----------------------------------------------------------------------------- balanced sets


def test_balanced_split_is_balanced_capped_and_disjoint():
    genres = np.array(["a"] * 300 + ["b"] * 30 + ["c"] * 300)
    positive = np.r_[np.arange(300) < 200, np.arange(30) < 12, np.arange(300) < 150]  # 200:100, 12:18, 150:150
    eligible = np.ones(630, dtype=bool)
    eligible[5] = False  # a positive of a: 199 left
    rng = np.random.default_rng(0)
    split = tcav.balanced_split("c", positive, eligible, genres, rng, cap_per_cell=50, min_per_cell=3)
    assert split.strata == ("a", "b", "c")
    assert not set(split.train) & set(split.test)
    assert len(set(split.train)) == split.train.size and 5 not in set(split.train) | set(split.test)
    np.testing.assert_array_equal(positive[split.train], split.train_labels)
    np.testing.assert_array_equal(genres[split.test], np.array(split.strata)[split.test_strata])
    # cells (genre, label): a has min(199, 100) = 100 per label, b 12, c 150; training takes
    # min(50, half), testing the rest of the balanced cell
    assert np.bincount(split.train_cells).tolist() == [50, 50, 6, 6, 50, 50]
    assert np.bincount(split.test_cells).tolist() == [50, 50, 6, 6, 100, 100]


def test_sparse_cell_is_an_error_naming_the_cell_unless_skipped():
    genres = np.array(["metal"] * 40 + ["pop"] * 40)
    positive = np.r_[np.arange(40) < 3, np.arange(40) < 20]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"concept 'gender=female', cell 'metal': 3 positive and 37 other tracks"):
        tcav.balanced_split("gender=female", positive, np.ones(80, bool), genres, rng, min_per_cell=5)
    split = tcav.balanced_split("gender=female", positive, np.ones(80, bool), genres, rng, min_per_cell=5,
                                skip_sparse=True)
    assert split.strata == ("pop",) and split.skipped == ("metal",)


def test_cell_subsets_draw_the_same_share_of_every_cell():
    cells = np.repeat([0, 1, 2, 3], [40, 40, 8, 8])
    subsets = tcav.cell_subsets(cells, runs=30, fraction=0.25, rng=np.random.default_rng(1))
    assert subsets.shape == (30, 10 + 10 + 2 + 2)
    for run in subsets:
        assert len(set(run)) == run.size
        assert np.bincount(cells[run]).tolist() == [10, 10, 2, 2]
    assert len({tuple(run) for run in subsets}) == 30


# ----------------------------------------------------------------------------- statistics


def test_statistics_against_scipy_and_by_hand():
    rng = np.random.default_rng(3)
    scores = np.c_[rng.normal(0.5, 0.05, 20), rng.normal(0.7, 0.05, 20), np.full(20, 0.5)]
    variance = np.full((20, 3), 0.03**2)
    tests = tcav.score_tests(["c"] * 3, ["g1", "g2", "g3"], scores, variance, [0.25] * 3, method="paper")
    np.testing.assert_allclose(tests.p_paper[:2], stats.ttest_1samp(scores[:, :2], 0.5).pvalue)
    assert tests.p_paper[2] == 1.0  # constant at exactly 0.5
    se = np.sqrt(0.03**2 + (0.25 / 0.75) * scores.var(axis=0, ddof=1))
    np.testing.assert_allclose(tests.p_calibrated, 2 * stats.norm.sf(np.abs(scores.mean(0) - 0.5) / se))
    critical = stats.t.ppf(1 - 0.05 / 3 / 2, 19)
    np.testing.assert_allclose(tests.ci[:, 1] - tests.mean, critical * scores.std(0, ddof=1) / math.sqrt(20))
    assert tests.significant.tolist() == [False, True, False]
    np.testing.assert_allclose(tests.p_bonferroni, np.minimum(1, 3 * tests.p_paper))
    with pytest.raises(ValueError, match="share of the training data"):
        tcav.score_tests(["c"], ["g"], scores[:, :1], variance[:, :1], [1.0])


def test_tcav_scores_count_the_positive_side_per_genre():
    side = np.array([[True, False], [False, False], [True, True], [True, False]])
    np.testing.assert_allclose(tcav.tcav_scores(side, [0, 0, 1, 1], 2), [[0.5, 1.0], [0.0, 0.5]])
    np.testing.assert_allclose(tcav.cav_accuracy(side, [True, False, True, False]), [0.75, 0.75])


# ----------------------------------------------------------------------------- the method on synthetic data


CONCEPTS = [("gender", "female"), ("gender", "male"), ("language", "es")]


def test_planted_entanglement_is_flagged_for_that_genre_only():
    x, genres, attributes = synthetic(seed=100, entangle=2.5)
    results, tests = tcav.analyse(x, genres, attributes, CONCEPTS, tcav.Settings(runs=100, seed=1))
    flagged = {(c, g): m for c, g, m, s in zip(tests.concepts, tests.genres, tests.mean, tests.significant) if s}
    assert flagged.get(("gender=female", "hiphop"), 1.0) < 0.4
    assert flagged.get(("gender=male", "hiphop"), 0.0) > 0.6
    assert not any(c.startswith("language") for c, _ in flagged)
    for (concept, genre), mean in flagged.items():  # a shifted genre moves the shared bias a little:
        if genre != "hiphop":  # other genres may only lean the opposite way
            assert (mean > 0.5) == (concept == "gender=female")
    assert all(r.reliable and r.accuracy.mean() > 0.7 for r in results)


def test_no_significant_result_under_the_null_across_repeated_analyses():
    """Family-wise error rate of the default (calibrated) test <= 5% over 40 null data sets with
    unequal gender shares per genre; the paper's runs t-test, on the same runs, flags nearly all."""
    family_errors, paper_family_errors, means = 0, 0, []
    for seed in range(40):
        x, genres, attributes = synthetic(seed, per_genre=400, dim=16)
        _, tests = tcav.analyse(x, genres, attributes, CONCEPTS[::2], tcav.Settings(runs=30, seed=seed))
        family_errors += bool(tests.significant.any())
        paper_family_errors += bool((tests.p_paper < tests.alpha / tests.n_tests).any())
        means.append(tests.mean)
    means = np.concatenate(means)
    assert family_errors <= 2  # 5% of 40
    assert paper_family_errors >= 30
    assert np.abs(means - 0.5).max() < 0.15 and abs(means.mean() - 0.5) < 0.01


def test_debiasing_moves_the_top_half_monotonically_toward_balance_and_beyond():
    x, genres, attributes = synthetic(seed=5, entangle=2.5, per_genre=800)
    result = tcav.debias(x, genres, attributes["gender"], "hiphop", "gender", "female", "male", tcav.Settings(seed=2))
    top_half = result.n_ranked // 2
    for label, shares in result.curves.items():
        male = shares[:, 1]
        np.testing.assert_allclose(shares.sum(axis=1), 1.0)
        assert male[0] > 0.6 and male[-1] < 0.4, label
        assert np.diff(male).max() <= 1.0 / top_half + 1e-12, label  # never back up by more than one track
        assert stats.spearmanr(result.lambdas, male).statistic < -0.95, label


# ----------------------------------------------------------------------------- embeddings through transformers


def tiny_whisper(folder):
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperModel

    config = WhisperConfig(d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                           decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_mel_bins=80,
                           max_source_positions=1500, max_target_positions=32, vocab_size=64, pad_token_id=0,
                           bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    WhisperModel(config).save_pretrained(folder)
    WhisperFeatureExtractor(feature_size=80).save_pretrained(folder)
    return folder


def write_tracks(folder, rows):
    """rows: (track_id, relative audio path or None, genre, gender, language)."""
    with open(folder / "tracks.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["track_id", "audio_path", "genre", "gender", "language"])
        writer.writerows(rows)
    return folder / "tracks.csv"


def tone(seconds: float, rate: int, frequency: float, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    wave = (0.3 * np.sin(2 * np.pi * frequency * t)).astype(np.float32)
    return np.stack([wave] * channels, axis=1) if channels > 1 else wave


def test_whisper_embeddings_pool_only_frames_that_cover_audio(tmp_path):
    import torch
    from transformers import WhisperFeatureExtractor, WhisperModel

    model_dir = tiny_whisper(tmp_path / "tiny-whisper")
    (tmp_path / "audio").mkdir()
    soundfile.write(tmp_path / "audio" / "one_second.wav", tone(1.0, 16_000, 440.0), 16_000)
    soundfile.write(tmp_path / "audio" / "stereo.flac", tone(2.5, 22_050, 660.0, channels=2), 22_050)
    metadata = write_tracks(tmp_path, [("a", "audio/one_second.wav", "pop", "female", "en"),
                                       ("b", "audio/stereo.flac", "rock", "male", "")])
    cache = tmp_path / "cache"
    cli(["tcav", "embed", "--metadata", str(metadata), "--encoder", str(model_dir), "--cache", str(cache),
         "--device", "cpu"])
    index = json.loads((cache / "index.json").read_text())
    assert index["track_ids"] == ["a", "b"] and list(index["encoders"]) == ["tiny-whisper"]
    embeddings = np.load(cache / "tiny-whisper.npy")
    assert embeddings.shape == (2, 16) and embeddings.dtype == np.float32

    extractor = WhisperFeatureExtractor.from_pretrained(model_dir)
    encoder = WhisperModel.from_pretrained(model_dir).get_encoder().eval()
    features = extractor(tone(1.0, 16_000, 440.0), sampling_rate=16_000, return_tensors="pt").input_features
    with torch.no_grad():
        hidden = encoder(features).last_hidden_state[0].numpy()
    assert hidden.shape[0] == 1500  # 30 s of 20 ms frames; 1 s of audio fills the first 50
    np.testing.assert_allclose(embeddings[0], hidden[:50].mean(axis=0), rtol=1e-5, atol=1e-6)
    assert not np.allclose(embeddings[0], hidden.mean(axis=0), rtol=1e-3, atol=1e-4)
    assert not np.allclose(embeddings[0], hidden[:51].mean(axis=0), rtol=1e-5, atol=1e-6)

    wave = probe.load_audio(tmp_path / "audio" / "stereo.flac", 16_000)  # mono, resampled: 2.5 s -> 125 frames
    features = extractor(wave, sampling_rate=16_000, return_tensors="pt").input_features
    with torch.no_grad():
        hidden = encoder(features).last_hidden_state[0].numpy()
    assert wave.size == 40_000
    np.testing.assert_allclose(embeddings[1], hidden[:125].mean(axis=0), rtol=1e-5, atol=1e-6)


def test_embedding_cache_is_reused_until_audio_changes(tmp_path, capsys):
    model_dir = tiny_whisper(tmp_path / "tiny-whisper")
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 300.0), 16_000)
    metadata = write_tracks(tmp_path, [("x", "x.wav", "pop", "female", "en")])
    args = ["tcav", "embed", "--metadata", str(metadata), "--encoder", str(model_dir), "--cache", str(tmp_path / "c"),
            "--device", "cpu", "--name", "tw"]
    cli(args)
    first = np.load(tmp_path / "c" / "tw.npy")
    cli(args)
    assert "cached, not recomputed" in capsys.readouterr().err
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 900.0), 16_000)
    cli(args)
    assert not np.allclose(np.load(tmp_path / "c" / "tw.npy"), first)


def test_other_transformers_encoders_mean_their_last_hidden_state(tmp_path):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    folder = tmp_path / "tiny-wav2vec2"
    config = Wav2Vec2Config(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                            conv_dim=(8, 8), conv_stride=(5, 4), conv_kernel=(10, 4), num_conv_pos_embeddings=8,
                            num_conv_pos_embedding_groups=2, vocab_size=8)
    Wav2Vec2Model(config).save_pretrained(folder)
    Wav2Vec2FeatureExtractor().save_pretrained(folder)
    encoder = probe.load_encoder(str(folder))
    wave = tone(0.5, 16_000, 500.0)
    inputs = Wav2Vec2FeatureExtractor.from_pretrained(folder)(wave, sampling_rate=16_000, return_tensors="pt")
    with torch.no_grad():
        expected = Wav2Vec2Model.from_pretrained(folder).eval()(**inputs).last_hidden_state[0].mean(0).numpy()
    np.testing.assert_allclose(encoder.embed(wave), expected, rtol=1e-5, atol=1e-6)


def test_valid_encoder_frames():
    assert probe.valid_encoder_frames(16_000, 160, 3000, 1500) == 50
    assert probe.valid_encoder_frames(16_001, 160, 3000, 1500) == 51
    assert probe.valid_encoder_frames(480_000, 160, 3000, 1500) == 1500
    assert probe.valid_encoder_frames(10 * 480_000, 160, 3000, 1500) == 1500
    assert probe.valid_encoder_frames(1, 160, 3000, 1500) == 1


# ----------------------------------------------------------------------------- the command end to end


def write_embedding_inputs(folder, seed=11, entangle=2.5):
    x, genres, attributes = synthetic(seed, entangle=entangle)
    ids = [f"t{k:05d}" for k in range(len(genres))]
    rows = [(i, "", g, ge, la) for i, g, ge, la in zip(ids, genres, attributes["gender"], attributes["language"])]
    metadata = write_tracks(folder, rows)
    order = np.random.default_rng(0).permutation(len(ids))  # rows of the .npy in another order
    np.save(folder / "emb.npy", x[order].astype(np.float32))
    (folder / "ids.txt").write_text("\n".join(ids[k] for k in order) + "\n")
    return metadata


def test_analyse_writes_tables_plots_and_the_debiasing_curve(tmp_path, capsys):
    metadata = write_embedding_inputs(tmp_path)
    out = tmp_path / "out"
    cli(["tcav", "analyse", "--metadata", str(metadata), "--embeddings", str(tmp_path / "emb.npy"),
         "--ids", str(tmp_path / "ids.txt"), "--out", str(out), "--runs", "60", "--concept", "gender=female",
         "--concept", "language=es", "--debias-genre", "hiphop", "--debias-steps", "11"])
    assert "gender=female (CAV accuracy" in capsys.readouterr().out
    report = json.loads((out / "tcav.json").read_text())
    assert report["n_tests"] == 8 and report["bonferroni_level"] == pytest.approx(0.05 / 8)
    hiphop = next(t for t in report["tests"] if t["concept"] == "gender=female" and t["genre"] == "hiphop")
    assert hiphop["significant"] and hiphop["direction"] == "negative" and hiphop["ci_high"] < 0.5
    with open(out / "tcav_scores.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 8 and {"p_value", "p_paper_ttest", "ci_low", "ci_high", "reliable_cav"} <= set(rows[0])
    with open(out / "debias.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 2 * 11
    assert np.load(out / "run_scores.npz")["scores"].shape == (60, 8)
    for name in ("tcav_gender_female.png", "tcav_language_es.png", "debias.png"):
        assert (out / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / ".symphony-bench-build").is_file()


def test_bad_input_gives_errors_naming_the_file_column_or_cell(tmp_path):
    metadata = write_tracks(tmp_path, [("a", "missing.wav", "pop", "female", "en")])
    with pytest.raises(DataFileError, match=r"missing\.wav does not exist"):
        cli(["tcav", "embed", "--metadata", str(metadata), "--encoder", "unused", "--cache", str(tmp_path / "c")])
    with pytest.raises(DataFileError, match=r"tracks\.csv: no column 'style'"):
        cli(["tcav", "embed", "--metadata", str(metadata), "--genre-column", "style", "--encoder", "unused",
             "--cache", str(tmp_path / "c")])
    (tmp_path / "missing.wav").write_bytes(b"not audio")
    with pytest.raises(DataFileError, match=r"missing\.wav: cannot read audio"):
        cli(["tcav", "embed", "--metadata", str(metadata), "--encoder", "unused", "--cache", str(tmp_path / "c")])
    assert not (tmp_path / "c").exists()

    metadata = write_embedding_inputs(tmp_path)
    common = ["tcav", "analyse", "--metadata", str(metadata), "--embeddings", str(tmp_path / "emb.npy"),
              "--ids", str(tmp_path / "ids.txt"), "--out", str(tmp_path / "out"), "--runs", "5"]
    with pytest.raises(ValueError, match=r"concept 'gender=female', cell 'hiphop': \d+ positive and \d+ other tracks"):
        cli(common + ["--concept", "gender=female", "--min-per-cell", "200"])
    with pytest.raises(DataFileError, match="no track has language='xx'"):
        cli(common + ["--concept", "language=xx"])
    (tmp_path / "ids.txt").write_text("t00000\n")
    with pytest.raises(DataFileError, match=r"ids\.txt: 1 track ids for 2400 embedding rows"):
        cli(common)
    assert not (tmp_path / "out").exists()


def test_muq_needs_its_package():
    pytest.importorskip("transformers")
    try:
        import muq  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="needs the 'muq' package"):
            probe.load_encoder("muq:OpenMuQ/MuQ-large-msd-iter")
    else:
        pytest.skip("muq is installed")
