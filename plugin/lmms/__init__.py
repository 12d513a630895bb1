"""lmms-eval model adapters of this package (Qwen2-Audio on the CPU, a replay model) and the entry-point
manifests that register them and the grounding floors without importing them."""
