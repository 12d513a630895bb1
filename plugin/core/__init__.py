"""What every part of symphony-bench shares: errors and CSV reading, atomic writes, Hub-layout folders,
audio encoding, option parsing, the vocabulary (genders, categories, instruments, OpenMIC classes,
time ranges), the task folders, run facts, the record checks, number formats, the figures' drawing
primitives and the protocol between the benchmarks and the run tooling (`sections`). A leaf: it
imports no harness, no builder and no other plugin package."""
