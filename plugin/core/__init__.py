"""What every part of symphony-bench shares: errors and CSV reading, atomic writes, Hub-layout folders,
audio encoding, option parsing and the vocabulary (genders, categories, instruments, OpenMIC classes,
time ranges). A leaf: it imports no harness, no builder and no benchmark package."""
