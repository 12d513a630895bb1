"""`torchrun --nproc_per_node N cpu_data_parallel.py <lm_eval arguments>`: lm-eval's own CLI, data
parallel on CPUs, for the data-parallel tests.

lm-eval's `hf` model splits the docs across processes only when it counts more than one GPU, so on a
CPU-only machine every process would run every doc. `hf_cpu_data_parallel` is `hf` with the split
the stock class does on GPUs: rank and world size from the accelerator that it already created.
(Accelerate picks its gloo CPU backend with ACCELERATE_USE_CPU=1.)
"""

from lm_eval.__main__ import cli_evaluate
from lm_eval.api.registry import register_model
from lm_eval.models.huggingface import HFLM


@register_model("hf_cpu_data_parallel")
class CpuDataParallelHFLM(HFLM):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        accelerator = getattr(
            self, "accelerator", None
        )  # set by HFLM when the launch has > 1 process
        if accelerator is not None:
            self._rank, self._world_size = (
                accelerator.local_process_index,
                accelerator.num_processes,
            )


if __name__ == "__main__":
    cli_evaluate()
