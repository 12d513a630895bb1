"""The recognition control's reader: the first line of the answer after any reasoning."""

from __future__ import annotations

from symphony_bench.plugin.core.dataset_source import task_yaml
from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.symphony_bias.recognition import RECOGNITION_STOP, recognition_record

DOC = {
    "instrument": "harp",
    "stimulus_id": "harp-0",
    "modality": "audio",
    "condition": "recognition",
}


def test_the_stop_sequence_is_the_yamls():
    for modality in ("audio", "image"):
        config = task_yaml(
            tasks_path("lmms-eval")
            / "symphony_bias_multimodal"
            / f"symphony_bias_{modality}_recognition.yaml"
        )
        assert tuple(config["generation_kwargs"]["until"]) == RECOGNITION_STOP


def test_trailing_text_after_the_first_line_is_not_read():
    """A chat class that ignores `until` writes on: "Harp\\n... the guitar." names one instrument."""
    record = recognition_record(DOC, "Harp\nI can also hear a guitar in the background.")
    assert record["recognised"] and record["named"] == ["harp"]
    assert recognition_record(DOC, "\nThe harp.")["recognised"]
    assert not recognition_record(DOC, "Guitar\nor maybe a harp")["recognised"]


def test_the_answer_after_the_reasoning_is_read_and_an_unfinished_one_names_nothing():
    record = recognition_record(DOC, "<think>A guitar? No, plucked strings: a harp.</think>\nHarp")
    assert record["recognised"] and record["named"] == ["harp"] and record["reasoning_chars"] > 0
    record = recognition_record(DOC, "<think>A guitar? No, plucked strings")
    assert not record["recognised"] and record["named"] == [] and record["reasoning_unfinished"]


def test_an_empty_answer_is_invalid_empty():
    for answer in ("", "  \n\t"):
        record = recognition_record(DOC, answer)
        assert record["error"] == "empty" and not record["recognised"], answer
    assert recognition_record(DOC, "Harp")["error"] == ""
    assert recognition_record(DOC, "<think>A harp?")["error"] == ""  # reasoning_unfinished instead
    assert recognition_record(DOC, "<think>Which one?</think>\n  ")["error"] == ""  # likewise
