"""lm-eval task folders; pass this directory to `--include_path`."""
