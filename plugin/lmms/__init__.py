"""lmms-eval model adapters of this package (Qwen2-Audio on the CPU, a replay model) and the
entry-point manifest that registers them without importing them (the grounding floors have their
own, plugin/grounding/manifests.py)."""
