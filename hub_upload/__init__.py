"""Dataset builders that write Hugging Face Hub layout folders (parquet + dataset card).

They import from symphony_bench only `plugin.core`, `metrics` and each other: never a harness
(lm_eval, lmms_eval) nor another plugin package.

- `commands`: their `symphony-bench` commands (`build <dataset>`, `import-upstream`); standard library only.
- `symphony_bias_text`: the text tasks' scenario templates, instruments and stereotype tables.
- `publish`: `symphony-bench publish`, any of these folders to the Hugging Face Hub in one commit.
- `symphony_bias_audio`, `fluidsynth_render`: the Symphony-Bias audio clips, rendered with FluidSynth.
- `symphony_bias_image`: the Symphony-Bias instrument photos with their licences.
- `upstream_release`: the Symphony-Bias release's own photos and recordings, in those two layouts.
- `openmic`: the instrument-grounding diagnostics from an OpenMIC-2018 release (`release`, `planning`, `writing`).
- `synthmic`: a synthetic archive in OpenMIC-2018's layout.
"""
