"""lmms-eval model adapters of this package, each a thin subclass of a stock lmms-eval class that
cannot run every condition as shipped (Qwen2-Audio, LLaVA, Audio Flamingo 3, Qwen2.5-Omni:
docs/model-classes.md), a replay model, and the entry-point manifest that registers them without
importing them (the grounding floors have their own, plugin/grounding/manifests.py)."""
