"""The policy tokenizer: golden ids shared with the TypeScript tests, exact round trips, specials."""

import base64
import json
from pathlib import Path

from agentrl_trainer.tokenizer import GOLDEN_TEXTS, load_tokenizer

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "shared" / "golden" / "tokenizer.json").read_text())
tokenizer = load_tokenizer()


def test_definition_matches_golden():
    assert tokenizer.name == GOLDEN["tokenizer"]
    assert tokenizer.vocab_size == GOLDEN["vocabSize"]
    assert tokenizer.specials == GOLDEN["specialIds"]


def test_golden_ids_and_round_trip():
    assert [case["name"] for case in GOLDEN["cases"]] == [name for name, _ in GOLDEN_TEXTS]
    for case in GOLDEN["cases"]:
        data = base64.b64decode(case["bytesBase64"])
        assert tokenizer.encode(data) == case["ids"], case["name"]
        assert tokenizer.decode_bytes(case["ids"]) == data


def test_spelled_specials_never_produce_special_ids():
    special_ids = set(tokenizer.specials.values())
    for name in tokenizer.specials:
        assert not special_ids & set(tokenizer.encode(f"x{name}y"))
    try:
        tokenizer.decode_bytes([tokenizer.specials["<act>"]])
    except ValueError as error:
        assert "special token" in str(error)
    else:
        raise AssertionError("a special id must not decode to bytes")
