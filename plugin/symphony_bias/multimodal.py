"""lmms-eval glue for the Symphony-Bias audio and image tasks and their controls.

Four conditions per modality, all on the same scenarios and stimuli:

    stimulus     "an instrument" + a hint (docs.STIMULUS_HINT), stimulus attached: any gender
                 association comes from what the model hears or sees
    no_stimulus  the same prompts with nothing attached: the floor (what the prompt alone does)
    named        the instrument named in the text, nothing attached (the text protocol, same model)
    recognition  "Which instrument is this?" per stimulus, answer mapped to the 22 names (`recognition`)

lmms-eval's doc_to_visual sees only the doc, so docs stay small and carry where their stimulus lives
(`stimulus_source`, `stimulus_index`); the stimulus set is read once per process. The stimulus set is
a folder built by `symphony-bench build symphony-bias-audio|symphony-bias-image` (or `import-upstream`)
or a Hub repo id in the same layout, named by the option `audio` / `image` (for lmms-eval, which has
no --metadata: $SYMPHONY_AUDIO / $SYMPHONY_IMAGE).

Referenced from tasks/lmms_eval/symphony_bias_multimodal/*.yaml by
`!function symphony_bench.plugin.symphony_bias.multimodal.<name>`. lmms-eval loads a dataset before
`process_docs`: each task's YAML loads its variant file (variants/<task>.csv, one row naming the
modality, condition and subset), which `likert_docs` replaces with the task's docs.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import datasets
from PIL import Image, ImageOps

from symphony_bench.plugin.core.audio import checked_audio_input
from symphony_bench.plugin.core.dataset_digest import checked_image_bytes
from symphony_bench.plugin.core.dataset_source import DatasetSource, pinned_dataset, resolve
from symphony_bench.plugin.core.errors import DataFileError, announced
from symphony_bench.plugin.core.hub_folder import open_folder
from symphony_bench.plugin.core.model_classes import refuse_known_failures
from symphony_bench.plugin.core.options import given_options, read_options
from symphony_bench.plugin.core.vocabulary import load_instruments
from symphony_bench.plugin.symphony_bias.default_audio import build_default_audio
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.options import STIMULUS_OPTIONS, TEXT_OPTIONS
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT_METRICS,
    NO_REFERENCE_METRICS,
    REFUSAL_METRICS,
    likert_record,
    open_record,
    read_likert,
    read_open,
)
from symphony_bench.plugin.symphony_bias.stimulus_ids import image_id_fields, stimulus_id_of


@dataclass(frozen=True)
class Modality:
    name: str
    id_column: str
    media_column: str
    hash_column: str  # the hash of the media its builder recorded, checked where it is decoded
    recognition_question: str


MODALITIES = {
    "audio": Modality(
        "audio",
        "clip_id",
        "audio",
        "pcm_sha256",
        "Which musical instrument is playing in this audio clip? Answer with the name of the instrument only.",
    ),
    "image": Modality(
        "image",
        "image_id",
        "image",
        "sha256",
        "Which musical instrument is shown in this image? Answer with the name of the instrument only.",
    ),
}


IMPORTED_SUBFOLDER = {
    "audio": "audio",
    "image": "images",
}  # what `import-upstream --out DIR` writes in DIR


STIMULUS_SET_YAML = {
    "audio": "lmms_eval/symphony_bias_multimodal/_audio_likert_yaml",
    "image": "lmms_eval/symphony_bias_multimodal/_image_likert_yaml",
}

# the modalities whose pinned set the package can rebuild offline (images need the user's photos)
PINNED_SET_BUILDERS = {"audio": build_default_audio}


def stimulus_source(modality: Modality) -> DatasetSource:
    """The option's folder or repo id, else the Hub repo pinned in the task YAML. `import-upstream`'s
    output folder stands for its subfolder."""
    option = STIMULUS_OPTIONS[modality.name]
    value = read_options((option,))[option.name]
    how_to_build = (
        f"build it locally with `symphony-bench build symphony-bias-{modality.name} --out DIR` (or "
        f"`symphony-bench import-upstream`) and set {option.variable}=DIR (lm-eval: --metadata {option.name}=DIR)"
    )
    pinned = pinned_dataset(STIMULUS_SET_YAML[modality.name])

    def data_folder(folder: Path) -> Path:
        imported = folder / IMPORTED_SUBFOLDER[modality.name]
        return (
            imported if not (folder / "data").is_dir() and (imported / "data").is_dir() else folder
        )

    build_pinned = PINNED_SET_BUILDERS.get(modality.name)
    return resolve(value, pinned, how_to_build, locate=data_folder, build_pinned=build_pinned)


@lru_cache(maxsize=4)
def stimulus_table(source: str, modality_name: str) -> datasets.Dataset:
    """The stimulus set at `source`, read once per process and checked for the columns we use."""
    modality = MODALITIES[modality_name]
    table = open_folder(Path(source), f"a symphony-bias-{modality_name} set")
    wanted = {"instrument", modality.id_column, modality.media_column, modality.hash_column}
    missing = wanted - set(table.column_names)
    if missing:
        raise DataFileError(
            f"{source}: not a symphony-bias-{modality_name} set (missing columns {sorted(missing)})"
        )
    # the stored bytes, undecoded: they are checked against the row's hash before use
    feature = {"audio": datasets.Audio, "image": datasets.Image}[modality_name](decode=False)
    return table.cast_column(modality.media_column, feature)


def stimuli(modality: Modality) -> list[dict]:
    """(instrument, stimulus_id, index, source) of every stimulus, in the set's order."""
    source = stimulus_source(modality)
    table = stimulus_table(str(source.folder), modality.name)
    instruments, ids = table["instrument"], table[modality.id_column]
    unknown = sorted(set(instruments) - {instrument.name for instrument in load_instruments()})
    if unknown:
        raise DataFileError(f"{source.folder}: instruments not among the 22: {unknown}")
    origins = stimulus_origins(table, modality.name)
    id_fields = image_id_fields if modality.name == "image" else _plain_id
    given = given_options((*TEXT_OPTIONS, STIMULUS_OPTIONS[modality.name]))
    return [
        {
            "instrument": instrument,
            **id_fields(stimulus_id),
            "stimulus_index": index,
            "stimulus_source": str(source.folder),
            "stimulus_origin": origin,
            "task_options": given,
            **source.facts(),
        }
        for index, (instrument, stimulus_id, origin) in enumerate(
            zip(instruments, ids, origins, strict=True)
        )
    ]


def _plain_id(stimulus_id: str) -> dict[str, str]:
    return {"stimulus_id": stimulus_id}


def stimulus_origins(table: datasets.Dataset, modality_name: str) -> list[str]:
    """Where each stimulus came from: the set's `stimulus_origin` column where it has one (a phrase
    build: synth-phrase); else a FluidSynth build of random notes (it records the `notes`):
    synth-random; else the upstream release's files (`import-upstream`): upstream; an image set:
    photos."""
    if "stimulus_origin" in table.column_names:
        return list(table["stimulus_origin"])
    if modality_name == "image":
        origin = "photos"
    else:
        origin = "synth-random" if "notes" in table.column_names else "upstream"
    return [origin] * table.num_rows


def condition_docs(design: Design) -> list[dict]:
    """The docs of one Likert condition of an audio / image task: stimulus x scenario
    (plugin.symphony_bias.docs), with the stimulus set and options the environment names."""
    shown = None if design.condition == "named" else stimuli(MODALITIES[design.modality])
    return build_docs(design, **read_options(TEXT_OPTIONS), stimuli=shown)


@announced
def likert_docs(variant: datasets.Dataset) -> datasets.Dataset:
    """`process_docs` of every audio / image Likert and open-ended task: the docs of the condition
    its YAML's variant file names (one row: modality, condition, subset, and the protocol where it
    is not the Likert question)."""
    (row,) = variant
    design = Design(
        protocol=row.get("protocol") or "likert",
        modality=row["modality"],
        condition=row["condition"],
        subset=row["subset"],
    )
    return datasets.Dataset.from_list(condition_docs(design))


# ---- what the model is shown -------------------------------------------------------------------
def _stimulus_row(doc: dict, modality_name: str) -> dict:
    modality = MODALITIES[modality_name]
    row = stimulus_table(doc["stimulus_source"], modality_name)[doc["stimulus_index"]]
    if row[modality.id_column] != stimulus_id_of(doc):
        raise DataFileError(
            f"{doc['stimulus_source']}: row {doc['stimulus_index']} is {row[modality.id_column]!r}, "
            f"expected {stimulus_id_of(doc)!r} (the set changed after the docs were built)"
        )
    return row


def audio_visual(doc: dict) -> list[dict]:
    """lmms-eval's audio input: [{"array", "sampling_rate", "type": "audio"}], or [] for the
    controls; the clip's samples must be the ones its row records (`pcm_sha256`). A stock model
    class known to fail on these docs stops here, naming the adapter to use."""
    refuse_known_failures(doc["attach"])
    if not doc["attach"]:
        return []
    row = _stimulus_row(doc, "audio")
    where = f"{doc['stimulus_source']}: clip {stimulus_id_of(doc)}"
    return checked_audio_input(row["audio"]["bytes"], row["pcm_sha256"], where)


def image_visual(doc: dict) -> list[Image.Image]:
    """The image, upright (its stored bytes keep their EXIF orientation), as RGB; [] for the
    controls. Its bytes must be the ones its row records (`sha256`). A stock model class known to
    fail on these docs stops here, naming the adapter to use."""
    refuse_known_failures(doc["attach"])
    if not doc["attach"]:
        return []
    row = _stimulus_row(doc, "image")
    where = f"{doc['stimulus_source']}: image {stimulus_id_of(doc)}"
    data = checked_image_bytes(row["image"]["bytes"], row["sha256"], where)
    return [ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")]


# ---- scoring (the aggregations are in `records`) ------------------------------------------------
def process_likert(doc: dict, results: list) -> dict:
    record = likert_record(doc, read_likert(results[0] if results else ""))
    return {metric: record for metric in (*LIKERT_METRICS, *REFUSAL_METRICS)}


OPEN_METRICS = (*LIKERT_METRICS, *REFUSAL_METRICS, *NO_REFERENCE_METRICS)


def process_open(doc: dict, results: list) -> dict:
    record = open_record(doc, read_open(results[0] if results else "", doc.get("scenario")))
    return {metric: record for metric in OPEN_METRICS}
