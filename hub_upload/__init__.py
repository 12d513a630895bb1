"""Dataset builders that write Hugging Face Hub layout folders (parquet + dataset card)."""
