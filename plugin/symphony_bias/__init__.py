"""Symphony-Bias: do models tie musical instruments to a gender? Harness glue for the text Likert and
log-prob tasks (lm-eval) and the audio / image tasks with their controls (lmms-eval), and the
report section.

    scenarios    stereotype tables, scenario sentences, the fields of a doc
    prompts      the Likert prompt and its paraphrased wordings
    parser       the Likert JSON answer -> one value per gender, or an invalid reason
    options      the user options (scenarios, stereotypes, symphony_seed, ...)
    records      per-doc records and the Likert aggregations
    text         lm-eval text Likert tasks: docs, filter, scoring
    logprob      lm-eval log-probability task: docs, choices, scoring, raw and calibrated aggregations
    multimodal   lmms-eval audio / image Likert tasks: stimulus docs and inputs
    recognition  lmms-eval recognition control
    report       the Symphony-Bias section of `symphony-bench report`
"""
