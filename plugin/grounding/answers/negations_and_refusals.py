"""Negations and refusals in grounding answers, read before the marks (cleaning.prepared_answer).

Both work on the spelled-out answer: ASCII, lower case, contractions spelled out ("can't" -> "can
not", "I'd" -> "i would"), punctuation still there.

Negations. Models deny an instrument in words the mark reader has no mark for: "I am unable to
detect a piano", "I failed to hear any piano", "Nowhere do I hear a piano", "There is hardly any
piano", "I'd be surprised if there were a piano", "It is unlikely that there is a piano", "the piano
is inaudible". `spelled_negations` rewrites them into words it reads ("can not detect", "did not
hear", "never", "not any", "i do not think", "not audible"); "hardly" / "barely" other than before
"any" ("I can barely hear a piano": faint, so there?) becomes a hedge.

Refusals. An answer that declines the task or says the audio never reached the model is no answer,
neither yes nor no: "I can't help with that", "As a text-only model, I cannot listen to audio", "I
cannot process audio", "No audio.", "I don't see any audio attached", "Please provide the audio". A
refusal is about the task or the model's ability in general: a statement that names what it does
not hear ("I can't hear a piano", "I can't hear it", "I can't hear anything", "I'm unable to detect
any drums") is a negation and is read as one; "I can't tell", "impossible to say" are hedges (the
core refusal reader, plugin.core.refusals, counts those acts: it reads Likert answers, where a
declined rating of gender is the point). `without_refusals` finds the parts of an answer that refuse
(a refusal runs to the end of its part: ". ; ! ? : , newline", "but", "so", "because"...) and puts a
clause end in their place; the reader reads the rest, which is an answer only where it names an
option (yes_no, sets): "I cannot listen to audio, but there is no piano" is no, "I cannot listen to
audio, so no" and "No audio." are refusals.

Speed: each pass is one regular expression whose branches start at a literal letter, with bounded
repeats; refusals are looked for in the first _HEAD_CHARS characters (refusals say so up front), as
in plugin.core.refusals.
"""

from __future__ import annotations

import re

_HEAD_CHARS = 600


def _any(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


# ---- negations -------------------------------------------------------------------------------------
_PERCEIVE = _any(
    *"hear detect notice find identify spot discern perceive recognize recognise".split(),
    r"make\s+out",
    r"pick\s+out",
)


def _starting(word: str) -> str:
    """`word` at the start of a word, written so that `re` skips to it (a literal comes first)."""
    return f"{word}(?<![a-z]{word})"


_NEGATIONS = (  # (a word the pattern holds, pattern, replacement), in the order applied
    ("nowhere", rf"{_starting('out')}\s+of\s+nowhere\b", "suddenly"),
    ("nowhere", rf"{_starting('nowhere')}\s+near\b", "far from"),
    ("nowhere", rf"{_starting('nowhere')}\b", "never"),
    ("unable", rf"{_starting('unable')}\s+to\b", "can not"),
    ("fail", rf"{_starting('fail')}(?:s|ed|ing)?\s+to\b", "did not"),
    # "hardly any piano": none; "I can barely hear a piano": faint, or none?
    ("ly", r"[hbs](?<![a-z][hbs])(?:ardly|arely|carcely)\b(?=(?:\s+\w+){0,2}?\s+any)", "not"),
    # "I can hardly hear a piano, if at all": none
    (
        "if",
        r"[hbs](?<![a-z][hbs])(?:ardly|arely|carcely)\b(?=[^.;!?]{0,80}?\bif\s+(?:at\s+all|any)\b)",
        "not",
    ),
    ("ly", r"[hbs](?<![a-z][hbs])(?:ardly|arely|carcely)\b", "maybe"),
    (  # "i would be surprised if" -> "i do not think"
        "surprised",
        rf"{_starting('would')}\s+be\s+(?:very\s+|quite\s+|really\s+|pretty\s+|rather\s+)?"
        r"surprised\s+(?:if|to)\b",
        "do not think",
    ),
    ("surprise", rf"{_starting('it')}\s+would\s+surprise\s+(?:me|us)\s+if\b", "i do not think"),
    (
        "doubt",
        r"\b(?:i|we)\s+(?:really\s+|seriously\s+|highly\s+|strongly\s+|rather\s+)?doubt"
        r"(?:\s+(?:that|whether|if)\b)?",
        "i do not think",
    ),
    # "No answer.", "No idea.", "I have no comment": no answer, not a "no"
    ("no", rf"{_starting('no')}\s+(?:answer|comment|response|reply|idea|clue|opinion)\b", "maybe"),
    ("unlikely", rf"{_starting('unlikely')}\b", "not"),
    ("doubtful", rf"{_starting('doubtful')}\b", "not"),
    ("improbable", rf"{_starting('improbable')}\b", "not"),
    (
        "ble",
        r"[iu](?<![a-z][iu])(?:naudible|ndetectable|mperceptible|nnoticeable|nidentifiable)\b",
        "not audible",
    ),
    ("impossible", rf"{_starting('impossible')}\s+to\s+(?={_PERCEIVE}\b)", "not possible to "),
    ("devoid", rf"{_starting('devoid')}\s+of\b", "without"),
    # "I can't help but hear a piano", "I can't help noticing the piano": a piano
    (
        "help",
        rf"{_starting('can')}\s+not\s+help\s+(?:but\s+)?(?:notic(?:e|ing)|hear(?:ing)?)\b",
        "hear",
    ),
)
_NEGATION_PASSES = tuple(
    (cue, re.compile(pattern), f" {replacement} ") for cue, pattern, replacement in _NEGATIONS
)


def spelled_negations(text: str) -> str:
    """The spelled-out answer with the negations above in words the mark reader reads (a pass
    runs only where its word is in the text)."""
    for cue, pattern, replacement in _NEGATION_PASSES:
        if cue in text:
            text = pattern.sub(replacement, text)
    return text


# ---- refusals --------------------------------------------------------------------------------------
_SUBJECT = r"\b(?:i|we)(?:\s+(?:really|simply|just|actually|honestly|unfortunately|currently))?"
# "can not", "am unable to", "do not have the ability to"... (what "can't", "cannot" spell out to)
_CANNOT = _any(
    r"can\s+not",
    r"could\s+not",
    r"will\s+not",
    r"would\s+not",
    r"must\s+not",
    r"should\s+not",
    r"(?:am|are|was|were)\s+(?:not\s+able|unable|not\s+in\s+a\s+position|not\s+equipped|"
    r"not\s+designed|not\s+willing|unwilling)\s+to",
    r"(?:have|has)\s+not\s+been\s+able\s+to",
    r"(?:have|has)\s+no\s+(?:way|ability|means|capability)\s+(?:to|of)",
    r"(?:do|does)\s+not\s+have\s+(?:the\s+|any\s+)?(?:ability|capability|means|way|capacity)\s+to",
    r"lack\s+the\s+(?:ability|capability|means|capacity)\s+to",
)
_DO_NOT = _any(r"do\s+not", r"did\s+not", r"does\s+not")  # what was not heard, not the ability
_ADVERB = r"(?:\s+(?:\w+ly|in\s+good\s+conscience|really|actually|even|currently))?"
# what declining the task says (the object does not matter: "I can't help with identifying a piano")
_TASK_ACTS = _any(
    r"help(?!\s+(?:but|feeling|thinking|noticing|wondering|hearing))",
    *"assist answer respond reply comply fulfil fulfill complete provide give offer".split(),
    r"do\s+(?:that|this|so)",
    *"participate engage support continue proceed perform".split(),
    r"make(?!\s+out)",
)
# what the audio never reaching the model says: an act on the audio ("listen to audio", "process the
# recording", "see any audio attached") or with nothing after it ("I can't listen.")
_INPUT_ACTS = _any(
    *"listen hear see view watch process access analyze analyse perceive open play".split(),
    *"receive get have find detect load read interpret handle review identify recognize".split(),
)
_AUDIO = _any(
    r"audio(?:\s+(?:files?|clips?|recordings?|inputs?|content|attachments?|tracks?|data))?",
    r"sounds?(?:\s+files?)?",
    *"recordings? clips? files? attachments? media music songs? tracks? inputs?".split(),
    *"images? pictures? videos?".split(),  # what a model says that never got any input
)
# not "the sound of a piano", "the song has a piano"
_AUDIO_ALONE = (
    rf"\s+{_AUDIO}\b"
    r"(?!\s+(?:of|from|like|effects?|has|have|is|contains?|features?|includes?|with)\b)"
)
# words between an act and the audio ("listen to the provided audio", "listen to or analyze
# audio"); a name, "it", "anything" end them: no refusal. What the model cannot do to "instruments
# from the audio" is a refusal; what it does not hear in it ("I don't hear any instruments in the
# audio") is "none".
_BETWEEN = _any(
    *"to the a an any this that these those your my its such given provided attached".split(),
    *"uploaded shared actual in from of within specific individual or and some".split(),
    _INPUT_ACTS,
)
_BETWEEN_ABILITY = _any(_BETWEEN, "musical", "instruments?")
_PART_END = r"(?=\s*(?:[^\w\s']|$|(?:but|so|because|however|though|although|yet|since)\b))"
_UNABLE_TO = _any(
    rf"{_SUBJECT}\s+{_CANNOT}(?:\s+be\s+able\s+to)?{_ADVERB}",
    r"\b(?:it|this)\s+is\s+(?:not\s+possible|impossible)\s+(?:for\s+(?:me|us)\s+)?to",
    r"\bthere\s+is\s+no\s+way\s+(?:for\s+(?:me|us)\s+)?to",
)
_AI = _any(
    r"(?:large\s+)?language\s+model",
    r"ai(?:\s+(?:language\s+model|model|assistant))?",
    "artificial intelligence",
    r"text(?:-|\s+)?(?:only|based)\s+(?:ai\s+)?(?:model|assistant)",
    r"text\s+model",
    "assistant",
    "chatbot",
    "llm",
)
_REFUSALS = (
    # I can't help with that / I am unable to answer / I don't do that / I don't have an answer
    rf"(?:{_UNABLE_TO}|{_SUBJECT}\s+{_DO_NOT}{_ADVERB})\s+(?:\w+\s+)?{_TASK_ACTS}\b",
    rf"{_SUBJECT}\s+{_DO_NOT}\s+have\s+(?:an?\s+|any\s+)?(?:answer|response)\b",
    # I cannot listen to audio / I can't identify instruments from audio / I can't listen.
    rf"{_UNABLE_TO}\s+{_INPUT_ACTS}\b(?:(?:\s+{_BETWEEN_ABILITY}){{0,4}}{_AUDIO_ALONE}|{_PART_END})",
    # I don't see any audio attached / I did not receive an audio file
    rf"{_SUBJECT}\s+{_DO_NOT}{_ADVERB}\s+{_INPUT_ACTS}\b(?:\s+{_BETWEEN}){{0,4}}{_AUDIO_ALONE}",
    # I must decline / I refuse / I'm going to decline
    rf"{_SUBJECT}\s+(?:must\s+|have\s+to\s+|need\s+to\s+|will\s+|would\s+|respectfully\s+)?"
    r"(?:decline|refuse|abstain)\b",
    rf"{_SUBJECT}\s+(?:am|are)\s+(?:going\s+to\s+)?(?:decline|declining|refusing)\b",
    # as a text-only model, I cannot ... / as an AI I don't have ears (whatever it cannot do)
    rf"\bas\s+an?\s+{_AI}\b[^.;!?\n]{{0,80}}?{_SUBJECT}\s+"
    rf"(?:{_CANNOT}|{_DO_NOT}|am\s+not|have\s+no|lack)\b",
    r"\bi\s+am\s+(?:only\s+|just\s+)?an?\s+text(?:-|\s+)?(?:only|based)\b",
    r"\b(?:only|just)\s+(?:process|read|understand|handle|accept|work\s+with|respond\s+to)\s+"
    r"(?:\w+\s+)?(?:text|written)\b",
    r"\b(?:i|we)\s+(?:do\s+not\s+have\s+(?:any\s+)?|have\s+no\s+)ears\b",
    # the audio never reached the model: "No audio.", "there is no audio attached"
    rf"(?:\bthere\s+(?:is|are|was|were)\s+|\b(?:i|we)\s+(?:hear|see|have|find|got|received)\s+)?"
    rf"\b(?:no|not\s+(?:any|an))\s+{_AUDIO}(?:\s+(?:was|is|were|are|has\s+been|have\s+been))?"
    r"(?:\s+(?:provided|attached|included|given|available|uploaded|shared|received|found|"
    rf"present|detected|here))?{_PART_END}",
    rf"\b(?:the|an|your|this)\s+{_AUDIO}\s+(?:(?:is|was|were|are|has|have|seems\s+to\s+be|"
    r"appears\s+to\s+be)(?:\s+been)?\s+(?:missing|unavailable|inaccessible|empty|blank|corrupted|"
    r"(?:not|never)(?:\s+been)?\s+(?:provided|attached|included|available|given|received|uploaded|"
    r"shared|accessible|loaded|playing|audible))|(?:did|does|do)\s+not\s+(?:load|play|open|"
    rf"come\s+through)){_PART_END}",
    rf"\bwithout\s+(?:(?:listening\s+to|hearing|access\s+to|seeing)\s+)?(?:the\s+|any\s+|an\s+|a\s+)?"
    rf"{_AUDIO}\b(?!\s+(?:of|from|like|effects?)\b)",
    r"\bbeyond\s+(?:my|our)\s+(?:capabilities|abilities|capacity)\b",
    r"\byou\s+(?:have|did|do)\s+not\s+(?:provide|attach|share|include|upload|send|give)",
    rf"\b(?:please|kindly)\s+(?:provide|attach|share|include|upload|send|give|describe)\b"
    rf"(?:\s+\w+){{0,3}}?{_AUDIO_ALONE}",
    rf"\b(?:i|we)\s+(?:would\s+)?need\s+(?:to\s+(?:hear|listen\s+to|access|see)\s+)?"
    rf"(?:the\s+|an\s+|some\s+|your\s+)?{_AUDIO}\b",
)
_REFUSAL = re.compile("|".join(f"(?:{pattern})" for pattern in _REFUSALS))
_TO_PART_END = re.compile(
    r"[^.;!?\n,:]*?(?=[.;!?\n,:]|$|\s(?:but|so|because|however|though|although|yet|since)\b)"
)


def without_refusals(text: str, letter_a: str = "") -> tuple[str, bool]:
    """The spelled-out answer with each part that refuses (in its first _HEAD_CHARS characters)
    replaced by a clause end, and whether there was one. `letter_a`: a character
    that stands for a capital "A" in the text (cleaning.CAPITAL_A), read here as the article."""
    head = text[:_HEAD_CHARS].replace(letter_a, "a") if letter_a else text[:_HEAD_CHARS]
    spans, position = [], 0
    for match in _REFUSAL.finditer(head):
        if match.start() < position:
            continue
        end = _TO_PART_END.match(head, match.end()).end()
        spans.append((match.start(), end))
        position = end
    if not spans:
        return text, False
    pieces, last = [], 0
    for start, end in spans:
        pieces += [text[last:start], " ; "]
        last = end
    return "".join(pieces) + text[last:], True
