import collections
import json
import re

import pytest

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.vocabulary import DATA_DIR, load_instruments
from symphony_bench.plugin.symphony_bias import prompts as likert_prompts
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.options import DEFAULT_SEED
from symphony_bench.plugin.symphony_bias.scenarios import (
    MINI_SCENARIOS,
    expand_templates,
    load_stereotypes,
    load_upstream_scenarios,
    scenario_set_sha256,
    select_scenarios,
)

GENDERED_WORDS = {
    "he",
    "she",
    "him",
    "her",
    "his",
    "hers",
    "himself",
    "herself",
    "man",
    "woman",
    "men",
    "women",
    "boy",
    "girl",
    "boys",
    "girls",
    "male",
    "female",
    "mother",
    "father",
    "mum",
    "mom",
    "dad",
    "son",
    "daughter",
    "brother",
    "sister",
    "husband",
    "wife",
    "boyfriend",
    "girlfriend",
    "king",
    "queen",
    "lady",
    "ladies",
    "gentleman",
    "gentlemen",
    "guy",
    "guys",
    "gal",
    "mr",
    "mrs",
    "ms",
    "miss",
    "sir",
    "madam",
    "aunt",
    "uncle",
    "niece",
    "nephew",
    "grandma",
    "grandpa",
    "grandmother",
    "grandfather",
    "actress",
    "waitress",
    "hostess",
    "businessman",
    "businesswoman",
    "fireman",
    "policeman",
    "chairman",
    "bride",
    "groom",
    "widow",
    "widower",
    "maiden",
    "lad",
    "lass",
    "bloke",
    "fellow",
    "sorority",
    "fraternity",
    "ballerina",
    "diva",
    "landlady",
    "landlord",
    "housewife",
    "spokesman",
    "sportsman",
}
PROPER_NOUNS_ALLOWED = {"French"}  # "French horn"


def words(text):
    return re.findall(r"[A-Za-z']+", text)


@pytest.fixture(scope="module")
def scenarios():
    return expand_templates(seed=DEFAULT_SEED)


def test_at_least_80_templates_and_221_distinct_scenarios(scenarios):
    templates = {s.template_id for s in scenarios}
    assert len(templates) >= 80
    assert len({s.text for s in scenarios}) == len(scenarios) >= 221


def test_no_gendered_words_anywhere_in_the_scenario_data(scenarios):
    spec = json.loads((DATA_DIR / "scenario_templates.json").read_text())
    texts = spec["templates"] + [f for values in spec["fillers"].values() for f in values]
    texts += [s.render(i) for s in scenarios for i in load_instruments()]
    found = {w for text in texts for w in words(text.lower()) if w in GENDERED_WORDS}
    assert not found


def test_no_names_capitalised_words_only_start_sentences(scenarios):
    for scenario in scenarios:
        for instrument in load_instruments():
            sentence = scenario.render(instrument)
            capitalised = {w for w in words(sentence)[1:] if w[0].isupper()}
            assert capitalised <= PROPER_NOUNS_ALLOWED, sentence


def test_the_22_instruments_with_correct_articles():
    instruments = {i.name: i.indefinite for i in load_instruments()}
    assert len(instruments) == 22
    assert instruments["harp"] == "a harp"
    assert instruments["oboe"] == "an oboe"
    assert instruments["drums"] == "drums"
    assert instruments["ukulele"] == "a ukulele"
    assert instruments["electric guitar"] == "an electric guitar"
    for phrase in instruments.values():
        article, _, noun = phrase.partition(" ")
        if article == "an":
            assert noun[0] in "aeio", phrase
        elif article == "a":
            assert noun[0] not in "aeio", phrase


def test_rendered_sentences_have_no_article_errors(scenarios):
    for scenario in scenarios:
        for instrument in load_instruments():
            sentence = scenario.render(instrument)
            assert not re.search(r"\ba [aeio]|\ban [^aeiou\s]|\b(a|an) drums\b", sentence, re.I), (
                sentence
            )


def test_default_stereotype_table_is_versioned_and_has_sources():
    table = load_stereotypes()
    assert len(table) == 22
    assert table["harp"].category == "female" and table["drums"].category == "male"
    assert table["tuba"].category == "none"
    assert all(row.source for row in table.values())
    code_table = load_stereotypes("upstream_code")
    assert code_table["violin"].category == "none" and code_table["oboe"].category == "female"


def test_user_stereotype_table_by_path_reaches_the_docs(tmp_path):
    rows = ["instrument,category,source"] + [
        f"{i.name},{'male' if i.name == 'harp' else 'none'},my survey" for i in load_instruments()
    ]
    path = tmp_path / "survey.csv"
    path.write_text("\n".join(rows) + "\n")
    docs = build_docs(Design(subset="mini"), stereotypes=str(path))
    harp = [d for d in docs if d["instrument"] == "harp"]
    assert harp and all(
        d["stereotype"] == "male" and d["stereotype_source"] == "my survey" for d in harp
    )


@pytest.mark.parametrize(
    "content, message",
    [
        ("instrument,category\nharp,female\n", "missing columns"),
        ("instrument,category,source\nkazoo,female,x\n", "unknown instrument 'kazoo'"),
        ("instrument,category,source\nharp,feminine,x\n", "category 'feminine'"),
        ("instrument,category,source\nharp,female,x\n", "no row for instruments"),
    ],
)
def test_bad_stereotype_tables_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataFileError, match=re.escape(str(path))) as error:
        load_stereotypes(path)
    assert message in str(error.value)


def test_missing_stereotype_file_names_the_file(tmp_path):
    with pytest.raises(DataFileError, match="nothere.csv"):
        load_stereotypes(tmp_path / "nothere.csv")


def test_upstream_importer_replaces_only_the_placeholder(tmp_path):
    path = tmp_path / "texts_with_taxonomy.json"
    texts = [
        "A person is playing an instrument near the instrument shop.",
        {"text": "An instrument is tuned by someone at dawn.", "taxonomy": {"place": "home"}},
        "Someone plays an instrument in an instrument shop.",
    ]
    path.write_text(json.dumps({"texts": texts}))
    scenarios = load_upstream_scenarios(path)
    drums = next(i for i in load_instruments() if i.name == "drums")
    assert [s.render(drums) for s in scenarios] == [
        "A person is playing drums near the instrument shop.",
        "Drums is tuned by someone at dawn.",
        "Someone plays drums in an instrument shop.",
    ]
    docs = build_docs(scenarios=str(path))
    assert (
        len(docs) == 3 * (22 + 1) and docs[0]["template_id"] == "upstream-000"
    )  # + one control doc each


def test_docs_name_their_scenario_set_by_content(tmp_path):
    path = tmp_path / "texts.json"
    path.write_text(json.dumps({"texts": ["A person tunes an instrument."]}))
    embedded, upstream = (
        build_docs(Design(subset="mini")),
        build_docs(scenarios=str(path)),
    )
    assert {doc["scenario_set_sha256"] for doc in embedded} == {
        scenario_set_sha256(select_scenarios("mini", None, 1234))
    }
    assert len({doc["scenario_set_sha256"] for doc in upstream}) == 1
    assert upstream[0]["scenario_set_sha256"] != embedded[0]["scenario_set_sha256"]
    path.write_text(json.dumps({"texts": ["A person tunes an instrument at noon."]}))
    assert (
        build_docs(scenarios=str(path))[0]["scenario_set_sha256"]
        != upstream[0]["scenario_set_sha256"]
    )


def test_texts_json_sentences_with_the_or_their_instrument_keep_their_determiner(tmp_path):
    path = tmp_path / "texts.json"
    texts = [
        "The instrument rests on a stand while the person reads.",
        "Someone carries their instrument to the instrument shop.",
        "The person leaves the instrument case open and picks up the instrument.",
        "A person tunes an instrument; the instrument sounds warm.",
    ]
    path.write_text(json.dumps({"texts": texts}))
    by_name = {i.name: i for i in load_instruments()}
    rendered = [
        [s.render(by_name[name]) for s in load_upstream_scenarios(path)]
        for name in ("harp", "drums")
    ]
    assert rendered == [
        [
            "The harp rests on a stand while the person reads.",
            "Someone carries their harp to the instrument shop.",
            "The person leaves the instrument case open and picks up the harp.",
            "A person tunes a harp; the instrument sounds warm.",
        ],
        [
            # the verb is the release's, as with "an instrument"
            "The drums rests on a stand while the person reads.",
            "Someone carries their drums to the instrument shop.",
            "The person leaves the instrument case open and picks up the drums.",
            "A person tunes drums; the instrument sounds warm.",
        ],
    ]
    control = [doc for doc in build_docs(scenarios=str(path)) if doc["instrument"] == ""]
    assert control[0]["scenario"] == "The instrument rests on a stand while the person reads."


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json", "expected a JSON object"),
        ('{"texts": []}', "non-empty"),
        ('{"texts": ["no slot here"]}', "texts[0]"),
        ('{"texts": ["at the instrument shop"]}', "texts[0]"),
    ],
)
def test_upstream_importer_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / "texts.json"
    path.write_text(content)
    with pytest.raises(DataFileError, match=re.escape(str(path))) as error:
        load_upstream_scenarios(path)
    assert message in str(error.value)


def test_docs_record_what_was_shown_and_are_reproducible():
    docs = build_docs(Design(prompt_variant=2, reasoning=False))
    again = build_docs(Design(prompt_variant=2, reasoning=False))
    assert docs == again
    doc = docs[0]
    for key in (
        "scenario_id",
        "template_id",
        "instrument",
        "stereotype",
        "prompt_variant",
        "gender_order",
        "seed",
    ):
        assert key in doc
    assert doc["prompt_variant"] == 2 and doc["reasoning"] is False
    for instrument in {d["instrument"] for d in docs}:  # balanced: every order 258 / 6 = 43 times
        orders = collections.Counter(
            tuple(d["gender_order"]) for d in docs if d["instrument"] == instrument
        )
        assert len(orders) == 6 and max(orders.values()) - min(orders.values()) <= 1, instrument
    for d in docs[:50]:
        people = [likert_prompts.PERSON[g] for g in d["gender_order"]]
        positions = [d["prompt"].index(p) for p in people]
        assert positions == sorted(positions)
        assert d["scenario"] in d["prompt"] and '"reason"' not in d["prompt"]
    other_seed = build_docs(symphony_seed=7)
    assert [d["gender_order"] for d in other_seed] != [d["gender_order"] for d in docs]


def test_prompt_variants_share_order_but_differ_in_wording():
    prompts = [build_docs(Design(prompt_variant=v, subset="mini")) for v in range(4)]
    assert len({p[0]["prompt"] for p in prompts}) == 4
    assert all(p[0]["gender_order"] == prompts[0][0]["gender_order"] for p in prompts)
    assert all('"reason"' in p[0]["prompt"] for p in prompts)


def test_each_scenario_gets_one_instrument_free_control_doc():
    docs = build_docs(Design(subset="mini"))
    controls = [d for d in docs if d["instrument"] == ""]
    assert len(controls) == MINI_SCENARIOS and {d["stereotype"] for d in controls} == {"none"}
    assert all("an instrument" in d["scenario"] and d["scenario"] in d["prompt"] for d in controls)


def test_mini_subset_spans_distinct_templates():
    docs = build_docs(Design(subset="mini"))
    assert len(docs) == MINI_SCENARIOS * (22 + 1)
    assert len({d["template_id"] for d in docs}) == MINI_SCENARIOS
