"""JSON schemas of the export formats, each written from its documentation (shared by
test_export.py and test_leaderboard.py's real-run check)."""

# Hugging Face's leaderboard template (huggingface.co/spaces/demo-leaderboard/leaderboard, README.md,
# "Results files should have the following format"): {"config": {"model_dtype": "torch.float16" (or
# torch.bfloat16, 8bit, 4bit), "model_name": "org/model", "model_sha": "revision on the hub"},
# "results": {"task_name": {"metric_name": score}}}. The template skips a task whose score is None.
HF_LEADERBOARD_SCHEMA = {
    "type": "object",
    "required": ["config", "results"],
    "additionalProperties": False,
    "properties": {
        "config": {
            "type": "object",
            "required": ["model_dtype", "model_name", "model_sha"],
            "additionalProperties": False,
            "properties": {
                "model_dtype": {"type": ["string", "null"], "pattern": r"^(torch\.\w+|8bit|4bit)$"},
                "model_name": {"type": "string", "minLength": 1},
                "model_sha": {"type": ["string", "null"]},
            },
        },
        "results": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "additionalProperties": {"type": ["number", "null"]},
            },
        },
    },
}
# The Hub's model evaluation results (huggingface.co/docs/hub/eval-results, "Adding Evaluation
# Results"): a YAML file in the model repo's .eval_results/ folder holding a list of entries:
# dataset.id (required, Hub dataset id), dataset.task_id (required), dataset.revision (optional),
# value (required, the metric value), verifyToken, date, source {url (required if source), name,
# user} and notes (optional, details of the evaluation setup).
EVAL_RESULTS_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["dataset", "value"],
        "additionalProperties": False,
        "properties": {
            "dataset": {
                "type": "object",
                "required": ["id", "task_id"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[\w.-]+/[\w.-]+$"},
                    "task_id": {"type": "string", "minLength": 1},
                    "revision": {"type": "string"},
                },
            },
            "value": {"type": "number"},
            "verifyToken": {"type": "string"},
            "date": {"type": "string"},
            "source": {
                "type": "object",
                "required": ["url"],
                "properties": {
                    "url": {"type": "string"},
                    "name": {"type": "string"},
                    "user": {"type": "string"},
                },
            },
            "notes": {"type": "string"},
        },
    },
}
