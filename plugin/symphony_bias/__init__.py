"""Symphony-Bias: do models tie musical instruments to a gender? Harness glue for the text Likert,
open-ended and log-prob tasks (lm-eval) and the audio / image tasks with their controls (lmms-eval),
and the benchmark's section of the run tooling.

    scenarios    stereotype tables, scenario sentences, the fields of a doc
    docs         the one doc builder of every task, the variant passed in as a Design
    prompts      the Likert prompt and its paraphrased wordings; the open-ended wordings
    parser       the Likert JSON answer -> one value per gender, or an invalid reason
    person_reference  an open-ended story -> who it makes the scenario's person (male, female,
                 neutral), or why none was read (no reference, unreadable, refused, empty), with
                 the evidence's spans; its parts: person_text (quotes, accents, tokens with
                 offsets), person_anchor (the scenario's role noun), person_places (where a
                 word stands), person_walk (the walk), person_words and given_names (the words
                 and names it knows)
    options      the user options (scenarios, stereotypes, symphony_seed, ...)
    records      per-doc records and the Likert aggregations
    text         lm-eval text Likert and open-ended tasks: datasets, filters, scoring
    text_data    where the text tasks' scenario set comes from
    logprob      lm-eval log-probability task: dataset, choices, scoring, raw and calibrated aggregations
    multimodal   lmms-eval audio / image Likert and open-ended tasks: stimulus sets, docs and inputs
    recognition  lmms-eval recognition control
    summaries    the report's entry bodies: GAS/ABS tables, headline numbers, per-task statistics
    links        what links the tasks of one model folder: agreement, vs_baseline, recognised-only,
                 common instruments
    markdown     the report's Markdown: overview, mitigation table, each entry
    report       the section of the run tooling (its slots assembled), leaderboard columns, plan's size
    compare      the paired comparison of two runs (`symphony-bench compare`)
    figures      the report's GAS, ABS, agreement and modality plots
"""
