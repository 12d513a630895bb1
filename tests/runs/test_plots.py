"""Plots: every drawn array is read back from the figure (by the gid plots.py gives it) and compared
with a computation of our own from the JSON report, on planted data whose effects the plots must show."""

from __future__ import annotations

import json
import math
import re
from xml.etree import ElementTree

import numpy as np
import pytest
from support.runs import likert_sample, report_entry, write_samples

from symphony_bench.plugin.core.atomic import staged_outputs
from symphony_bench.plugin.grounding import figures as grounding_figures
from symphony_bench.plugin.grounding.records import CHOICE, choice_record
from symphony_bench.plugin.grounding.report import grounding_report
from symphony_bench.plugin.runs import plots
from symphony_bench.plugin.symphony_bias import figures as symphony_figures
from symphony_bench.plugin.symphony_bias.links import agreement_report
from symphony_bench.plugin.symphony_bias.records import LIKERT, LOGPROB, score_record
from symphony_bench.plugin.symphony_bias.summaries import task_report, truncation_summary

Z95 = 1.959963984540054
GENDERS = ("male", "female", "non_binary")
# instrument -> (stereotype, mean Likert score per gender); cello's answers are all invalid
PLANTED = {
    "harp": ("female", (1.5, 4.5, 3.0)),
    "drums": ("male", (4.5, 1.5, 3.0)),
    "flute": ("female", (3.0, 3.0, 3.0)),
    "violin": ("female", (3.0, 3.6, 3.0)),
    "cello": ("female", None),
}


def likert_records(seed: int, n_scenarios: int = 16, shift: float = 0.0) -> list[dict]:
    rng = np.random.default_rng(seed)
    records = []
    for scenario in range(n_scenarios):
        for instrument, (stereotype, means) in PLANTED.items():
            doc = {
                "scenario_id": f"s{scenario}",
                "instrument": instrument,
                "stereotype": stereotype,
            }
            if means is None:
                records.append(score_record(doc, [0, 0, 0], error="no_json"))
                continue
            planted = np.array(means) + np.array([shift, -shift, 0.0])
            scores = np.clip(np.rint(planted + rng.normal(0, 0.7, 3)), 1, 5).astype(int).tolist()
            records.append(score_record(doc, scores))
    return records


def likert_entry(seed: int = 0, **planted) -> dict:
    records = likert_records(seed, **planted)
    body = task_report(records)
    body["summary"].update(truncation_summary(records))
    return as_json(body)


def as_json(value):
    """What `--json` writes and a reader gets back (NaN would fail here)."""
    return json.loads(json.dumps(value, allow_nan=False))


def drawn(figure, gid: str):
    found = [
        artist for ax in figure.axes for artist in ax.get_children() if artist.get_gid() == gid
    ]
    assert len(found) == 1, f"{gid}: {len(found)} artists"
    return found[0]


def bars(figure, gid: str) -> list:
    return [patch for ax in figure.axes for patch in ax.patches if patch.get_gid() == gid]


def segments(collection) -> np.ndarray:
    """(n, 2, 2) end points of an hlines / vlines collection."""
    return np.array([segment for segment in collection.get_segments()], dtype=float).reshape(
        -1, 2, 2
    )


def tick_labels(axis) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels()]


# ---- Symphony-Bias -----------------------------------------------------------------------------
def test_gas_heatmap_draws_the_reports_gas_centred_at_zero_with_invalid_cells_masked():
    entry = likert_entry()
    figure = symphony_figures.gas_heatmap("symphony_bias_text", entry)
    image = drawn(figure, "heatmap")
    names = list(entry["instruments"])
    expected = [[entry["instruments"][name]["gas"][g] for g in GENDERS] for name in names]
    array = image.get_array()
    assert np.array_equal(array.mask, [[value is None for value in row] for row in expected])
    assert array.mask[names.index("cello")].all() and not array.mask[names.index("harp")].any()
    assert np.allclose(
        array.filled(np.nan), np.array(expected, dtype=float), equal_nan=True, rtol=0, atol=1e-12
    )
    low, high = image.get_clim()
    assert low == -high and high == pytest.approx(
        max(abs(v) for row in expected for v in row if v is not None)
    )
    texts = [text.get_text() for text in figure.axes[0].texts]
    assert texts == ["invalid" if v is None else f"{v:+.2f}" for row in expected for v in row]
    assert tick_labels(figure.axes[0].yaxis) == names
    # the planted effect reads off the picture: harp leans female, drums male
    assert array[names.index("harp"), 1] > 0 > array[names.index("harp"), 0]
    assert array[names.index("drums"), 0] > 0 > array[names.index("drums"), 1]


def test_abs_forest_is_sorted_with_the_reports_cis_and_holm_significant_ones_marked():
    entry = likert_entry()
    figure = symphony_figures.abs_forest("symphony_bias_text", entry)
    rows = sorted(
        ((name, row) for name, row in entry["instruments"].items() if row["abs"] is not None),
        key=lambda item: item[1]["abs"],
    )
    names = [name for name, _ in rows]
    assert tick_labels(figure.axes[0].yaxis) == names and "cello" not in names
    ci = segments(drawn(figure, "ci"))
    assert np.allclose(ci[:, :, 0], [row["abs_ci"] for _, row in rows]) and np.allclose(
        ci[:, 0, 1], range(len(rows))
    )
    significant = {name for name, row in rows if row["p_holm"] < 0.05}
    assert significant == {"harp", "drums"}  # the planted ones, not the null flute
    marked = drawn(figure, "significant").get_offsets()
    plain = drawn(figure, "points").get_offsets()
    assert sorted(names[int(y)] for y in marked[:, 1]) == sorted(significant)
    by_row = {int(y): x for x, y in np.vstack([marked, plain])}
    assert np.allclose([by_row[k] for k in range(len(rows))], [row["abs"] for _, row in rows])


def test_no_abs_forest_without_any_abs_and_no_heatmap_without_instruments():
    entry = as_json(
        task_report(
            [
                score_record(
                    {"scenario_id": "s0", "instrument": "cello", "stereotype": "female"},
                    [0, 0, 0],
                    error="no_json",
                )
            ]
        )
    )
    assert symphony_figures.abs_forest("t", entry) is None
    assert "GAS heatmap, t" in plots.report_figures([report_entry("t", entry)])
    assert "GAS heatmap, t" not in plots.report_figures(
        [report_entry("t", {**entry, "instruments": {}})]
    )


def test_invalid_rate_bars_show_each_tasks_rate_and_the_interval_its_entry_reports():
    entries = {
        # 44 templates: a text task's rate has an interval from 40 on (RATE_MIN_TEMPLATES)
        "symphony_bias_text": likert_entry(n_scenarios=44),
        "grounding_binary": as_json(grounding_report(choices(), CHOICE)),
    }
    kinds = {"symphony_bias_text": LIKERT, "grounding_binary": CHOICE}
    figure = plots.report_figures(
        [report_entry(label, body, kinds[label]) for label, body in entries.items()]
    )["Invalid rate per task"]()
    heights = [patch.get_width() for patch in bars(figure, "bars")]
    rates = [entry["summary"]["invalid_rate"] for entry in entries.values()]
    assert np.allclose(heights, rates) and rates[0] == pytest.approx(
        1 / 5
    )  # cello: 1 of 5 instruments
    likert_low, likert_high = entries["symphony_bias_text"]["summary"]["invalid_rate_ci"]
    grounding = entries["grounding_binary"]["summary"]
    grounding_half = Z95 * grounding["invalid_rate_stderr"]  # a share's normal interval
    ci = segments(drawn(figure, "ci"))
    assert np.allclose(
        ci[:, 0, 0], [max(0, likert_low), grounding["invalid_rate"] - grounding_half]
    )
    assert np.allclose(
        ci[:, 1, 0], [min(1, likert_high), grounding["invalid_rate"] + grounding_half]
    )


def test_the_invalid_rate_plot_draws_the_entrys_interval_not_one_of_its_own():
    """A t interval on five templates is wider than rate +- 1.96 stderr: the plot shows the one the
    entry reports."""
    reported = {"value": 0.3, "stderr": 0.05, "ci": [0.16, 0.44]}
    figure = plots.invalid_rate_bars([("t", reported), ("u", {**reported, "ci": [None, None]})])
    assert segments(drawn(figure, "ci")).tolist() == [[[0.16, 0.0], [0.44, 0.0]]]


def test_figures_with_nothing_to_draw_are_not_drawn():
    entry = likert_entry()
    for row in entry["instruments"].values():
        row["gas"] = dict.fromkeys(GENDERS)
    assert symphony_figures.gas_heatmap("all invalid", entry) is None
    agreement = {
        "protocols": ["likert", "logprob"],
        "instruments": {name: {"likert": None, "logprob": 0.1} for name in entry["instruments"]},
    }
    assert symphony_figures.agreement_scatter("logprob", "likert", agreement) is None


def test_agreement_scatter_plots_both_protocols_abs_and_states_the_statistics():
    likert, logprob = likert_entry(seed=1), likert_entry(seed=2, shift=0.3)
    agreement = as_json(agreement_report(likert, logprob))
    figure = symphony_figures.agreement_scatter(
        "symphony_bias_logprob", "symphony_bias_text", agreement
    )
    expected = [
        (likert["instruments"][n]["abs"], logprob["instruments"][n]["abs"])
        for n in likert["instruments"]
        if likert["instruments"][n]["abs"] is not None
    ]
    assert np.allclose(drawn(figure, "points").get_offsets(), expected)
    x, y = np.array(expected).T
    title = figure.axes[0].get_title()
    assert f"Pearson r {np.corrcoef(x, y)[0, 1]:.3f}" in title
    assert (
        f"sign agreement {np.mean(np.sign(x) == np.sign(y)):.3f}" in title
        and f"n={len(x)}" in title
    )


def test_modality_plot_pairs_text_with_audio_and_image_of_the_same_model_folder():
    text, audio, image = likert_entry(seed=3), likert_entry(seed=4, shift=1.0), likert_entry(seed=5)
    text_protocol = {"modality": "text", "condition": "named"}
    with_audio = {"modality": "audio", "condition": "stimulus"}
    with_image = {"modality": "image", "condition": "stimulus"}
    entries = [
        report_entry("a/symphony_bias_text", text, **text_protocol),
        report_entry("a/symphony_bias_audio", audio, **with_audio),
        report_entry("a/symphony_bias_image_mini", image, **with_image),
        report_entry("b/symphony_bias_text", text, **text_protocol),
        report_entry("c/symphony_bias_audio", audio, **with_audio),
    ]
    groups = symphony_figures.modality_groups(entries)
    assert list(groups) == ["a"] and list(groups["a"]) == ["text", "audio", "image"]
    no_abs = as_json(
        task_report(
            [
                score_record(
                    {"scenario_id": "s0", "instrument": "cello", "stereotype": "female"},
                    [0, 0, 0],
                    error="no_json",
                )
            ]
        )
    )
    without_abs = [
        report_entry("symphony_bias_text", no_abs, **text_protocol),
        report_entry("symphony_bias_audio", audio, **with_audio),
    ]
    assert symphony_figures.modality_groups(without_abs) == {}
    shown = {modality: (entry.label, entry.body) for modality, entry in groups["a"].items()}
    figure = symphony_figures.modality_abs(shown)
    names = [name for name, row in text["instruments"].items() if row["abs"] is not None]
    assert tick_labels(figure.axes[0].yaxis) == names
    for modality, entry in (("text", text), ("audio", audio), ("image", image)):
        points = drawn(figure, f"points_{modality}").get_offsets()
        assert np.allclose(points[:, 0], [entry["instruments"][n]["abs"] for n in names])
        ci = segments(drawn(figure, f"ci_{modality}"))
        assert np.allclose(ci[:, :, 0], [entry["instruments"][n]["abs_ci"] for n in names])
    # planted: audio answers pushed towards "male", so female-stereotyped instruments' ABS drops against text
    audio_x = dict(zip(names, drawn(figure, "points_audio").get_offsets()[:, 0], strict=True))
    text_x = dict(zip(names, drawn(figure, "points_text").get_offsets()[:, 0], strict=True))
    assert audio_x["harp"] < text_x["harp"] and audio_x["flute"] < 0 < audio_x["drums"]


# ---- instrument grounding ----------------------------------------------------------------------
def choices(n_clips: int = 30, seed: int = 0) -> list[dict]:
    """Yes/no items: the planted model says "yes" 80% of the time whatever the gold."""
    rng = np.random.default_rng(seed)
    records = []
    for clip in range(n_clips):
        for gold in (0, 0, 1):
            chosen = -1 if rng.random() < 0.1 else int(rng.random() > 0.8)
            records.append(
                choice_record("yes_no", gold, chosen, ["yes", "no"], "", f"{clip:03d}_0")
            )
    return records


def confusable_choices() -> list[dict]:
    """Letter items of group "plucked", options in both orders: banjo is answered "guitar" (or
    unreadably), guitar always right."""
    records = []
    for clip in range(12):
        records.append(
            choice_record("letter", 0, 0, ["guitar", "banjo"], "plucked", f"{clip:03d}_0")
        )
        records.append(
            choice_record("letter", 1, 0, ["guitar", "banjo"], "plucked", f"{clip:03d}_1")
        )
        records.append(
            choice_record(
                "letter",
                0,
                -1 if clip % 4 == 0 else 1,
                ["banjo", "guitar"],
                "plucked",
                f"{clip:03d}_2",
            )
        )
    return records


def test_grounding_entry_holds_the_gold_share_and_prediction_stderrs_per_option():
    records = choices()
    entry = as_json(grounding_report(records, CHOICE))
    assert entry["interface"] == "yes_no"
    assert entry["gold_rates"] == {"yes": pytest.approx(2 / 3), "no": pytest.approx(1 / 3)}
    valid = [record for record in records if record["chosen"] >= 0]
    yes = np.array([record["chosen"] == 0 for record in valid], dtype=float)
    clip_sums = {}
    for record, flag in zip(valid, yes - yes.mean(), strict=True):
        clip_sums[record["clip"]] = clip_sums.get(record["clip"], 0.0) + flag
    g = len(clip_sums)
    clustered = math.sqrt(g / (g - 1) * sum(v * v for v in clip_sums.values())) / len(valid)
    assert entry["prediction_rates"]["yes"] == pytest.approx(yes.mean())
    assert entry["prediction_rate_stderrs"]["yes"] == pytest.approx(clustered)


def test_prediction_distribution_draws_answer_and_gold_shares_with_cis():
    entry = as_json(grounding_report(choices(), CHOICE))
    figure = grounding_figures.prediction_distribution("grounding_binary", entry)
    rates = np.array(list(entry["prediction_rates"].values()))
    stderrs = np.array(list(entry["prediction_rate_stderrs"].values()))
    assert np.allclose([p.get_height() for p in bars(figure, "bars")], rates)
    assert np.allclose(
        [p.get_height() for p in bars(figure, "gold")], list(entry["gold_rates"].values())
    )
    ci = segments(drawn(figure, "ci"))
    assert np.allclose(
        ci[:, :, 1], np.clip(np.column_stack([rates - Z95 * stderrs, rates + Z95 * stderrs]), 0, 1)
    )
    assert (
        tick_labels(figure.axes[0].xaxis) == ["yes", "no"]
        and figure.axes[0].get_xlabel() == "yes / no"
    )
    assert rates[0] > entry["gold_rates"]["yes"]  # the planted yes-bias shows


def test_confusion_heatmap_draws_the_row_normalised_shares():
    entry = as_json(grounding_report(confusable_choices(), CHOICE))
    rows = entry["confusion"]["plucked"]
    figure = grounding_figures.confusion_heatmap("grounding_confusable_ab", "plucked", rows)
    answers = tick_labels(figure.axes[0].xaxis)
    assert answers == ["(invalid)", "guitar"] and tick_labels(figure.axes[0].yaxis) == [
        "banjo",
        "guitar",
    ]
    # by hand: banjo gold (24 docs) -> 3 unreadable, 21 "guitar"; guitar gold (12 docs) -> "guitar"
    assert np.allclose(drawn(figure, "heatmap").get_array(), [[3 / 24, 21 / 24], [0, 1]])


# ---- compare -----------------------------------------------------------------------------------
def test_change_forest_sorts_changes_marks_p_below_005_and_skips_missing_changes():
    rows = [
        {
            "metric": "mean_abs",
            "task": "symphony_bias_text",
            "change": 0.05,
            "ci_low": 0.02,
            "ci_high": 0.08,
            "p": 0.001,
        },
        {
            "metric": "accuracy",
            "task": "grounding_binary",
            "change": -0.01,
            "ci_low": -0.04,
            "ci_high": 0.02,
            "p": 0.5,
        },
        {
            "metric": "f1",
            "task": "grounding_multilabel_30s",
            "change": None,
            "ci_low": None,
            "ci_high": None,
            "p": None,
        },
        {
            "metric": "invalid_rate",
            "task": "symphony_bias_text",
            "change": 0.0,
            "ci_low": None,
            "ci_high": None,
            "p": None,
        },
    ]
    figure = plots.change_forest(rows)
    assert tick_labels(figure.axes[0].yaxis) == [
        "grounding_binary: accuracy",
        "symphony_bias_text: invalid_rate",
        "symphony_bias_text: mean_abs",
    ]
    assert np.allclose(drawn(figure, "significant").get_offsets(), [[0.05, 2]])
    assert np.allclose(drawn(figure, "points").get_offsets(), [[-0.01, 0], [0.0, 1]])
    assert np.allclose(
        segments(drawn(figure, "ci")), [[[-0.04, 0], [0.02, 0]], [[0.02, 2], [0.08, 2]]]
    )
    assert plots.change_forest(rows[2:3]) is None


@pytest.mark.slow  # draws and saves a 110-row forest plot twice
def test_change_forest_title_is_placed_without_measuring_every_row_and_draws_the_same(tmp_path):
    """A full suite has ~110 rows: the title is given its place (the axes top: nothing is drawn
    above the axes) instead of matplotlib measuring every tick label to find it, on every draw."""
    rows = [
        {
            "metric": f"metric_{k}",
            "task": f"task_{k % 7}",
            "change": 0.01 * (k - 50),
            "ci_low": 0.01 * (k - 53),
            "ci_high": 0.01 * (k - 47),
            "p": 0.5 if k % 3 else 0.01,
        }
        for k in range(110)
    ]
    figure = plots.change_forest(rows)
    assert figure.axes[0]._autotitlepos is False  # matplotlib skips _update_title_position
    figure.savefig(tmp_path / "fixed.png")
    placed = figure.axes[0].title.get_window_extent().bounds
    automatic = plots.change_forest(rows)
    automatic.axes[0]._autotitlepos = True  # as matplotlib places a title by default
    automatic.savefig(tmp_path / "automatic.png")
    assert automatic.axes[0].title.get_window_extent().bounds == placed
    assert (tmp_path / "fixed.png").read_bytes() == (tmp_path / "automatic.png").read_bytes()


# ---- files and links ---------------------------------------------------------------------------
@pytest.mark.slow  # renders eight report plots as PNG and SVG
def test_report_plots_are_written_as_png_and_svg_and_linked_relative_to_the_markdown(tmp_path):
    import matplotlib.image

    likert = likert_entry()
    logprob = likert_entry(seed=9)
    logprob["agreement"] = {"symphony_bias_text": as_json(agreement_report(likert, logprob))}
    entries = [
        report_entry("symphony_bias_text", likert),
        report_entry("symphony_bias_logprob", logprob, LOGPROB),
        report_entry(
            "grounding_confusable_ab",
            as_json(grounding_report(confusable_choices(), CHOICE)),
            CHOICE,
        ),
    ]
    written = plots.write_report_plots(entries, tmp_path / "report_plots")
    assert set(written) == {
        "GAS heatmap, symphony_bias_text",
        "ABS forest plot, symphony_bias_text",
        "GAS heatmap, symphony_bias_logprob",
        "ABS forest plot, symphony_bias_logprob",
        "Likert vs log-prob ABS, symphony_bias_logprob vs symphony_bias_text",
        "Answer distribution, grounding_confusable_ab",
        "Confusion, grounding_confusable_ab, group plucked",
        "Invalid rate per task",
    }
    for png, svg in written.values():
        pixels = matplotlib.image.imread(png)
        assert (
            pixels.shape[0] > 100 and pixels[..., :3].std() > 0.05
        )  # a drawn picture, not a blank canvas
        assert ElementTree.parse(svg).getroot().tag.endswith("svg")
    heatmap_svg = ElementTree.parse(written["GAS heatmap, symphony_bias_text"][1])
    assert any(element.get("id") == "heatmap" for element in heatmap_svg.iter())
    lines = plots.markdown_links(written, tmp_path)
    png, svg = written["Invalid rate per task"]
    assert (
        f"![Invalid rate per task](report_plots/{png.name})" in lines
        and f"[SVG](report_plots/{svg.name})" in lines
    )
    assert len({path.name for files in written.values() for path in files}) == 2 * len(written)


def test_report_plots_section_links_the_plots_of_a_built_report_beside_its_markdown(tmp_path):
    from symphony_bench.plugin.runs.report import build_report

    samples = [
        likert_sample(f"s{k}", name, category, scores)
        for k in range(4)
        for name, category, scores in (("harp", "female", [1, 5, 3]), ("drums", "male", [5, 1, 3]))
    ]
    write_samples(
        tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl",
        samples,
    )
    markdown = tmp_path / "out" / "report.md"
    with staged_outputs() as outputs:
        lines = plots.report_plots_section(
            list(build_report(tmp_path / "run").entries.values()), markdown, outputs
        )
    linked = re.findall(r"\]\(([^)]+)\)", "\n".join(lines))
    assert (
        len(linked) == 2 * 3
    )  # GAS heatmap, ABS forest plot, invalid rate: PNG shown + SVG linked
    assert all(
        (markdown.parent / link).is_file() and link.startswith("report_plots/") for link in linked
    )
    rows = [
        {"metric": "mean_abs", "task": "t", "change": 0.1, "ci_low": 0.0, "ci_high": 0.2, "p": 0.04}
    ]
    with staged_outputs() as outputs:
        section = plots.compare_plots_section(rows, tmp_path / "pr.md", outputs)
    compare_links = re.findall(r"\]\(([^)]+)\)", "\n".join(section))
    assert compare_links and all(
        (tmp_path / link).is_file() and link.startswith("pr_plots/") for link in compare_links
    )
